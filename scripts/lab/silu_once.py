"""One forward launch of PACKAGE.silu per 16-bit dtype at 2^28 elements: the thing to run under
ncu, to see what holds bfloat16 SiLU under float16's bandwidth (lab round 13)."""

import importlib
import sys

import torch

ops = importlib.import_module(sys.argv[1])
for dtype in (torch.float16, torch.bfloat16):
    x = torch.randn(1 << 28, dtype=dtype, device="cuda")
    ops.silu(x)
    torch.cuda.synchronize()
    print("ran", dtype)
