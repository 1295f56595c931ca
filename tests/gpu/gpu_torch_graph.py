"""gpu_torch_graph - a PyTorch CUDA graph: the forward pass of a small model
captured with torch.cuda.graph (stream capture underneath) and replayed
several times with new inputs copied into its static input.  Prints a sum of
the outputs, rounded."""
import sys

import torch

if not torch.cuda.is_available():
    sys.exit("gpu_torch_graph: torch.cuda is not available")
torch.manual_seed(7)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 8)).cuda()
static_in = torch.zeros(32, 64, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side), torch.no_grad():
    for _ in range(2):  # warm up on a side stream, as the docs ask
        model(static_in)
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
with torch.no_grad(), torch.cuda.graph(graph):
    static_out = model(static_in)
total = 0.0
for i in range(4):
    static_in.copy_(torch.full((32, 64), 0.01 * (i + 1), device="cuda"))
    graph.replay()
    total += static_out.sum().item()
print("gpu_torch_graph: total %.3f" % total)
