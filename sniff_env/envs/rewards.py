"""The two reward rules shared by the environments and the trainer, per side.

``points``: each side's score change minus the mean change of the other sides (dense, zero-sum).
``win``: +1 to the winning side and -1/(sides - 1) to each other side (zero-sum); none on a draw.
The batched environment applies the same rules to whole batches with numpy.
"""

from __future__ import annotations

from collections.abc import Sequence


def points_rewards(before: Sequence[int], after: Sequence[int]) -> list[float]:
    """Each side's score change minus the mean change of the other sides."""
    delta = [a - b for a, b in zip(after, before, strict=True)]
    total, others = sum(delta), len(delta) - 1
    return [d - (total - d) / others for d in delta]


def win_rewards(winner: int | None, num_sides: int) -> list[float]:
    """+1 to ``winner``, -1/(sides - 1) to every other side; all zero when ``winner`` is None."""
    if winner is None:
        return [0.0] * num_sides
    return [1.0 if s == winner else -1.0 / (num_sides - 1) for s in range(num_sides)]
