"""Double buffering: one half of the games steps on the engine's threads while the other chooses.

The games are split into two batches, each with its own :class:`~training.lib.collector.Collector`.
Each step, half A chooses its moves (the networks score it) while half B's engine step and
bookkeeping run on a worker thread, then the other way round, as EnvPool's asynchronous mode and
Sample Factory's double-buffered sampling keep the policy and the simulator busy at once. The
compiled kernels and torch both release the GIL, so the two halves really overlap.

Every generator is read in a fixed order (the sampler on the calling thread only, each half's
table draws on the one worker thread, A before B), so a run is exactly what the halves give when
stepped one after another: the same seed, the same batches.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor

import torch
from torch import nn

from training.lib.collector import Collector
from training.lib.experience import Batch


class OverlappedCollector:
    """Two collectors over two halves of the games, stepped in turn with their engines overlapped."""

    def __init__(self, first: Collector, second: Collector) -> None:
        if first.config != second.config:
            raise ValueError("the two halves of an overlapped collector must share one collector configuration")
        self.halves = (first, second)
        self.config = first.config
        second.bank = first.bank  # one stack of snapshot weights for both halves
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="engine")

    @property
    def network_s(self) -> float:
        """Seconds spent in the networks' forward passes so far (both halves)."""
        return sum(half.network_s for half in self.halves)

    def collect(self, net: nn.Module, pool: list[dict[str, torch.Tensor]], sampler: torch.Generator,
                overlap: bool = True) -> tuple[Batch, float]:
        """As :meth:`Collector.collect` over both halves (the first half's decisions first);
        ``overlap=False`` steps the halves one after another on this thread (the same batch)."""
        t0 = time.perf_counter()
        for half in self.halves:
            half.begin(pool)
        pending: Future[None] | None = None
        for _ in range(self.config.num_steps):
            for half in self.halves:
                actions = half.choose(net, sampler)  # overlaps the other half's step
                if pending is not None:
                    pending.result()
                if overlap:
                    pending = self._worker.submit(half.advance, actions)
                else:
                    half.advance(actions)
        if pending is not None:
            pending.result()
        parts = [half.finish() for half in self.halves]
        batch = {key: torch.cat([part[key] for part in parts]) for key in parts[0]}
        games = sum(half.engine.num_envs for half in self.halves)
        return batch, games * self.config.num_steps / max(time.perf_counter() - t0, 1e-9)

    def pop_wins(self) -> list[float]:
        """As :meth:`Collector.pop_wins`, the first half's games first."""
        return [w for half in self.halves for w in half.pop_wins()]

    def close(self) -> None:
        """Stop the worker thread."""
        self._worker.shutdown()
