"""Deprecated: moved to :mod:`sniff_env.speed`; this old package and its modules forward for one release."""

from sniff_env.moved import warn

warn("sniff_env.evaluation.speed", "sniff_env.speed", stacklevel=2)
