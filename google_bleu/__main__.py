"""``python -m google_bleu``: the command-line tool."""

import sys

from .cli.main import main

sys.exit(main())
