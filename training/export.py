"""Export a training checkpoint, or convert an exported TorchScript policy, to a policy file.

The source is a ``checkpoint.pt`` of ``training/ppo.py`` or ``training/imitation.py`` (read as
weights only) or a TorchScript policy file; the output is ONNX for a ``.onnx`` name (played
without torch) and TorchScript otherwise.

    python training/export.py runs/sniff-2p/checkpoint.pt checkpoints/sniff-2p.onnx
    python training/export.py checkpoints/sniff-2p.pt checkpoints/sniff-2p.onnx
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from torch import nn

from sniff_env.observation import Observer
from sniff_env.rules import Rules
from training.network import (
    export_policy,
    is_exported_policy,
    load_checkpoint,
    load_exported,
    net_of_args,
    policy_meta,
)


def checkpoint_net(checkpoint: str | Path) -> tuple[nn.Module, dict[str, Any]]:
    """The network of a training checkpoint and the metadata its export carries."""
    ckpt = load_checkpoint(checkpoint)
    rules = Rules.from_dict(ckpt["rules"])
    args, state = ckpt["args"], ckpt["model"]
    observer = Observer(rules)
    if ckpt.get("observation_version") != observer.version:
        raise ValueError(
            f"{checkpoint} reads layout {ckpt.get('observation_version')!r}; this engine builds {observer.version!r}"
        )
    net = net_of_args(rules, args)
    net.load_state_dict(state)
    trainer = "imitation" if "imitation" in ckpt else "ppo"
    family = [Rules.from_dict(r) for r in ckpt.get("rules_family", [])]  # a generalist's rule sets
    return net, policy_meta(rules, ckpt["global_step"], trainer, args, family=family)


def export_checkpoint(source: str | Path, out: str | Path) -> Path:
    """Read ``source`` (a training checkpoint or an exported TorchScript policy) and write its
    policy to ``out`` with the metadata players check."""
    net, meta = load_exported(source) if is_exported_policy(source) else checkpoint_net(source)
    return export_policy(net, out, meta)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("source", help="a checkpoint.pt written by training/ppo.py or imitation.py, or an "
                                       "exported TorchScript policy")
    parser.add_argument("out", help="the policy file to write: NAME.onnx (ONNX) or NAME.pt (TorchScript)")
    args = parser.parse_args(argv)
    try:
        path = export_checkpoint(args.source, args.out)
    except ValueError as exc:  # CheckpointError, PolicyError: say what is wrong, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"exported {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
