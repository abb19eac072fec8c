"""``python -m sniff_env.play``: the same as ``sniff play``."""

import sys

from .commands import main

sys.exit(main())
