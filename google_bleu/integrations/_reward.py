"""The one reward shape the framework adapters map their calls onto (docs/design.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..settings import GLEU, scorer_from_options
from ..validation import check_text, describe
from ._text import check_name, special_token_strings


class Reward:
    """A scorer, the field that holds the references, the special tokens to strip and a name;
    equality, hashing, pickling and the repr come from :attr:`FIELDS` and the name only.

    Args:
        scorer: A :class:`~google_bleu.GLEU` (default ``GLEU()``), or the settings as keywords.
        reference_key: The field (dataset column, row key, task field) with the references.
        special_tokens: Strings removed from each response: a list, or a Hugging Face tokenizer.
        name: The reward's ``__name__``, under which frameworks log it.
    """

    reference_key = "reference"
    special_tokens: Any = ()
    FIELDS: tuple[str, ...] = ("scorer", "reference_key", "special_tokens")

    def __init__(
        self, scorer: GLEU | None = None, *, reference_key: str | None = None, special_tokens: Any = None,
        name: str = "gleu", **settings: Any,
    ) -> None:
        self.scorer = scorer_from_options(scorer, settings, caller=type(self).__name__)
        key = type(self).reference_key if reference_key is None else reference_key
        if not isinstance(key, str) or not key:
            raise TypeError(f"reference_key must be a non-empty str naming a field, got {describe(key)}")
        self.reference_key = key
        tokens = type(self).special_tokens if special_tokens is None else special_tokens
        self.special_tokens = special_token_strings(tokens)
        self.__name__ = check_name(name)
        self._ready()

    def _ready(self) -> None:
        """State derived from the fields, made again when unpickled."""

    def _fields(self) -> tuple[str, ...]:
        return (*self.FIELDS, "__name__")

    def _values(self) -> tuple:
        return tuple(getattr(self, field) for field in self._fields())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reward):
            return NotImplemented
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __getstate__(self) -> dict[str, Any]:
        return dict(zip(self._fields(), self._values()))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._ready()

    def __repr__(self) -> str:
        def shown(field: str, value: Any) -> str:
            return f"{len(value)} special tokens" if field == "special_tokens" else f"{field.strip('_')}={value!r}"

        return f"{type(self).__name__}({', '.join(shown(f, v) for f, v in zip(self._fields(), self._values()))})"

    def strip(self, text: Any, where: str) -> str:
        """``text``, checked, without the special tokens."""
        text = check_text(text, where)
        for token in self.special_tokens:
            text = text.replace(token, "")
        return text

    def lookup(self, fields: Mapping[str, Any], source: str, holder: str, ignored: Iterable[str] = ()) -> Any:
        """The value of :attr:`reference_key` in ``fields``, else a ``ValueError`` naming ``source``."""
        if self.reference_key not in fields:
            has = sorted(key for key in fields if key not in ignored)
            raise ValueError(f"the GLEU reward reads the references from the {source} {self.reference_key!r}; {holder} {has}")
        return fields[self.reference_key]

    def rows(self, responses: Sequence[str], references: Sequence[Any], names: tuple[str, str]) -> list[tuple[float, float, float]]:
        """Sentence ``(score, precision, recall)`` of each response; ``names`` name the lists in messages."""
        return self.scorer.stats(responses, references, names).segment_scores()
