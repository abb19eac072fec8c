"""What every trainer's run has: its name and folder, its rules, its seed and its exported policy.

Each trainer's ``Args`` dataclass extends :class:`RunArgs` and redeclares ``exp_name`` with its
own default; :func:`training.lib.config.parse_config` fills every field, the base's included,
from ``--config FILE`` and the command line (flat keys and flags, as before). A trainer words a
shared field's ``--help`` its own way through ``FIELD_HELP`` (field name -> help text).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar


@dataclass
class RunArgs:
    """The fields every trainer shares."""

    FIELD_HELP: ClassVar[dict[str, str]] = {}
    """A trainer's own ``--help`` text for fields of this base (the field's own text otherwise)."""

    exp_name: str = field(default="run", metadata={"help": "run name (folder under out_dir)"})
    preset: str = field(default="sniff", metadata={"help": "rules preset"})
    num_players: int = field(default=2, metadata={"min": 2, "help": "players at the table"})
    rules: str = field(default="", metadata={"help": "rules overrides, e.g. 'partnership=true,scoring=threes'"})
    seed: int = field(default=1, metadata={"min": 0, "help": "seed of everything the run draws"})
    out_dir: str = field(default="runs", metadata={"help": "where runs write checkpoints and logs"})
    export: str = field(default="", metadata={"help": "export the final policy to this file"})
