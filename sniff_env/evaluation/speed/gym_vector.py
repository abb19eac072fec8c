"""Deprecated: moved to :mod:`sniff_env.speed.gym_vector`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("sniff_env.evaluation.speed.gym_vector", "sniff_env.speed.gym_vector", __name__)
