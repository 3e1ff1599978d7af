"""What the *_once.py scripts share: each call once to warm up (first-call setup, caches),
then each once more inside the NVTX range "measure", the only launches that ncu profiles
under --nvtx --nvtx-include "measure/"."""

from collections.abc import Callable

import torch


def measure_once(*calls: Callable[[], object]) -> None:
    for call in calls:
        call()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("measure")
    for call in calls:
        call()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
