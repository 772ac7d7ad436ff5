"""The README's marked code blocks, so that tests can run them as written.

A block is marked by an HTML comment ``<!-- test: NAME -->`` on the line before its
```` ```python ```` fence; the comment does not show on the rendered page.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_BLOCK = re.compile(r"<!-- test: (?P<name>[\w-]+) -->\n```python\n(?P<code>.*?)\n```", re.DOTALL)


def readme_snippet(name: str) -> str:
    """The code of the README block marked ``name``."""
    blocks = {match["name"]: match["code"] for match in _BLOCK.finditer((REPO / "README.md").read_text("utf-8"))}
    if name not in blocks:
        raise ValueError(f"README.md has no block marked {name!r}; it has {sorted(blocks)}")
    return blocks[name]
