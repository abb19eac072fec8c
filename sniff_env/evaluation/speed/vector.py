"""Deprecated: moved to :mod:`sniff_env.speed.engine`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("sniff_env.evaluation.speed.vector", "sniff_env.speed.engine", __name__)
