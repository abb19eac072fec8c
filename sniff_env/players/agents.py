"""The shipped agents: trained policies installed with the package and named like players.

Each agent is an ONNX policy file (played through onnxruntime, no torch) with two cards beside
it in the package's ``checkpoints`` folder: ``NAME.json``, read here (the rules it was trained
for as a preset, a player count and rule overrides; its training budget; its measured strength;
a generalist's card adds ``family``, the presets it plays, its own preset first; a checkout's
cards also record ``torchscript_sha256``, the hash of the TorchScript file ``NAME.pt`` the
training tools go on from, which they trust by it) and ``NAME.md``, the full story for people. ``sniff_env.players.load("sniff-2p")``,
``sniff play --opponent sniff-2p`` and ``sniff eval sniff-2p heuristic`` find an agent by name
from any directory; ``sniff agents`` lists them.

In a checkout of the repository the folder is the top-level ``checkpoints/``; an installed
package carries the same files (the ONNX files and the cards only) as ``sniff_env/checkpoints``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cmp_to_key, lru_cache
from pathlib import Path
from typing import Any

from sniff_env.players.compat import RulesFit, best_fit
from sniff_env.players.policy import PolicyError
from sniff_env.players.specs import PlayerSpecError
from sniff_env.presets import make_rules
from sniff_env.rules import Rules

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # sniff_env
AGENT_FOLDERS = (PACKAGE_DIR / "checkpoints", PACKAGE_DIR.parent / "checkpoints")
"""Where the agents are looked for: the installed package's data, then a checkout's folder."""
CARD_KEYS = ("name", "file", "summary", "preset", "players", "rules", "training", "strength")


@dataclass(frozen=True)
class Strength:
    """One measured result of an agent: its win rate against a player over duplicate games."""

    against: str
    games: int
    win_rate: float
    ci95: tuple[float, float]
    command: str
    preset: str = ""
    """The preset played, where the agent plays several (a generalist)."""

    def __str__(self) -> str:
        lo, hi = self.ci95
        where = f" at {self.preset}" if self.preset else ""
        return f"{self.win_rate:.1%} [{lo:.1%}, {hi:.1%}] vs {self.against}{where}, {self.games:,} games"


@dataclass(frozen=True)
class Agent:
    """A shipped agent: its name, policy file, rules and card."""

    name: str
    path: Path
    summary: str
    rules: Rules
    rule_args: str
    """The rules as ``sniff`` options, e.g. ``--preset sniff --players 4 --rule partnership=true``."""
    training: str
    strength: tuple[Strength, ...]
    family: tuple[Rules, ...] = ()
    """A generalist's rule sets (its card's ``family`` of presets, ``rules`` first); empty for an
    agent trained for one rule set."""

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def generalist(self) -> bool:
        """Whether the agent was trained for several rule sets."""
        return len(self.family) > 1

    @property
    def card_path(self) -> Path:
        """The card for people (Markdown)."""
        return self.path.with_suffix(".md")

    def fit(self, rules: Rules) -> RulesFit:
        """How ``rules`` differ from the closest of the agent's rule sets (see
        :func:`sniff_env.players.compat.best_fit`)."""
        return best_fit(self.family or (self.rules,), rules)


def agents_folder() -> Path | None:
    """The folder of the shipped agents, or None when this installation has none."""
    return next((folder for folder in AGENT_FOLDERS if any(folder.glob("*.json"))), None)


def read_card(path: Path) -> Agent:
    """The agent a JSON card describes, or :class:`PolicyError` saying what is wrong with it."""
    try:
        card: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PolicyError(f"agent card {str(path)!r} cannot be read: {exc}") from exc
    if not isinstance(card, dict) or any(k not in card for k in CARD_KEYS):
        raise PolicyError(f"agent card {str(path)!r} must be a JSON object with keys {', '.join(CARD_KEYS)}")
    try:
        rules = make_rules(card["preset"], card["players"], **card["rules"])
        family = tuple(make_rules(preset, card["players"], **card["rules"]) for preset in card.get("family", ()))
        if family and family[0] != rules:
            raise ValueError(f"its family of presets must begin with its preset {card['preset']!r}")
        strength = tuple(
            Strength(s["against"], int(s["games"]), float(s["win_rate"]), (float(s["ci95"][0]), float(s["ci95"][1])),
                     s["command"], str(s.get("preset", "")))
            for s in card["strength"]
        )
    except (TypeError, KeyError, IndexError, ValueError) as exc:
        raise PolicyError(f"agent card {str(path)!r} has a bad value: {exc!r}") from exc
    overrides = "".join(f" --rule {k}={json.dumps(v)}" for k, v in card["rules"].items())
    presets = "{" + ",".join(card["family"]) + "}" if family else card["preset"]
    return Agent(
        card["name"], path.parent / card["file"], card["summary"], rules,
        f"--preset {presets} --players {card['players']}{overrides}", card["training"], strength, family,
    )


@lru_cache(maxsize=1)
def shipped_agents() -> dict[str, Agent]:
    """Every shipped agent by name (empty when this installation has none)."""
    folder = agents_folder()
    if folder is None:
        return {}
    agents = [read_card(p) for p in sorted(folder.glob("*.json"))]
    return {a.name: a for a in agents}


def agent_named(name: str) -> Agent:
    """The shipped agent ``name``, or :class:`PlayerSpecError` listing the installed ones."""
    agents = shipped_agents()
    if name not in agents:
        installed = ", ".join(agents) or "none in this installation"
        raise PlayerSpecError(f"no shipped agent is named {name!r}; installed agents: {installed}")
    return agents[name]


def stated_rate(agent: Agent, preset: str, against: str) -> float:
    """The agent's win rate against ``against`` at ``preset`` as its card states it (-1 where none)."""
    rates = [s.win_rate for s in agent.strength if s.against == against and (s.preset or agent.rules.name) == preset]
    return max(rates, default=-1.0)


def greedy_rate(agent: Agent, preset: str) -> float:
    """The agent's win rate against greedy at ``preset`` as its card states it (-1 where none)."""
    return stated_rate(agent, preset, "greedy")


STRENGTH_OPPONENTS = ("heuristic", "greedy")
"""The opponents two cards' rates are compared against, the stronger first."""


def _stronger_first(one: tuple[Agent, RulesFit], other: tuple[Agent, RulesFit]) -> int:
    """Order two agents that fit the same rules: the one trained for exactly them first; then the
    higher rate against the strongest opponent both cards state one against at that preset
    (heuristic, else greedy); then one trained for these rules alone before a generalist."""
    (a, fit_a), (b, fit_b) = one, other
    if len(fit_a.readable) != len(fit_b.readable):
        return len(fit_a.readable) - len(fit_b.readable)

    def rates(against: str) -> tuple[float, float]:
        return stated_rate(a, fit_a.trained.name, against), stated_rate(b, fit_b.trained.name, against)

    both = [o for o in STRENGTH_OPPONENTS if min(rates(o)) >= 0]
    rate_a, rate_b = rates(both[0] if both else STRENGTH_OPPONENTS[-1])
    if rate_a != rate_b:
        return -1 if rate_a > rate_b else 1
    return int(a.generalist) - int(b.generalist)


def agent_for(rules: Rules) -> tuple[Agent, RulesFit] | None:
    """The shipped agent that plays ``rules``: among those trained for exactly them (else those
    whose rules differ only in what they can read, the target), the strongest by their cards (the
    higher win rate at that preset against heuristic where both cards state one, else against
    greedy), an agent trained for these rules alone before a generalist where the cards tie; None
    when no agent fits."""
    fits = [(a, a.fit(rules)) for a in shipped_agents().values()]
    playable = sorted(((a, f) for a, f in fits if f.ok), key=cmp_to_key(_stronger_first))
    return playable[0] if playable else None


def default_opponent(rules: Rules) -> tuple[str, str]:
    """The opponent that ``sniff play`` and ``sniff serve`` seat by default for ``rules``, and a
    line saying why: the shipped agent that fits (:func:`agent_for`), else ``heuristic``."""
    found = agent_for(rules)
    table = f"{rules.name} with {rules.num_players} players" + (" in partnerships" if rules.partnership else "")
    if found is None:
        return "heuristic", f"heuristic plays: no shipped agent was trained for {table} (sniff agents lists them)"
    agent, fit = found
    why = (f"the strongest shipped agent for {table} (trained for {len(agent.family)} presets, this one among them)"
           if agent.generalist else f"the shipped agent trained for {table}")
    return agent.name, fit.notice(agent.name) or f"{agent.name} plays: {why}"


def print_agents(console: Any = None) -> None:
    """The shipped agents and their cards, as a rich table."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    agents = shipped_agents()
    if not agents:
        console.print("no shipped agents in this installation")
        return
    table = Table(title="shipped agents (play one: sniff play --opponent NAME, with its rules)")
    table.add_column("agent", min_width=max(len(name) for name in agents))
    for col in ("rules", "training", "measured strength"):
        table.add_column(col)
    for a in agents.values():
        which = f"{len(a.family)} presets" if a.generalist else a.rules.name
        table.add_row(
            f"[bold]{a.name}[/bold]\n{a.summary}", f"{which}, {a.num_players} players\n{a.rule_args}",
            a.training, "\n".join(str(s) for s in a.strength),
        )
    console.print(table)
    console.print(f"cards: {agents_folder()}/NAME.md; any target plays, with a notice (scores are read as a share of it)")


POLICY_SUFFIXES = (".onnx", ".pt", ".ts", ".jit")
"""File names that are policy files whether or not they exist (a missing one is a PolicyError)."""


def policy_path(name: str) -> Path | None:
    """The policy file ``name`` stands for: a shipped agent's, else ``name`` itself where it has a
    policy file's suffix or exists; None when it is neither."""
    agents = shipped_agents()
    if name in agents:
        return agents[name].path
    path = Path(name)
    return path if path.suffix in POLICY_SUFFIXES or path.exists() else None


__all__ = ["POLICY_SUFFIXES", "Agent", "Strength", "agent_for", "agent_named", "agents_folder", "default_opponent", "greedy_rate",
           "policy_path", "print_agents", "shipped_agents", "stated_rate"]
