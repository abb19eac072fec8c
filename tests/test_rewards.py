"""The reward rules: zero-sum points differences and zero-sum win/loss."""

from __future__ import annotations

import pytest

from sniff_env.envs.rewards import points_rewards, win_rewards


def test_points_rewards_are_zero_sum_differences() -> None:
    assert points_rewards([10, 0], [30, 0]) == [20.0, -20.0]
    three = points_rewards([0, 0, 0], [15, 0, 5])
    assert three == [15 - 2.5, 0 - 10.0, 5 - 7.5]
    assert sum(three) == pytest.approx(0.0)


@pytest.mark.parametrize(("winner", "sides", "want"), [
    (0, 2, [1.0, -1.0]), (2, 3, [-0.5, -0.5, 1.0]), (None, 2, [0.0, 0.0]),
])
def test_win_rewards(winner: int | None, sides: int, want: list[float]) -> None:
    assert win_rewards(winner, sides) == want
