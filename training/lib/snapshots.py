"""The pool's frozen snapshots scored in one batched forward pass.

Every snapshot has the learner's shape, so their weights stack into one set of tensors with a
leading snapshot dimension (``torch.func.stack_module_state``'s layout) and ``torch.func.vmap``
runs the network once over all of them: the rows of each snapshot are padded into a
``[snapshots, widest, obs_size]`` block, and the logits of every row come back in the rows' order.
A network that ``vmap`` cannot run (one that picks rows by their data) is scored one snapshot at a
time, still with no copy of a module per snapshot (``torch.func.functional_call``).
"""

from __future__ import annotations

import copy

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, vmap


class SnapshotBank:
    """The snapshots of a pool (state dicts of ``like``'s shape) on ``device``, stacked."""

    def __init__(self, like: nn.Module, device: torch.device, stacked: bool = True) -> None:
        self.device = device
        self.stacked = stacked
        self._base = copy.deepcopy(like).to("meta").eval()
        kept = set(like.state_dict())
        for name, buffer in like.named_buffers():  # constants no snapshot holds (move-tiles' tables)
            if name not in kept:
                owner, _, attr = name.rpartition(".")
                module = self._base.get_submodule(owner) if owner else self._base
                module.register_buffer(attr, buffer.detach().to(device), persistent=False)
        self._key: tuple[int, ...] = ()
        self._states: list[dict[str, torch.Tensor]] = []
        self._stack: dict[str, torch.Tensor] = {}
        self._probed = False
        self._obs_size = int(like.obs_size)

    def update(self, pool: list[dict[str, torch.Tensor]]) -> None:
        """Take the pool as it is now (rebuilt only when its snapshots changed)."""
        key = tuple(id(state) for state in pool)
        if key == self._key:
            return
        self._key = key
        self._states = [{k: v.to(self.device) for k, v in state.items()} for state in pool]
        self._stack = {k: torch.stack([s[k] for s in self._states]) for k in self._states[0]} if pool else {}
        if self.stacked and pool and not self._probed:
            self._probed = True
            try:
                self.logits(torch.zeros(1, self._obs_size, device=self.device), np.zeros(1, np.int64))
            except (RuntimeError, NotImplementedError, ValueError):  # vmap refuses a forward pass that picks rows by data
                self.stacked = False

    def _one(self, state: dict[str, torch.Tensor], obs: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = functional_call(self._base, state, (obs,))[0]
        return logits

    def logits_each(self, index: int, obs: torch.Tensor) -> torch.Tensor:
        """Snapshot ``index``'s logits for ``obs`` (one network, one pass, in float32)."""
        with torch.inference_mode(), torch.autocast(obs.device.type, enabled=False):
            return self._one(self._states[index], obs)

    def logits(self, obs: torch.Tensor, which: np.ndarray) -> torch.Tensor:
        """Logits ``[R, num_actions]`` of the snapshot ``which[r]`` for each row ``r`` of ``obs``."""
        rows = which.size
        if not self.stacked:
            out: torch.Tensor | None = None
            for snap in np.unique(which).tolist():
                at = torch.from_numpy(np.flatnonzero(which == snap)).to(obs.device)
                part = self.logits_each(snap, obs.index_select(0, at))
                out = part.new_empty(rows, part.shape[1]) if out is None else out
                out.index_copy_(0, at, part)
            assert out is not None
            return out
        counts = np.bincount(which, minlength=len(self._states))
        order = np.argsort(which, kind="stable")
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        pos = np.empty(rows, np.int64)
        pos[order] = np.arange(rows) - starts[which[order]]
        snap_t = torch.from_numpy(which.astype(np.int64)).to(obs.device)
        pos_t = torch.from_numpy(pos).to(obs.device)
        padded = obs.new_zeros(len(self._states), int(counts.max()), obs.shape[1])
        padded[snap_t, pos_t] = obs
        # float32 whatever the trainer's precision: an opponent's choices are not learned from, and
        # casting every snapshot's weights on every call would cost more than it saves
        with torch.inference_mode(), torch.autocast(obs.device.type, enabled=False):
            block = vmap(self._one)(self._stack, padded)
        return block[snap_t, pos_t]

