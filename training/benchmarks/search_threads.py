"""Deprecated: moved to :mod:`training.speed.search_threads`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("training.benchmarks.search_threads", "training.speed.search_threads", __name__)
