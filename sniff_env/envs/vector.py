"""Deprecated: moved to :mod:`sniff_env.envs.batch_env`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("sniff_env.envs.vector", "sniff_env.envs.batch_env", __name__)
