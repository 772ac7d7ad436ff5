"""MkDocs hook: the line counts of the layout table in ``design.md``, counted at build time.

The table names each room; its ``LINES:<room>`` cells become the room's current number
of lines of Python, so the page never shows a stale count.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_CELL = re.compile(r"LINES:([a-z_]+)")
CORE = "core"


def room_lines(package: Path) -> dict[str, int]:
    """Lines of Python per room: ``core`` (the flat modules evaluate copies, with the two
    config files and the package's entry points) and each subpackage.

    Example:
        >>> counts = room_lines(Path(__file__).resolve().parents[2] / "google_bleu")
        >>> counts["core"] > 1000 and counts["ids"] > 500
        True
    """
    counts: dict[str, int] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package).parts
        room = CORE if len(parts) == 1 else parts[0]
        counts[room] = counts.get(room, 0) + len(path.read_text(encoding="utf-8").splitlines())
    return counts


def fill(markdown: str, counts: dict[str, int]) -> str:
    """``markdown`` with each ``LINES:<room>`` replaced by that room's count.

    Example:
        >>> fill("| ids | LINES:ids |", {"ids": 1234})
        '| ids | 1,234 |'
    """
    return _CELL.sub(lambda match: f"{counts.get(match.group(1), 0):,}", markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if "LINES:" not in markdown:
        return markdown
    package = Path(config["config_file_path"]).parent / "google_bleu"
    return fill(markdown, room_lines(package))
