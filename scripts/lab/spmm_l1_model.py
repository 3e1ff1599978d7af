"""A CPU model of one SM's L1 under SpMM's rows kernel at k = 64 on the benchmark's 256^3
stencil (lab round 45): the SM's resident blocks (every 132nd block, as the block scheduler
deals them out) run turn by turn in lockstep, each group gathering its row's 7 rows of X (two
128-byte lines each) through a fully associative LRU cache. Prints the fraction of those line
reads that hit, for the template's layout and round 45's variants. Lockstep is the model's
weak point: real warps drift apart, and lab 40 measured 32 rows in turn 3% slower than 16,
where this model gives it 15 points more hits. Runs without a GPU.
Usage: python spmm_l1_model.py"""

from collections import OrderedDict
from typing import NamedTuple

SMS = 132
GRID = 256
PLANE = GRID * GRID
LINES_PER_ROW = 2  # a row of X at k = 64 is 256 bytes
GROUP_LANES = 16


class Layout(NamedTuple):
    name: str
    block_threads: int
    rows_in_turn: int
    warps_per_sm: int  # what 40 registers a thread allow


def stencil_columns(row: int) -> list[int]:
    return [row - PLANE, row - GRID, row - 1, row, row + 1, row + GRID, row + PLANE]


def l1_hit_rate(layout: Layout, l1_bytes: int, blocks: int = 40, sm: int = 7) -> float:
    resident = max(1, layout.warps_per_sm * 32 // layout.block_threads)
    groups = layout.block_threads // GROUP_LANES
    rows_per_block = groups * layout.rows_in_turn
    first_block = 100 * PLANE // rows_per_block  # inside the matrix: no boundary rows
    dealt = [first_block + sm + SMS * i for i in range(blocks)]
    cache: OrderedDict[int, None] = OrderedDict()
    hits = reads = 0
    for wave in range(0, len(dealt), resident):
        for turn in range(layout.rows_in_turn):
            for block in dealt[wave : wave + resident]:
                for group in range(groups):
                    row = block * rows_per_block + group * layout.rows_in_turn + turn
                    for column in stencil_columns(row):
                        for line in range(column * LINES_PER_ROW, (column + 1) * LINES_PER_ROW):
                            reads += 1
                            if line in cache:
                                hits += 1
                                cache.move_to_end(line)
                            else:
                                cache[line] = None
                                if len(cache) > l1_bytes // 128:
                                    cache.popitem(last=False)
    return hits / reads


LAYOUTS = [
    Layout("template (256 threads, 16 in turn)", 256, 16, 48),
    Layout("lab 40: 32 in turn", 256, 32, 48),
    Layout("lab 40: 8 in turn", 256, 8, 48),
    Layout("b512", 512, 16, 48),
    Layout("b768", 768, 16, 48),
    Layout("b1024", 1024, 16, 32),
]

if __name__ == "__main__":
    for kib in (128, 256):
        for layout in LAYOUTS:
            print(
                f"L1 {kib} KB | {layout.name} | X line hits {l1_hit_rate(layout, kib * 1024):.3f}"
            )
