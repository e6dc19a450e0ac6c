"""``python -m autograph``: the same as the ``autograph`` command."""

import sys

from autograph.cli import main

sys.exit(main())
