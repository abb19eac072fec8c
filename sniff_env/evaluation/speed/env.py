"""Deprecated: moved to :mod:`sniff_env.speed.env`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("sniff_env.evaluation.speed.env", "sniff_env.speed.env", __name__)
