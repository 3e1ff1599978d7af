"""Three-way merge of text files, line by line, as `git merge-file` does it.

`update` merges what kernelgen generated then (the base), what the user has now (theirs to
keep) and what kernelgen generates now. Each region changed on one side only takes that
side's lines; a region both sides changed differently becomes a conflict, written between the
standard markers so that editors and `git` recognise it:

    <<<<<<< yours
    (the user's lines)
    =======
    (kernelgen's new lines)
    >>>>>>> kernelgen 0.2.0
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class MergeResult:
    text: str
    conflicts: int  # regions written between conflict markers


def _unchanged_lines(base: list[str], other: list[str]) -> dict[int, int]:
    """Base line index -> the index of the same line in `other`, for lines `other` kept."""
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    kept: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            kept[block.a + k] = block.b + k
    return kept


def _ended(lines: list[str]) -> list[str]:
    """`lines` with a final newline, so a marker after them starts a line of its own."""
    if lines and not lines[-1].endswith("\n"):
        return [*lines[:-1], lines[-1] + "\n"]
    return lines


def merge3(base: str, yours: str, new: str, new_label: str = "kernelgen") -> MergeResult:
    """Merge the changes from `base` to `yours` and from `base` to `new`."""
    base_lines = base.splitlines(keepends=True)
    your_lines = yours.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    in_yours = _unchanged_lines(base_lines, your_lines)
    in_new = _unchanged_lines(base_lines, new_lines)
    # Base lines both sides kept are where the three texts line up; between two of them lies
    # a region each side may have changed.
    anchors = [i for i in range(len(base_lines)) if i in in_yours and i in in_new]
    anchors.append(len(base_lines))  # a sentinel: the end of all three
    out: list[str] = []
    conflicts = 0
    b = y = n = 0
    for anchor in anchors:
        at_end = anchor == len(base_lines)
        y_end = len(your_lines) if at_end else in_yours[anchor]
        n_end = len(new_lines) if at_end else in_new[anchor]
        base_part, your_part, new_part = (
            base_lines[b:anchor],
            your_lines[y:y_end],
            new_lines[n:n_end],
        )
        if your_part == base_part:
            out += new_part
        elif new_part == base_part or new_part == your_part:
            out += your_part
        else:
            conflicts += 1
            out += ["<<<<<<< yours\n", *_ended(your_part), "=======\n", *_ended(new_part)]
            out.append(f">>>>>>> {new_label}\n")
        if not at_end:
            out.append(base_lines[anchor])
        b, y, n = anchor + 1, y_end + 1, n_end + 1
    return MergeResult("".join(out), conflicts)
