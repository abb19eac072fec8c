"""Make a shipped agent from scratch: run its chain of training configs, in order.

A chain (``configs/chains/<agent>.toml``) lists the steps that made the agent, as its card in
``checkpoints/<agent>.md`` tells: each step is a trainer (``imitation``, ``ppo``, ``sb3``,
``export``, or ``chain``: another agent's chain, such as the one a generalist starts from), its
config file and extra flags, the file it makes (written last, when the step has finished) and
the minutes the card states for it. Steps run one after the other from the
repository root; the first failure stops the chain. A step whose output already exists is
skipped (``--force`` runs it again), so a chain stopped midway goes on where it stopped. The
chains write under ``runs/``, never over the shipped files in ``checkpoints/``.

    python -m training.make_agent sniff-2p --dry-run   # the commands, in order, and the budget
    python -m training.make_agent sniff-2p
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.lib.config import ConfigError, run_script

ROOT = Path(__file__).resolve().parent.parent
CHAINS = ROOT / "configs" / "chains"
TRAINERS = {
    "imitation": "training.imitation", "ppo": "training.ppo", "sb3": "training.libraries.sb3_maskable",
    "export": "training.export", "chain": "training.make_agent",
}
"""The module each step runs (``python -m``); a ``chain`` step runs another agent's chain (its
config: that chain's file)."""
DEVICE_TRAINERS = ("imitation", "ppo", "sb3", "chain")
"""Trainers that take ``--device``."""
FORCE_TRAINERS = ("imitation", "ppo", "export")
"""Trainers that refuse to write over their outputs without ``--force``: a chain runs a step only
when its output is missing (or everything is asked again), so a step replaces what an
interrupted earlier attempt left in its folders."""
STEP_FIELDS = {"name", "trainer", "config", "args", "output", "minutes"}


class ChainError(ConfigError):
    """A chain file that is missing, or a step that names an unknown trainer or a missing config."""


@dataclass(frozen=True)
class Step:
    name: str
    trainer: str
    config: str
    args: tuple[str, ...]
    output: str
    minutes: float

    def command(self, device: str = "") -> list[str]:
        """The step's command line, run from the repository root (``python`` stands for this interpreter)."""
        cmd = ["python", "-m", TRAINERS[self.trainer]]
        if self.config:
            cmd += [self.config] if self.trainer == "chain" else ["--config", self.config]
        cmd += list(self.args)
        if self.trainer in FORCE_TRAINERS:
            cmd += ["--force"]
        if device and self.trainer in DEVICE_TRAINERS:
            cmd += ["--device", device]
        return cmd


@dataclass(frozen=True)
class Chain:
    agent: str
    card: str
    steps: tuple[Step, ...]

    @property
    def minutes(self) -> float:
        return sum(step.minutes for step in self.steps)


def chain_path(agent: str) -> Path:
    """The chain file of ``agent``: a ``.toml`` path as given, else ``configs/chains/<agent>.toml``."""
    if agent.endswith(".toml"):
        return Path(agent)
    return CHAINS / f"{agent}.toml"


def known_agents() -> list[str]:
    return sorted(p.stem for p in CHAINS.glob("*.toml"))


def _step(index: int, raw: dict[str, Any], where: Path) -> Step:
    unknown = set(raw) - STEP_FIELDS
    missing = {"name", "trainer", "output", "minutes"} - set(raw)
    if unknown or missing:
        raise ChainError(f"{where}, step {index}: unknown field(s) {sorted(unknown)} or missing {sorted(missing)}; "
                         f"a step has {sorted(STEP_FIELDS)}")
    trainer = raw["trainer"]
    if trainer not in TRAINERS:
        raise ChainError(f"{where}, step {index}: unknown trainer {trainer!r}; choose one of {', '.join(TRAINERS)}")
    config = str(raw.get("config", ""))
    if trainer != "export" and not config:
        raise ChainError(f"{where}, step {index}: a {trainer} step needs a config file")
    if config and not (ROOT / config).is_file():
        raise ChainError(f"{where}, step {index}: config file {config} does not exist")
    args = raw.get("args", [])
    minutes = raw["minutes"]
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ChainError(f"{where}, step {index}: args must be a list of strings; got {args!r}")
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or minutes < 0:
        raise ChainError(f"{where}, step {index}: minutes must be a number of minutes, 0 or more; got {minutes!r}")
    return Step(str(raw["name"]), trainer, config, tuple(args), str(raw["output"]), float(minutes))


def load_chain(agent: str) -> Chain:
    """The chain of ``agent`` (a name or a ``.toml`` path), every step checked before any runs."""
    path = chain_path(agent)
    if not path.is_file():
        raise ChainError(f"no chain {path}; the agents with a chain: {', '.join(known_agents()) or 'none'}")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ChainError(f"cannot read chain {path}: {exc}") from None
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise ChainError(f"{path} lists no [[steps]]")
    return Chain(str(data.get("agent", path.stem)), str(data.get("card", "")),
                 tuple(_step(i, raw, path) for i, raw in enumerate(steps, 1)))


def run_chain(chain: Chain, dry_run: bool = False, force: bool = False, device: str = "") -> int:
    """Run (or, with ``dry_run``, print) the steps in order; the exit status of the first that
    fails, else 0."""
    print(f"# {chain.agent}: {len(chain.steps)} steps, {chain.minutes:.1f} minutes as stated on "
          f"{chain.card or 'its card'} (on a 2-core machine)")
    for i, step in enumerate(chain.steps, 1):
        cmd = step.command(device)
        done = (ROOT / step.output).exists() and not force
        print(f"# step {i}/{len(chain.steps)}: {step.name} ({step.minutes:g} min){'; done, skipped' if done else ''}")
        print(shlex.join(cmd), flush=True)
        if dry_run or done:
            continue
        status = subprocess.run([sys.executable, *cmd[1:]], check=False, cwd=ROOT).returncode
        if status != 0:
            print(f"step {i} ({step.name}) failed with exit status {status}; the chain stops here", file=sys.stderr)
            return status
        if not (ROOT / step.output).exists():
            print(f"step {i} ({step.name}) finished without writing {step.output}; the chain stops here",
                  file=sys.stderr)
            return 1
    print(f"# total: {chain.minutes:.1f} minutes")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("agent", help=f"an agent ({', '.join(known_agents())}) or a chain file (.toml)")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, in order, and run none")
    parser.add_argument("--force", action="store_true", help="run every step, even those whose output exists")
    parser.add_argument("--device", default="", help="pass --device to every trainer (default: each trainer's auto)")
    opts = parser.parse_args(argv)
    if opts.device:
        from training.lib.device import resolve_device

        resolve_device(opts.device)  # refuse a missing device before the first step
    return run_chain(load_chain(opts.agent), opts.dry_run, opts.force, opts.device)


if __name__ == "__main__":
    run_script(main)
