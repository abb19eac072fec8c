"""Several exported networks as one policy: the mean of their logits.

A study of whether the networks' errors are their own (an average of several would then play
better than each) or shared (it would not). The networks must be TorchScript policies made for
the same rules and observation layout; the result is a TorchScript policy like theirs, with the
first's metadata and the list of its members, which the training tools play (the members and the
result are loaded as trusted TorchScript: see training/lib/torchscript.py). Evaluate it with curves.py:

    python -m training.studies.ensemble runs/ensemble.pt runs/sniff-2p-tiles.pt runs/sniff-2p-mobility-128.pt
    python -m training.curves --stages --opponents heuristic,greedy --games 4000 --seeds 901,902,903 \\
        runs/ensemble.pt runs/ensemble-stages.png
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import torch
from torch import nn

from sniff_env.players.policy import PolicyError
from training.lib.config import ConfigError, run_script
from training.lib.network import export_module
from training.lib.torchscript import TRUST_HELP, load_checked


class MeanLogits(nn.Module):
    """The mean of its members' logits (observations [B, obs_size] -> logits [B, num_actions])."""

    def __init__(self, members: list[Any]) -> None:
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.stack([member(obs) for member in self.members]).mean(dim=0)


def ensemble(paths: list[str], out: str | Path, trust_code: bool = False) -> Path:
    """Write the mean of the policies at ``paths`` to ``out``; ``PolicyError`` where one cannot
    be read, is not trusted (:func:`training.lib.torchscript.load_checked`; ``trust_code`` vouches for
    them) or was made for other rules than the first (loading it under the first's rules checks
    its observation layout and action count too)."""
    if len(paths) < 2:
        raise PolicyError(f"an ensemble needs at least two policies; got {len(paths)}")
    first, meta, rules = load_checked(paths[0], trust_code=trust_code)
    members = [first, *(load_checked(path, rules, trust_code)[0] for path in paths[1:])]
    return export_module(MeanLogits(members), out, {**meta, "ensemble": [str(p) for p in paths]})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("out", help="the policy file to write (.pt)")
    parser.add_argument("policies", nargs="+", help="exported TorchScript policies, two or more")
    parser.add_argument("--trust-code", action="store_true", help=TRUST_HELP)
    opts = parser.parse_args(argv)
    if not opts.out.endswith(".pt"):
        parser.error(f"the ensemble is written as TorchScript: give a .pt path; got {opts.out!r}")
    try:
        print(f"wrote {ensemble(opts.policies, opts.out, opts.trust_code)}")
    except PolicyError as exc:  # a file that cannot join: one error line, not a traceback
        raise ConfigError(str(exc)) from None
    return 0


if __name__ == "__main__":
    run_script(main)
