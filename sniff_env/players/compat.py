"""Which rules a trained policy can play: those it was trained for, or ones it can read.

A policy network reads the observation of :mod:`sniff_env.observation` and answers one logit
per action. It can play a game whose rules differ from its training rules only where the
difference keeps the observation's layout and the action space, and where the observation
expresses the new value in the terms the network learned, or where it does not change what a
move of the policy does. Every field of :class:`~sniff_env.rules.Rules` is one of five kinds:

==========  ==========================================================  ========================
kind        fields                                                      a difference is
==========  ==========================================================  ========================
layout      ``max_pip`` (tile set, action count), ``num_players``        refused: the network's
            (seats in the layout), ``partnership`` (score sides)         input or output changes
scaled      ``target``: the observation gives each score as              allowed, with a notice
            score / target, so the network sees how far each side
            is from winning whatever the target
shown       ``sniff``, ``double_placement``, ``scoring``, ``points``,    refused: the observation
            ``draw``, ``voluntary_draw``, ``must_play_drawn``,           flags them (the ``rules``
            ``hand_end``, ``win_during_hand``                            block), but the network
                                                                         saw one value only
unseen      ``hand_size``, ``boneyard_reserve``, ``first_hand_lead``,    refused: the network
            ``next_hand_lead``, ``lead_tile``, ``sniff_sides_open``      cannot tell them apart
moot        ``muggins_claims``: an agent claims every point it scores,   allowed, with a notice
            so its moves score as they did in training; what others
            leave unclaimed reaches it as a change of the scores
==========  ==========================================================  ========================

:func:`compare_rules` sorts the differences between two rule sets into the allowed (``scaled``
and ``moot``) and the refused ones; it is a pure function of the two rule sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from sniff_env.rules import Rules, field_names


class FieldKind(StrEnum):
    """How a policy's observation carries a rules field (see the module docstring)."""

    LAYOUT = "layout"
    SCALED = "scaled"
    SHOWN = "shown"
    UNSEEN = "unseen"
    MOOT = "moot"


FIELD_KINDS: dict[str, FieldKind] = {
    "max_pip": FieldKind.LAYOUT,
    "num_players": FieldKind.LAYOUT,
    "partnership": FieldKind.LAYOUT,
    "target": FieldKind.SCALED,
    "sniff": FieldKind.SHOWN,
    "double_placement": FieldKind.SHOWN,
    "scoring": FieldKind.SHOWN,
    "points": FieldKind.SHOWN,
    "draw": FieldKind.SHOWN,
    "voluntary_draw": FieldKind.SHOWN,
    "must_play_drawn": FieldKind.SHOWN,
    "hand_end": FieldKind.SHOWN,
    "win_during_hand": FieldKind.SHOWN,
    "hand_size": FieldKind.UNSEEN,
    "boneyard_reserve": FieldKind.UNSEEN,
    "first_hand_lead": FieldKind.UNSEEN,
    "next_hand_lead": FieldKind.UNSEEN,
    "lead_tile": FieldKind.UNSEEN,
    "sniff_sides_open": FieldKind.UNSEEN,
    "muggins_claims": FieldKind.MOOT,
}
"""The kind of every rules field but ``name`` (which is no rule: equal rules may differ in it)."""

_READS: dict[str, str] = {"target": "the scores by the target"}
"""How the observation reads each ``scaled`` field."""
_MOOT: dict[str, str] = {"muggins_claims": "it claims every point it scores, so a claim changes none of its moves"}
"""Why each ``moot`` field changes nothing the policy does."""
ALLOWED = (FieldKind.SCALED, FieldKind.MOOT)
"""The kinds of difference a policy plays under."""

_WHY: dict[FieldKind, str] = {
    FieldKind.LAYOUT: "it changes the network's input or output",
    FieldKind.SHOWN: "the network was trained on one value only",
    FieldKind.UNSEEN: "the network cannot see it",
}


class Difference(NamedTuple):
    """One rules field that differs: its name, the trained and the asked value, and its kind."""

    field: str
    trained: Any
    asked: Any
    kind: FieldKind

    def __str__(self) -> str:
        return f"{self.field} {self.trained} (trained) vs {self.asked} (asked)"


@dataclass(frozen=True)
class RulesFit:
    """How rules ``asked`` differ from the rules a policy was ``trained`` for."""

    trained: Rules
    asked: Rules
    readable: tuple[Difference, ...]
    """Differences the policy can read (``scaled`` fields) or that change none of its moves
    (``moot`` ones): it plays, with a notice."""
    refused: tuple[Difference, ...]
    """Differences it cannot play under."""

    @property
    def ok(self) -> bool:
        """Whether the policy may play the asked rules."""
        return not self.refused

    def notice(self, name: str) -> str | None:
        """One line saying which readable rules differ (None when none do)."""
        if not self.readable or self.refused:
            return None
        scaled = [d for d in self.readable if d.kind is FieldKind.SCALED]
        lines = []
        if scaled:
            trained = ", ".join(f"{d.field} {d.trained}" for d in scaled)
            asked = ", ".join(f"{d.field} {d.asked}" for d in scaled)
            reads = " and ".join(_READS[d.field] for d in scaled)
            lines.append(f"{name} was trained for {trained}; it plays {asked} here (its observation scales {reads})")
        for d in self.readable:
            if d.kind is FieldKind.MOOT:
                lines.append(f"{name} was trained with {d.field}={d.trained} and plays {d.field}={d.asked} here: "
                             f"{_MOOT[d.field]}")
        return "; ".join(lines)

    def refusal(self, name: str) -> str:
        """Why the policy cannot play the asked rules, each refused difference spelled out."""
        parts = "; ".join(f"{d} ({_WHY[d.kind]})" for d in self.refused)
        return f"{name} was trained for other rules ({self.trained.name}, {self.trained.num_players} players): {parts}"


def compare_rules(trained: Rules, asked: Rules) -> RulesFit:
    """The differences between the rules a policy was ``trained`` for and the ``asked`` ones,
    sorted into readable and refused (see the table of the module docstring)."""
    mine, theirs = trained.to_dict(), asked.to_dict()
    diffs = [
        Difference(key, mine[key], theirs[key], FIELD_KINDS[key])
        for key in field_names() if key != "name" and mine[key] != theirs[key]
    ]
    return RulesFit(
        trained, asked,
        tuple(d for d in diffs if d.kind in ALLOWED),
        tuple(d for d in diffs if d.kind not in ALLOWED),
    )


def best_fit(family: Sequence[Rules], asked: Rules) -> RulesFit:
    """The fit of ``asked`` to the closest of the rule sets a policy was trained for (a
    generalist learns several): one it may play with the fewest readable differences, else the
    one with the fewest refused differences (whose refusal then says why)."""
    if not family:
        raise ValueError("a policy's family of training rules cannot be empty")
    fits = [compare_rules(trained, asked) for trained in family]
    return min(fits, key=lambda f: (len(f.refused), len(f.readable)))


def trained_rules(meta: dict[str, Any]) -> tuple[Rules, ...]:
    """The rule sets a policy's metadata says it was trained for: its ``rules_family`` (a
    generalist's), else its ``rules``; ``TypeError``/``ValueError``/``KeyError`` when unreadable."""
    family = meta.get("rules_family")
    if family is None:
        return (Rules.from_dict(dict(meta["rules"])),)
    if not isinstance(family, list) or not family:
        raise ValueError("rules_family must be a non-empty list of rule sets")
    return tuple(Rules.from_dict(dict(r)) for r in family)


def policy_fit(player: Any, rules: Rules) -> RulesFit | None:
    """:func:`best_fit` of a loaded policy player's training rules (its ``meta``) and
    ``rules``; None for a player that is no policy."""
    meta = getattr(player, "meta", None)
    if not isinstance(meta, dict) or "rules" not in meta:
        return None
    return best_fit(trained_rules(meta), rules)


__all__ = ["FIELD_KINDS", "Difference", "FieldKind", "RulesFit", "best_fit", "compare_rules", "policy_fit",
           "trained_rules"]
