"""A CPU model of the row search in SpMV's partition kernel (lab round 21, ninth session):
for every 7th chunk of 2048 nonzeros of the benchmark's 256^3 stencil and of a 4M-row
power-law matrix (the benchmark's recipe, drawn with numpy's generator rather than
torch's), how many dependent loads of crow the galloping search takes from the
mean-length guess, and from that guess refined by secant steps (as the template does now).
The kernel runs every chunk's thread in one wave, so the slowest chain sets its time.
Usage: python partition_model.py (numpy only; ~1 minute)"""

import numpy as np


def stencil_crow(side: int) -> np.ndarray:
    idx = np.arange(side**3)
    z, y, x = idx // (side * side), (idx // side) % side, idx % side
    lengths = 1 + (z > 0) + (z < side - 1) + (y > 0) + (y < side - 1) + (x > 0) + (x < side - 1)
    return np.concatenate([[0], np.cumsum(lengths)])


def power_law_crow(rows: int, mean: int) -> np.ndarray:
    raw = np.floor(np.clip(np.random.default_rng(0).random(rows), 1e-6, None) ** (-1 / 1.5))
    lengths = np.clip((raw * (mean / raw.mean())).astype(np.int64), 0, rows)
    return np.concatenate([[0], np.cumsum(lengths)])


def first_row_where(crow: np.ndarray, guess: int, position: int) -> tuple[int, int]:
    """The kernel's galloping search for the chunk starting at `position`: (row, loads)."""
    rows = len(crow) - 1
    loads = 0

    def reaches(r: int) -> bool:
        nonlocal loads
        loads += 1
        return crow[r + 1] > position or crow[r] >= position

    lo = hi = guess
    step = 1
    if reaches(guess):
        while lo > 0 and reaches(lo - 1):
            hi, lo, step = lo - 1, max(0, lo - step), step * 2
    else:
        lo = hi = guess + 1
        while not reaches(hi):
            lo, hi, step = hi + 1, min(rows - 1, hi + step), step * 2
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if reaches(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo, loads


def mean_length_guess(rows: int, nnz: int, position: int) -> int:
    return min(rows - 1, int(position / nnz * rows))


def secant_guess(crow: np.ndarray, position: int) -> tuple[int, int]:
    """The template's secant_guess: (guess, loads)."""
    rows, nnz = len(crow) - 1, int(crow[-1])
    guess = mean_length_guess(rows, nnz, position)
    reached, loads = int(crow[guess]), 1
    rows_per_nonzero = rows / nnz
    for _ in range(3):
        following = min(rows - 1, max(0, guess + round((position - reached) * rows_per_nonzero)))
        if following == guess:
            break
        following_reached = int(crow[following])
        loads += 1
        if following_reached != reached:
            rows_per_nonzero = (following - guess) / (following_reached - reached)
        guess, reached = following, following_reached
    return guess, loads


for name, crow in [("stencil 256^3", stencil_crow(256)), ("power-law 4M", power_law_crow(2**22, 8))]:
    rows, nnz = len(crow) - 1, int(crow[-1])
    plain, refined = [], []
    for position in range(0, nnz, 7 * 2048):
        row, loads = first_row_where(crow, mean_length_guess(rows, nnz, position), position)
        guess, guess_loads = secant_guess(crow, position)
        same_row, search_loads = first_row_where(crow, guess, position)
        assert same_row == row
        plain.append(loads)
        refined.append(guess_loads + search_loads)
    print(f"{name}: mean-length guess {np.mean(plain):.1f} loads (max {max(plain)}), "
          f"secant guess {np.mean(refined):.1f} (max {max(refined)})")
