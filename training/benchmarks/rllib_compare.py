"""Deprecated: moved to :mod:`training.speed.rllib_compare`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("training.benchmarks.rllib_compare", "training.speed.rllib_compare", __name__)
