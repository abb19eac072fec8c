"""Deprecated: moved to :mod:`sniff_env.speed.players`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("sniff_env.evaluation.speed.players", "sniff_env.speed.players", __name__)
