"""Deprecated: moved to :mod:`training.speed.rllib_scaling`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("training.benchmarks.rllib_scaling", "training.speed.rllib_scaling", __name__)
