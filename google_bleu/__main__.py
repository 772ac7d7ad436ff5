"""``python -m google_bleu``: the command-line tool."""

import sys

from .cli import main

sys.exit(main())
