"""Deprecated: moved to :mod:`sniff_env.evaluation.tournament_report`; this old name forwards for one release."""

from sniff_env.moved import forward

forward("sniff_env.evaluation.report", "sniff_env.evaluation.tournament_report", __name__)
