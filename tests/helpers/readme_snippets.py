"""The marked code blocks of the README and the guides, so that tests can run them as written.

A block is marked by an HTML comment ``<!-- test: NAME -->`` on the line before its
```` ```python ```` fence; the comment does not show on the rendered page. Names are
unique across ``README.md`` and ``docs/*.md``.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

_BLOCK = re.compile(r"<!-- test: (?P<name>[\w-]+) -->\n```python\n(?P<code>.*?)\n```", re.DOTALL)


def marked_blocks() -> dict[str, tuple[Path, str]]:
    """Every marked block by name: the page it is on and its code."""
    blocks: dict[str, tuple[Path, str]] = {}
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for match in _BLOCK.finditer(page.read_text("utf-8")):
            if match["name"] in blocks:
                raise ValueError(f"block {match['name']!r} is marked in {blocks[match['name']][0].name} and {page.name}")
            blocks[match["name"]] = (page, match["code"])
    return blocks


def readme_snippet(name: str) -> str:
    """The code of the block marked ``name`` (in the README or a guide)."""
    blocks = marked_blocks()
    if name not in blocks:
        raise ValueError(f"no page has a block marked {name!r}; marked: {sorted(blocks)}")
    return blocks[name][1]
