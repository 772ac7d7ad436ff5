"""Reproducibility signatures in sacrebleu's ``key:value|...`` form, built from the values the scoring used."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from .version import __version__


def count_references(references: Sequence[Sequence[object]]) -> str:
    """``"N"`` when every segment has N references, ``"var"`` when counts vary.

    Example:
        >>> count_references([["a"], ["b"]]), count_references([["a"], ["b", "c"]])
        ('1', 'var')
    """
    counts = {len(refs) for refs in references}
    if len(counts) == 1:
        return str(counts.pop())
    return "var" if counts else "0"


class Signature(str):
    """The long signature string, which keeps its fields and formats itself long or short (sacrebleu's ``--short``).

    Example:
        >>> sig = signature("1", "13a", False, 1, 4, 1000, 12345)
        >>> dict(sig.fields)["bs"], sig.formatted(short=True).rsplit("|", 1)[0]
        ('1000', '#:1|c:mixed|tok:13a|n:1-4|bs:1000|rs:12345')
    """

    SHORT = {"nrefs": "#", "case": "c", "ngram": "n", "seed": "rs", "version": "v"}

    def __new__(cls, fields: tuple[tuple[str, str], ...]) -> Signature:
        self = super().__new__(cls, cls._join(fields, {}))
        self.fields = fields
        return self

    def __getnewargs__(self) -> tuple[tuple[tuple[str, str], ...]]:  # unpickled from its fields
        return (self.fields,)

    def formatted(self, short: bool = False) -> str:
        return self._join(self.fields, self.SHORT if short else {})

    @staticmethod
    def _join(fields: tuple[tuple[str, str], ...], names: dict[str, str]) -> str:
        return "|".join(f"{names.get(name, name)}:{value}" for name, value in fields)


@functools.lru_cache(maxsize=256)
def signature(
    nrefs: str, tokenizer: str, lowercase: bool, min_len: int, max_len: int, n_bootstrap: int | None = None,
    seed: int | None = None, n_randomization: int | None = None,
) -> Signature:
    """The signature of one setting; resampling adds sacrebleu's ``ar:N``, ``bs:N`` and ``seed:S`` fields.

    Example:
        >>> signature("1", "13a", False, 1, 4).rsplit("|", 1)[0]
        'nrefs:1|case:mixed|tok:13a|ngram:1-4'
        >>> "bs:1000|seed:12345" in signature("var", "custom", True, 2, 4, 1000, 12345)
        True
        >>> signature("1", "13a", False, 1, 4, 1000, 12345, n_randomization=10000).split("|")[4:-1]
        ['ar:10000', 'bs:1000', 'seed:12345']
    """
    fields = [("nrefs", nrefs), ("case", "lc" if lowercase else "mixed"), ("tok", tokenizer), ("ngram", f"{min_len}-{max_len}")]
    if n_randomization is not None:
        fields.append(("ar", str(n_randomization)))
    if n_bootstrap is not None:
        fields.append(("bs", str(n_bootstrap)))
    if n_randomization is not None or n_bootstrap is not None:
        fields.append(("seed", str(seed).lower()))
    fields.append(("version", __version__))
    return Signature(tuple(fields))
