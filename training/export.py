"""Export a training checkpoint, or convert an exported TorchScript policy, to a policy file.

The source is a ``checkpoint.pt`` of ``training/ppo.py`` or ``training/imitation.py`` (read as
weights only, and checked: :mod:`training.lib.checkpoint_check`) or a TorchScript policy file (a
program: loaded only if it is a shipped agent's, written by this machine's training tools, or
given with ``--trust-code``; :mod:`training.lib.torchscript`); the output is ONNX for a ``.onnx``
name (played without torch) and TorchScript otherwise. An existing output is replaced only with
``--force``.

    python -m training.export runs/sniff-2p/checkpoint.pt checkpoints/sniff-2p.onnx
    python -m training.export checkpoints/sniff-2p.pt checkpoints/sniff-2p.onnx
    python -m training.export downloaded.pt downloaded.onnx --trust-code
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from torch import nn

from sniff_env.observation import observer_for
from sniff_env.options import check_output_file
from training.lib.checkpoint_check import check_state, checked_contents
from training.lib.network import (
    CheckpointError,
    export_policy,
    is_exported_policy,
    load_checkpoint,
    load_exported,
    net_of_args,
    policy_meta,
)
from training.lib.onnx_export import ExportError
from training.lib.torchscript import TRUST_HELP


def checkpoint_net(checkpoint: str | Path) -> tuple[nn.Module, dict[str, Any]]:
    """The network of a training checkpoint and the metadata its export carries; its contents
    are checked before the network is built and its weights before they are loaded."""
    ckpt = load_checkpoint(checkpoint)
    contents = checked_contents(checkpoint, ckpt)
    observer = observer_for(contents.rules)
    if ckpt.get("observation_version") != observer.version:
        raise CheckpointError(
            f"{checkpoint} reads layout {ckpt.get('observation_version')!r}; this engine builds {observer.version!r}"
        )
    net = net_of_args(contents.rules, contents.args)
    check_state(checkpoint, net, contents.state)
    net.load_state_dict(contents.state)
    trainer = "imitation" if "imitation" in ckpt else "ppo"
    return net, policy_meta(contents.rules, contents.global_step, trainer, contents.args, family=contents.family)


def check_out(out: str | Path, force: bool = False) -> Path:
    """``out`` if the export may be written there: :class:`OutputPathError` (a ``ValueError``)
    naming ``--force`` for an existing file, or for a folder."""
    return check_output_file(out, force)


def export_checkpoint(source: str | Path, out: str | Path, trust_code: bool = False, force: bool = False) -> Path:
    """Read ``source`` (a training checkpoint or an exported TorchScript policy, trusted: see the
    module) and write its policy to ``out`` with the metadata players check."""
    check_out(out, force)
    if is_exported_policy(source):
        net, meta = load_exported(source, trust_code=trust_code)
    else:
        net, meta = checkpoint_net(source)
    return export_policy(net, out, meta)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("source", help="a checkpoint.pt written by training/ppo.py or imitation.py, or an "
                                       "exported TorchScript policy")
    parser.add_argument("out", help="the policy file to write: NAME.onnx (ONNX) or NAME.pt (TorchScript)")
    parser.add_argument("--trust-code", action="store_true", help=TRUST_HELP)
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    args = parser.parse_args(argv)
    try:
        path = export_checkpoint(args.source, args.out, args.trust_code, args.force)
    except (ValueError, OSError, ExportError) as exc:  # CheckpointError, PolicyError...: one line, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"exported {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
