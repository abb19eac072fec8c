"""Deprecated: moved to :mod:`training.speed`; this old package and its modules forward for one release."""

from sniff_env.moved import warn

warn("training.benchmarks", "training.speed", stacklevel=2)
