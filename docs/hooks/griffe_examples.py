"""A griffe extension for the API reference: ``Example:`` sections read as ``Examples:``.

The docstrings use Google style, where griffe parses only ``Examples:`` into code blocks;
an ``Example:`` section would render its ``>>>`` lines as prose (and read the output's
brackets as links).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:\s*$", re.M)


class ExampleSections(griffe.Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE.sub(r"\1Examples:", obj.docstring.value)
