"""gpu_triton_add - a Triton kernel: Triton compiles it and loads the cubin
itself through the driver API (cuModuleLoadData, cuLaunchKernel).  Integer
arithmetic, so its sum is exact."""
import sys

import torch
import triton
import triton.language as tl

if not torch.cuda.is_available():
    sys.exit("gpu_triton_add: torch.cuda is not available")


@triton.jit
def gpu_triton_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * 5 + (b ^ 3), mask=mask)


n = 1 << 19
x = torch.arange(n, device="cuda", dtype=torch.int32) % 911
y = torch.arange(n, device="cuda", dtype=torch.int32) % 577
out = torch.empty_like(x)
for _ in range(2):
    gpu_triton_add_kernel[(triton.cdiv(n, 512),)](x, y, out, n, BLOCK=512)
print("gpu_triton_add: sum %d" % int(out.sum().item()))
