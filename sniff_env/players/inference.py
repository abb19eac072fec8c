"""Deprecated: moved to :mod:`sniff_env.players.beliefs`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("sniff_env.players.inference", "sniff_env.players.beliefs", __name__)
