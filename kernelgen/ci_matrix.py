"""The generated CI workflow's toolchains: the (Python, torch, CUDA) cells it builds with.

A cell stays in a project's matrix only if its nvcc compiles every compute capability in the
project's arch list: CUDA 13 dropped everything below 7.5, and Blackwell (10.0, 12.0) needs
CUDA 12.8 or newer, so a fixed matrix would fail out of the box for a V100 or a B200 project.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernelgen.options import compute_capability

_UP_TO_HOPPER = frozenset(
    {(5, 0), (5, 2), (5, 3), (6, 0), (6, 1), (6, 2), (7, 0), (7, 2), (7, 5)}
    | {(8, 0), (8, 6), (8, 7), (8, 9), (9, 0)}
)
# The compute capabilities each toolkit's `nvcc --list-gpu-arch` names.
NVCC_COMPUTE_CAPABILITIES: dict[str, frozenset[tuple[int, int]]] = {
    "12.6": _UP_TO_HOPPER,
    "12.8": _UP_TO_HOPPER | {(10, 0), (10, 1), (12, 0)},
    "13.0": frozenset(
        {(7, 5), (8, 0), (8, 6), (8, 7), (8, 8), (8, 9), (9, 0)}
        | {(10, 0), (10, 3), (11, 0), (12, 0), (12, 1)}
    ),
}


@dataclass(frozen=True)
class Toolchain:
    """One cell of the CI matrix."""

    python: str
    torch: str
    cuda: str

    @property
    def torch_index(self) -> str:
        """The PyTorch wheel index of this CUDA version: cu128 for 12.8."""
        return "cu" + self.cuda.replace(".", "")

    def compiles(self, arch_list: tuple[str, ...]) -> bool:
        """Whether this toolkit's nvcc compiles for every compute capability in `arch_list`."""
        known = NVCC_COMPUTE_CAPABILITIES[self.cuda]
        return all(compute_capability(arch) in known for arch in arch_list)


STANDARD_ABI_CELLS = (
    Toolchain(python="3.12", torch="2.9.1", cuda="12.8"),
    Toolchain(python="3.12", torch="2.11.0", cuda="13.0"),
    Toolchain(python="3.10", torch="2.9.1", cuda="12.6"),
)
# The stable ABI needs torch 2.10 or newer.
STABLE_ABI_CELLS = (
    Toolchain(python="3.12", torch="2.10.0", cuda="12.8"),
    Toolchain(python="3.12", torch="2.11.0", cuda="13.0"),
    Toolchain(python="3.10", torch="2.10.0", cuda="12.6"),
)


@dataclass(frozen=True)
class CiMatrix:
    """What the workflow builds with: its cells, the wheel job's cell, and a note for the user
    when no cell compiles their arch list (then every cell is kept, for them to edit)."""

    cells: tuple[Toolchain, ...]
    wheel: Toolchain  # the newest CUDA among the cells
    note: str | None


def ci_matrix(abi: str, arch_list: tuple[str, ...]) -> CiMatrix:
    """The matrix cells that compile `arch_list`; all of them, with a note, where none does (an
    arch newer than this table knows, or a list no one toolkit spans)."""
    cells = STABLE_ABI_CELLS if abi == "stable" else STANDARD_ABI_CELLS
    fitting = tuple(cell for cell in cells if cell.compiles(arch_list))
    note = None
    if not fitting:
        toolkits = ", ".join(sorted({cell.cuda for cell in cells}))
        note = (
            f"no CUDA toolkit in the generated CI ({toolkits}) compiles for every arch in "
            f"{';'.join(arch_list)}; edit the matrix in .github/workflows/ci.yml"
        )
    kept = fitting or cells
    wheel = max(kept, key=lambda cell: tuple(int(part) for part in cell.cuda.split(".")))
    return CiMatrix(kept, wheel, note)
