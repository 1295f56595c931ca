"""gpu_torch_train - several SGD steps of a small MLP on the GPU: cuBLAS
GEMMs, autograd's backward kernels and the optimizer's updates, the call
pattern of a real training loop.  Prints the last loss."""
import sys

import torch

if not torch.cuda.is_available():
    sys.exit("gpu_torch_train: torch.cuda is not available")
torch.manual_seed(1234)
model = torch.nn.Sequential(
    torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64), torch.nn.ReLU(),
    torch.nn.Linear(64, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
x = torch.randn(256, 128, device="cuda")
y = torch.randint(0, 10, (256,), device="cuda")
for step in range(5):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
print("gpu_torch_train: loss %.5f" % loss.item())
