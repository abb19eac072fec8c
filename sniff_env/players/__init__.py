"""Players: objects that choose an action from one seat's observation and information.

A player has a ``name``, ``act(observation, info) -> int`` and ``reset(seed)``. ``observation``
is the dict ``{"observation": vector, "action_mask": mask}`` an environment hands the acting
seat; ``info["info_state"]`` is that seat's :class:`~sniff_env.infostate.InfoState`. No player
reads another seat's hand or the boneyard.

:func:`load` builds one from a spec: ``random``, ``greedy``, ``heuristic``, ``search``,
``rollouts`` (compiled search with heuristic playouts), ``guided`` (that search steered by a
shipped agent's policy), the name of a shipped agent
(``sniff-2p``: see :mod:`sniff_env.players.agents`) or the path of an exported ONNX policy file (a
TorchScript file is refused: it is a program, see :mod:`.policy`); keyword options of a
built-in player may follow a colon, e.g. ``search:simulations=300``,
``search:simulations=300,budget_s=0.5`` or ``rollouts:samples=128``. An unknown option
or a value of the wrong type is a :class:`PlayerSpecError` that lists the options the player takes.
"""

from __future__ import annotations

import inspect
import types
import typing
from pathlib import Path
from typing import Any, Protocol, Union, runtime_checkable

from sniff_env.players.agents import POLICY_SUFFIXES, policy_path, shipped_agents
from sniff_env.players.policy import PolicyPlayer, load_policy, policy_actions
from sniff_env.players.registry import (
    Choose,
    compiled_builtins,
    compiled_chooser,
    has_compiled,
    reference_class,
)
from sniff_env.players.specs import (
    BUILTIN,
    LOADS_POLICY,
    PlayerSpecError,
    json_or_text,
    parse_spec,
    split_spec,
)
from sniff_env.rules import Rules


@runtime_checkable
class Player(Protocol):
    """What the environment, the demo and the tournament need of a player."""

    name: str

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        """A legal action for the seat whose turn it is."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start afresh (a new game), reseeding the player's own generator."""
        ...


def _float_or_text(raw: str) -> float | str:
    try:
        return float(raw)
    except ValueError:
        return raw


_PLAIN_TYPES: dict[type, str] = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}


def spec_options(cls: type) -> dict[str, tuple[type, ...]]:
    """The options a player class takes in a spec, each with the value types it accepts: the
    constructor's parameters of plain types (numbers, text, true/false) and, if it takes
    ``**options``, those its ``keyword_options()`` names."""
    hints = typing.get_type_hints(cls.__init__)  # type: ignore[misc]
    named: dict[str, Any] = {}
    for param in list(inspect.signature(cls.__init__).parameters.values())[1:]:  # type: ignore[misc]
        if param.kind is param.VAR_KEYWORD:
            named.update(cls.keyword_options())  # type: ignore[attr-defined]
        elif param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            named[param.name] = hints.get(param.name, Any)
    out: dict[str, tuple[type, ...]] = {}
    for name, hint in named.items():
        if typing.get_origin(hint) is typing.Annotated:  # a keyword option's type as declared (PolicyName)
            hint = typing.get_args(hint)[0]
        members = typing.get_args(hint) if isinstance(hint, types.UnionType) or typing.get_origin(hint) is Union else (hint,)
        if all(m in _PLAIN_TYPES or m is type(None) for m in members):
            out[name] = tuple(members)
    return out


def file_options(name: str) -> tuple[str, ...]:
    """The options of the built-in player ``name`` whose value is loaded as a policy: those its
    class declares of type :data:`~sniff_env.players.specs.PolicyName` (a shipped agent's name or
    a file's path)."""
    cls = reference_class(name)
    hints = typing.get_type_hints(cls.__init__, include_extras=True)  # type: ignore[misc]
    if any(p.kind is p.VAR_KEYWORD for p in inspect.signature(cls.__init__).parameters.values()):  # type: ignore[misc]
        hints = {**cls.keyword_options(), **hints}  # type: ignore[attr-defined]
    return tuple(key for key, hint in hints.items()
                 if typing.get_origin(hint) is typing.Annotated and LOADS_POLICY in hint.__metadata__)


def _fits(value: Any, allowed: tuple[type, ...]) -> bool:
    if isinstance(value, bool) or value is None:
        return type(value) in allowed
    if isinstance(value, int):
        return int in allowed or float in allowed
    return type(value) in allowed


def _spec_kwargs(spec: str, base: str, cls: type) -> dict[str, Any]:
    """The options of ``spec`` as keywords for ``cls``, each checked against its type."""
    options = spec_options(cls)
    kwargs: dict[str, Any] = {}
    for key, raw in split_spec(spec)[1]:
        if key not in options:
            raise PlayerSpecError(
                f"player {base!r} has no option {key!r} (in {spec!r}); its options are: {', '.join(options)}"
            )
        allowed, value = options[key], json_or_text(raw)
        if not _fits(value, allowed) and str in allowed:
            value = raw  # text that happens to parse as JSON, e.g. a name "123"
        elif isinstance(value, str) and float in allowed:
            value = _float_or_text(raw)  # "inf", "nan": numbers, refused by the player if out of range
        if not _fits(value, allowed):
            words = " or ".join(_PLAIN_TYPES[t] for t in allowed if t in _PLAIN_TYPES)
            raise PlayerSpecError(f"player option {key}={raw} of {base!r} must be {words}; got {value!r}")
        kwargs[key] = value
    return kwargs


def spec_kwargs(spec: str) -> dict[str, Any]:
    """The options of the built-in player ``spec`` as keywords, each checked against its type
    (no player is built: values out of range are the constructor's to refuse)."""
    base = split_spec(spec)[0]
    if base not in BUILTIN:
        raise PlayerSpecError(f"{spec!r} names no built-in player ({', '.join(BUILTIN)})")
    return _spec_kwargs(spec, base, reference_class(base))


def load(spec: str, **kwargs: Any) -> Player:
    """The player a spec names (see the module docstring); ``kwargs`` add to its options.

    Built-in players take ``seed=`` (their own generator); agents and policy files take
    ``rules=``, the rules to play (see :func:`load_fitted_policy`). An unknown option, a value of
    the wrong type or out of range raises :class:`PlayerSpecError` saying what the player accepts;
    a name that is no built-in player, no shipped agent and no policy file lists them all.
    """
    base = split_spec(spec)[0]
    if base in BUILTIN:
        cls = reference_class(base)
        opts = {**_spec_kwargs(spec, base, cls), **kwargs}
        try:
            player: Player = cls(**opts)
        except ValueError as exc:
            raise PlayerSpecError(f"player {spec!r}: {exc}") from exc
        if ":" in spec and "name" not in opts:
            player.name = spec
        return player
    agents = shipped_agents()
    path = policy_path(base)
    if path is None:
        raise PlayerSpecError(
            f"unknown player {spec!r}: use one of {', '.join(BUILTIN)}, a shipped agent "
            f"({', '.join(agents) or 'none in this installation'}) or the path of an exported policy file"
        )
    if base in agents:
        return load_fitted_policy(path, name=base, **kwargs)
    return load_fitted_policy(path, **kwargs)


def load_compiled(spec: str, engine: Any, threads: int = 0) -> Choose:
    """The compiled twin of the built-in player ``spec`` over ``engine`` (a
    :class:`~sniff_env.vector.engine.VectorEngine`): ``choose(games) -> actions``, the same moves
    as :func:`load`'s player. Players without one (:func:`~.registry.compiled_builtins` lists
    those with one) raise :class:`ValueError`. ``threads`` above 0: a search (``rollouts``)
    gives each game a stream of draws of its own and spreads the games over that many threads,
    the same moves for any count (0: one stream, on the calling thread)."""
    base, options = parse_spec(spec)
    return compiled_chooser(engine, base, options, threads)


def load_batched(spec: str, engine: Any, threads: int = 0) -> Choose:
    """The player ``spec`` choosing for many games of ``engine`` (a
    :class:`~sniff_env.vector.engine.VectorEngine`) at once: ``choose(games) -> actions``. A
    built-in plays its compiled twin (:func:`load_compiled`, ``threads`` as there); a shipped
    agent or a policy file plays the masked argmax of its network over the engine's rules, one
    forward pass for all the games asked about (a forced move is played without asking it).
    A built-in without a twin raises :class:`ValueError`, a spec that names no player
    :class:`PlayerSpecError`, a policy that cannot play these rules :class:`~.policy.PolicyError`."""
    if split_spec(spec)[0] in BUILTIN:
        return load_compiled(spec, engine, threads)
    player = load(spec, rules=engine.rules)
    if not isinstance(player, PolicyPlayer):  # pragma: no cover - every other spec is a policy file
        raise PlayerSpecError(f"{spec!r} has no batched form")
    network = player.network
    return lambda games: policy_actions(network, engine, games)


def load_fitted_policy(path: str | Path, rules: Rules | None = None, name: str | None = None,
                       **kwargs: Any) -> Player:
    """The policy player of a file, playing ``rules`` (default: its own) when they differ from
    its training rules only in what it can read (:func:`.compat.compare_rules`); other
    differences raise :class:`~.policy.PolicyError` spelling them out."""
    return load_policy(path, rules=rules, name=name, **kwargs)


__all__ = ["BUILTIN", "POLICY_SUFFIXES", "Player", "PlayerSpecError", "compiled_builtins", "file_options",
           "has_compiled", "load", "load_batched",
           "load_compiled", "load_fitted_policy", "parse_spec", "policy_path", "spec_kwargs", "spec_options"]
