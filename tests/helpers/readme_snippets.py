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
                raise ValueError(
                    f"block {match['name']!r} is marked in {blocks[match['name']][0].name} and {page.name}"
                )
            blocks[match["name"]] = (page, match["code"])
    return blocks


def readme_snippet(name: str) -> str:
    """The code of the block marked ``name`` (in the README or a guide)."""
    blocks = marked_blocks()
    if name not in blocks:
        raise ValueError(f"no page has a block marked {name!r}; marked: {sorted(blocks)}")
    return blocks[name][1]


# -- every python block, with its prelude ----------------------------------------------
# A block that is a fragment (it uses names an earlier block or the text defines) says so
# in the text and names what completes it in an HTML comment right above it (above its
# ``<!-- test: -->`` marker, if any), which the rendered page hides and the page source shows:
#
#     <!-- prelude: NAME -->            the block marked NAME runs first (with its own prelude)
#     <!-- prelude:
#     predictions = ["..."]             or: this code runs first
#     -->
#
# The suite runs every block that is not a ``>>>`` session (those are doctests) alone in a
# fresh ``python`` with its prelude.
_PYTHON = re.compile(
    r"(?:<!-- prelude:(?P<prelude>(?:(?!-->).)*?)-->\n)?(?:<!-- test: (?P<name>[\w-]+) -->\n)?"
    r"```python\n(?P<code>.*?)\n```",
    re.DOTALL,
)


class PythonBlock:
    """One ```python block of a page: where it is, its code and its prelude's code."""

    def __init__(self, page: Path, line: int, name: str | None, code: str, prelude: str) -> None:
        self.page, self.line, self.name, self.code, self.prelude = page, line, name, code, prelude

    @property
    def where(self) -> str:
        return f"{self.page.name}:{self.line}" + (f" ({self.name})" if self.name else "")

    @property
    def is_doctest(self) -> bool:
        return self.code.lstrip().startswith(">>>")

    def source(self) -> str:
        """The prelude and the block, as one script."""
        return f"{self.prelude}\n{self.code}\n" if self.prelude else f"{self.code}\n"


def python_blocks() -> list[PythonBlock]:
    """Every ```python block of the README and the guides, in page order."""
    found: list[tuple[Path, int, str | None, str, str]] = []
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = page.read_text("utf-8")
        for match in _PYTHON.finditer(text):
            line = text.count("\n", 0, match.start("code"))  # the fence's line, 1-based
            found.append((page, line, match["name"], match["code"], (match["prelude"] or "").strip("\n")))
    by_name = {name: (code, prelude) for _, _, name, code, prelude in found if name}

    def expand(prelude: str, seen: tuple[str, ...]) -> str:
        if not re.fullmatch(r"\s*[\w-]+\s*", prelude):
            return prelude  # code
        name = prelude.strip()
        if name not in by_name:
            raise ValueError(f"prelude names {name!r}, which no block is marked")
        if name in seen:
            raise ValueError(f"preludes form a cycle: {' -> '.join((*seen, name))}")
        code, its_prelude = by_name[name]
        return f"{expand(its_prelude, (*seen, name))}\n{code}" if its_prelude else code

    return [PythonBlock(page, line, name, code, expand(prelude, ())) for page, line, name, code, prelude in found]
