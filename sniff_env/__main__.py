"""``python -m sniff_env``: the ``sniff`` command."""

from __future__ import annotations

import sys

from sniff_env.cli import main

if __name__ == "__main__":
    sys.exit(main())
