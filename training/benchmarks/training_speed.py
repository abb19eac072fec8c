"""Deprecated: moved to :mod:`training.speed.training_speed`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("training.benchmarks.training_speed", "training.speed.training_speed", __name__)
