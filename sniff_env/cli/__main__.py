"""``python -m sniff_env.cli``: the ``sniff`` command (as ``python -m sniff_env``)."""

import sys

from sniff_env.cli import main

if __name__ == "__main__":
    sys.exit(main())
