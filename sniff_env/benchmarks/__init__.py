"""Benchmark scripts (run with ``sniff bench NAME``); they print figures and assert nothing."""
