"""The batched engine estimates the memory of a batch from its arrays and refuses one too large."""

from __future__ import annotations

import tracemalloc

import pytest

from sniff_env.envs.batch_env import SniffVectorEnv
from sniff_env.presets import make_rules
from sniff_env.vector import VectorEngine, checks
from sniff_env.vector.engine import bytes_per_game
from sniff_env.vector.tables import build_tables


@pytest.mark.parametrize(("preset", "players"), [("sniff", 2), ("sniff-cribbage", 4)])
def test_the_estimate_is_what_a_batch_allocates(preset: str, players: int) -> None:
    rules = make_rules(preset, players)
    tracemalloc.start()
    try:
        engine = VectorEngine(rules, 2048, threads=1)
        allocated = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    estimate = 2048 * bytes_per_game(build_tables(rules))
    assert estimate <= allocated <= 1.05 * estimate
    engine.close()


def test_a_batch_past_the_available_memory_is_refused_before_allocating(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checks, "available_memory", lambda: 2**30)
    tracemalloc.start()
    try:
        with pytest.raises(checks.BatchError) as info:
            SniffVectorEnv("sniff", 10**7)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "10,000,000 games need about" in str(info.value)
    assert "50% of the 1.00 GiB available" in str(info.value)
    assert peak < 2**20


def test_max_bytes_sets_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checks, "available_memory", lambda: 10**4)
    with pytest.raises(checks.BatchError, match="limit of"):
        SniffVectorEnv("sniff", 64, threads=1)
    env = SniffVectorEnv("sniff", 64, threads=1, max_bytes=10**8)
    assert env.num_envs == 64
    with pytest.raises(checks.BatchError, match=r"\(max_bytes\)"):
        SniffVectorEnv("sniff", 64, threads=1, max_bytes=10**4)
