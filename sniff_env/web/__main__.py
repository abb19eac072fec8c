"""``python -m sniff_env.web``: the same as ``sniff serve``."""

import sys

from .commands import main

sys.exit(main())
