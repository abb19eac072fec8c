"""Deprecated: moved to :mod:`sniff_env.speed.rules`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("sniff_env.evaluation.speed.engine", "sniff_env.speed.rules", __name__)
