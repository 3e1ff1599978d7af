"""Many launches of a generated project's wmma_gemm at 8192^3, each checked element by element.

    python scripts/wmma_soak.py PACKAGE [LAUNCHES]

A race that corrupts a few fragments in one launch of several hides from a single check and
from a norm-relative error; this counts, per launch, the elements further from the float32
product than accumulation order explains, for float16 and bfloat16 inputs and both output
dtypes. Exits 1 if any launch had one.
"""

import importlib
import sys

import torch


def main() -> int:
    package = importlib.import_module(sys.argv[1])
    launches = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    failed = False
    for dtype in (torch.float16, torch.bfloat16):
        a = torch.randn(8192, 8192, device="cuda", dtype=dtype)
        b = torch.randn(8192, 8192, device="cuda", dtype=dtype)
        want = a.float() @ b.float()
        for out_dtype in (None, torch.float32):
            bad = []
            for _ in range(launches):
                err = (package.wmma_gemm(a, b, out_dtype=out_dtype).float() - want).abs()
                bad.append(int(((err > 2.0 + 0.01 * want.abs()) | err.isnan()).sum()))
            failed |= any(bad)
            print(f"wmma soak {dtype} out {out_dtype}: bad elements per launch {bad}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
