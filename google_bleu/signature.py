"""Reproducibility signatures, built from the same values the scoring used.

Format follows sacrebleu: ``key:value`` fields joined by ``|``, e.g.
``nrefs:1|case:mixed|tok:13a|ngram:1-4|version:0.1.0``.
"""

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


@functools.lru_cache(maxsize=256)
def signature(
    nrefs: str, tokenizer: str, lowercase: bool, min_len: int, max_len: int, n_bootstrap: int | None = None,
    seed: int | None = None, n_randomization: int | None = None,
) -> str:
    """The signature string for one setting.

    Resampling adds sacrebleu's fields: ``bs:N`` (bootstrap resamples), ``ar:N``
    (approximate-randomization trials) and ``seed:S`` (``seed:none`` for fresh entropy).

    Example:
        >>> signature("1", "13a", False, 1, 4).rsplit("|", 1)[0]
        'nrefs:1|case:mixed|tok:13a|ngram:1-4'
        >>> "bs:1000|seed:12345" in signature("var", "custom", True, 2, 4, 1000, 12345)
        True
        >>> signature("1", "13a", False, 1, 4, 1000, 12345, n_randomization=10000).split("|")[4:-1]
        ['ar:10000', 'bs:1000', 'seed:12345']
    """
    fields = [f"nrefs:{nrefs}", f"case:{'lc' if lowercase else 'mixed'}", f"tok:{tokenizer}", f"ngram:{min_len}-{max_len}"]
    if n_randomization is not None:
        fields.append(f"ar:{n_randomization}")
    if n_bootstrap is not None:
        fields.append(f"bs:{n_bootstrap}")
    if n_randomization is not None or n_bootstrap is not None:
        fields.append(f"seed:{str(seed).lower()}")
    fields.append(f"version:{__version__}")
    return "|".join(fields)


def short_signature(signature: str) -> str:
    """sacrebleu's ``--short`` form of a signature (``#:1|c:mixed|tok:13a|n:1-4|bs:1000|rs:12345|v:...``)."""
    short = {"nrefs": "#", "case": "c", "ngram": "n", "seed": "rs", "version": "v"}
    return "|".join(f"{short.get(name, name)}:{value}" for name, value in (f.split(":", 1) for f in signature.split("|")))
