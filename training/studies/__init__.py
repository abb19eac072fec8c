"""Studies: scripts that measure one question each (their findings are in this folder's README);
run with ``python -m training.studies.NAME``."""
