"""MkDocs hook: the README (the metric card) becomes the site's page ``card.md``.

The README stays the one source of the card (the Space and the Hub show it); this hook
drops its YAML front matter and turns its links into the guides (``docs/x.md``) into
site links, so the card is not copied by hand.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_DOCS_LINK = re.compile(r"\]\(docs/")
_REPO_LINK = re.compile(r"\]\((CHANGELOG\.md)\)")


def card_page(readme: str) -> str:
    """The README as a page of the site.

    Example:
        >>> print(card_page("---\\ntitle: x\\n---\\n# Card\\nSee [CLI](docs/cli.md), [log](CHANGELOG.md).\\n"))
        # Card
        See [CLI](cli.md), [log](changelog.md).
        <BLANKLINE>
    """
    text = _FRONT_MATTER.sub("", readme, count=1).lstrip("\n")
    text = _DOCS_LINK.sub("](", text)
    return _REPO_LINK.sub("](changelog.md)", text)


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    root = Path(config["config_file_path"]).parent
    card = card_page((root / "README.md").read_text(encoding="utf-8"))
    files.append(File.generated(config, "card.md", content=card))
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "changelog.md", content=changelog))
    return files
