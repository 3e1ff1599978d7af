"""Data-parallel training with a generated project's ops matches a single-process run.

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
        torchrun --standalone --nproc-per-node 2 scripts/ddp_check.py PACKAGE

A small model whose layers are PACKAGE.wmma_gemm followed by PACKAGE.silu (so both ops run
forward and backward) trains for a few SGD steps under DistributedDataParallel, each rank on
half of a fixed global batch. DDP averages the gradients, so every rank's parameters must
match one process training on the whole batch; rank 0 computes that reference itself and
compares. Each rank uses GPU `rank`; `--backend gloo --one-gpu` runs both ranks on cuda:0,
for machines with one GPU (this checks the DDP wiring of the ops, not NCCL or a second
device). The device-guard case (tensors on cuda:1 while cuda:0 is current) is covered by
the generated test suites' two-GPU tests.
"""

import argparse
import copy
import importlib
import os

# NVLink multicast (NVLS) stays off: on shared machines it can take the host's GPUs down.
for variable, value in (
    ("NCCL_NVLS_ENABLE", "0"),
    ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
    ("NVSHMEM_DISABLE_NVLS", "1"),
):
    os.environ.setdefault(variable, value)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402


class Layer(nn.Module):
    def __init__(self, ops, d_in: int, d_out: int) -> None:
        super().__init__()
        self.gemm, self.activation = ops.wmma_gemm, ops.silu  # functions: the module deep-copies
        self.weight = nn.Parameter(torch.randn(d_in, d_out, dtype=torch.float16) / d_in**0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.activation(self.gemm(x, self.weight))


def make_model(ops) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(Layer(ops, 96, 200), Layer(ops, 200, 40), Layer(ops, 40, 8))


def train(model: nn.Module, batches, steps: int) -> None:
    optimiser = torch.optim.SGD(model.parameters(), lr=0.5)
    for step in range(steps):
        optimiser.zero_grad()
        loss = model(batches[step]).float().pow(2).mean()
        loss.backward()
        optimiser.step()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package")
    parser.add_argument("--backend", default="nccl")
    parser.add_argument("--one-gpu", action="store_true", help="put every rank on cuda:0")
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    ops = importlib.import_module(args.package)

    dist.init_process_group(args.backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", 0 if args.one_gpu else rank)
    torch.cuda.set_device(device)  # NCCL binds each rank to its current device

    generator = torch.Generator().manual_seed(1)
    batches = [torch.randn(64 * world, 96, generator=generator).half() for _ in range(args.steps)]
    shard = [b.chunk(world)[rank].to(device) for b in batches]

    reference = make_model(ops)
    ddp_model = DistributedDataParallel(
        copy.deepcopy(reference).to(device), device_ids=None if args.one_gpu else [device.index]
    )
    train(ddp_model, shard, args.steps)

    if rank == 0:
        reference = reference.to(device)
        train(reference, [b.to(device) for b in batches], args.steps)
        worst = 0.0
        for (name, got), want in zip(ddp_model.module.named_parameters(), reference.parameters(), strict=True):
            assert got.device == device, f"{name} is on {got.device}"
            error = ((got.float() - want.float()).norm() / want.float().norm()).item()
            worst = max(worst, error)
            assert error < 2e-3, (
                f"{name}: relative difference {error:.2e} from the single-process run"
            )
        print(
            f"DDP ({args.backend}, {world} ranks, devices {'cuda:0' if args.one_gpu else 'cuda:0..'}) "
            f"matches the single-process run: worst relative difference {worst:.1e}"
        )
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
