"""gpu_torch - a small PyTorch workload on the GPU (integer-valued matmul,
relu, sum), printing a checksum that is exact on every GPU."""
import sys

import torch

if not torch.cuda.is_available():
    sys.exit("gpu_torch: torch.cuda is not available")
a = (torch.arange(128 * 128, device="cuda", dtype=torch.float32) % 7).reshape(128, 128)
b = (torch.arange(128 * 128, device="cuda", dtype=torch.float32) % 5).reshape(128, 128) - 2
c = torch.relu(a @ b)
print("gpu_torch: sum %d" % int(c.sum().item()))
