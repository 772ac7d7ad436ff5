"""``python -m google_bleu``: the command-line tool."""

import sys

from _google_bleu_cli import main

sys.exit(main())
