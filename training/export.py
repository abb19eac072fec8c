"""Export a training checkpoint (``training/ppo.py``) to a self-contained TorchScript policy file.

    python training/export.py runs/sniff-2p/checkpoint.pt checkpoints/sniff-2p.pt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sniff_env.observation import Observer
from sniff_env.rules import Rules
from training.network import export_policy, load_checkpoint, make_net, policy_meta


def export_checkpoint(checkpoint: str | Path, out: str | Path) -> Path:
    """Read ``checkpoint`` and write its policy to ``out`` with the metadata players check."""
    ckpt = load_checkpoint(checkpoint)
    rules = Rules.from_dict(ckpt["rules"])
    args, state = ckpt["args"], ckpt["model"]
    observer = Observer(rules)
    if ckpt.get("observation_version") != observer.version:
        raise ValueError(
            f"{checkpoint} reads layout {ckpt.get('observation_version')!r}; this engine builds {observer.version!r}"
        )
    net = make_net(rules, args["hidden"], 0.0, args.get("arch", "mlp"))
    net.load_state_dict(state)
    trainer = "imitation" if "imitation" in ckpt else "ppo"
    return export_policy(net, out, policy_meta(rules, ckpt["global_step"], trainer, args))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("checkpoint", help="a checkpoint.pt written by training/ppo.py")
    parser.add_argument("out", help="the policy file to write")
    args = parser.parse_args(argv)
    path = export_checkpoint(args.checkpoint, args.out)
    print(f"exported {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
