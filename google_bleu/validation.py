"""The shared input checks (docs/design.md, "Validation"). Where one entry per segment is expected, any sized,
indexable sequence is accepted; strings, mappings, tables, sets and iterators are refused."""

from __future__ import annotations

import operator
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from itertools import chain, islice
from typing import Any

#: Highest n-gram order accepted: an unbounded order makes O(n**2) n-grams per segment
#: (nltk's CVE-2024-39705 class of memory blow-up), and orders beyond a few dozen have no use.
MAX_ORDER = 100
#: Most resamples or trials accepted: a million pins a p-value of 0.001 to about 3% (sacrebleu uses 1,000 and 10,000).
MAX_SAMPLES = 1_000_000


def describe(value: Any) -> str:
    """A value's type and a short repr, for error messages: ``describe([1, 2])`` is ``'list [1, 2]'``."""
    text = " ".join(repr(value).splitlines())  # a DataFrame's repr spans lines
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def integer(value: Any) -> int | None:
    """``value`` as an ``int`` when it is an integer (an ``int``, a numpy or torch integer; not a ``bool``), else None.

    Example:
        >>> integer(3), integer(True), integer(2.0), integer("2")
        (3, None, None, None)
    """
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def check_bool(value: Any, name: str) -> bool:
    """Validates a flag: exactly ``True`` or ``False`` (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {describe(value)}")
    return value


def check_orders(min_len: Any, max_len: Any) -> tuple[int, int]:
    """The n-gram orders as plain ints, ``1 <= min_len <= max_len <= MAX_ORDER``.

    Example:
        >>> check_orders(3, 2)
        Traceback (most recent call last):
        ...
        ValueError: max_len must be >= min_len, got min_len=3 and max_len=2
    """
    for name, value in (("min_len", min_len), ("max_len", max_len)):
        if integer(value) is None:
            raise TypeError(f"{name} must be an integer, got {describe(value)}")
    min_len, max_len = integer(min_len), integer(max_len)
    if min_len < 1:
        raise ValueError(f"min_len must be >= 1, got min_len={min_len}")
    if max_len < min_len:
        raise ValueError(f"max_len must be >= min_len, got min_len={min_len} and max_len={max_len}")
    if max_len > MAX_ORDER:
        raise ValueError(f"max_len must be <= {MAX_ORDER}, got max_len={max_len}")
    return min_len, max_len


def check_n_samples(value: Any, name: str = "n_samples") -> int:
    """A number of resamples or trials: an integer from 1 to :data:`MAX_SAMPLES`.

    Example:
        >>> check_n_samples(10**10, "n_bootstrap")
        Traceback (most recent call last):
        ...
        ValueError: n_bootstrap must be at most 1000000 (MAX_SAMPLES), got 10000000000
    """
    number = integer(value)
    if number is None:
        raise TypeError(f"{name} must be a positive integer, got {value!r} ({type(value).__name__})")
    if number < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if number > MAX_SAMPLES:
        raise ValueError(f"{name} must be at most {MAX_SAMPLES} (MAX_SAMPLES), got {value!r}")
    return number


def check_seed(value: Any, name: str = "seed") -> int | None:
    """Validates a seed: a non-negative integer, or ``None`` for fresh entropy."""
    if value is None:
        return None
    number = integer(value)
    if number is None:
        raise TypeError(f"{name} must be a non-negative integer or None, got {value!r} ({type(value).__name__})")
    if number < 0:
        raise ValueError(f"{name} must be a non-negative integer or None, got {value!r}")
    return number


PLAIN_TYPES = frozenset((list, tuple))
_STR = frozenset({str})


def not_a_sequence(value: Any) -> str | None:
    """Why ``value`` is refused as a sequence (see the module docstring), or ``None``."""
    if type(value) in PLAIN_TYPES:  # the common case, without the ABC machinery
        return None
    if isinstance(value, (str, bytes, bytearray)):
        return "a string"
    if isinstance(value, Mapping):
        return "a mapping (iterating it gives its keys)"
    if hasattr(value, "columns") or hasattr(value, "column_names"):
        return "a table (select one column, e.g. data['prediction'])"
    if getattr(value, "ndim", None) == 0:
        return "a 0-d array (it has no entries)"
    # numpy arrays, pandas Series and torch tensors are not registered as Sequence but index like one.
    if isinstance(value, Sequence) or (hasattr(value, "__len__") and hasattr(value, "__getitem__")):
        return None
    return "not a sized, indexable sequence (sets, generators and iterators are refused: make a list)"


def is_sequence(value: Any) -> bool:
    """Whether ``value`` is an accepted sequence, strings included (callers refuse them in their own words)."""
    return isinstance(value, (str, bytes)) or not_a_sequence(value) is None


def check_list(value: Any, name: str) -> list:
    """A sequence of items (list, tuple, array, Series, column; not a string) as a list."""
    check_sequence(value, name, "a list")
    return list(value)


def check_sequence(value: Any, name: str, what: str = "a sequence with one entry per segment") -> None:
    """Refuses a container that is not a sequence (see the module docstring).

    Example:
        >>> check_sequence({"a": 1}, "predictions")
        Traceback (most recent call last):
        ...
        TypeError: predictions must be a sequence with one entry per segment (list, tuple, numpy array, pandas Series, datasets column), got dict {'a': 1}: a mapping (iterating it gives its keys)
    """
    check_item(value, "{} must be {} (list, tuple, numpy array, pandas Series, datasets column)", name, what)


def check_item(value: Any, what: str, *where: Any) -> None:
    # A TypeError "<what.format(*where)>, got <value>: <why>" unless value is an accepted sequence.
    problem = not_a_sequence(value)
    if problem is not None:
        raise TypeError(f"{what.format(*where)}, got {describe(value)}: {problem}")


def check_strings(values: list, name: str) -> None:
    """Refuses a list of texts holding anything but ``str`` (or a subclass), naming the first."""
    if not set(map(type, values)) <= _STR:
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise TypeError(f"{name}[{i}] must be a str, got {type(value).__name__} {value!r:.40}")


def check_token_kinds(tokens: Any) -> None:
    """Refuses tokens that are torch tensors, hashed by identity (``tokens``: any iterable, a set is quickest)."""
    if any(map(_tensor_type, set(map(type, tokens)))):
        raise TypeError("tokens are torch tensors, which hash by identity (equal ids would never match): pass ids as numbers (tensor.tolist()) or score id tensors with google_bleu.ids")


def check_text(value: Any, name: str) -> str:
    """One text: a ``str`` (subclasses such as ``numpy.str_`` become plain ``str``)."""
    if type(value) is str:
        return value
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    return str.__str__(value)


def check_references(refs: Any, name: str, item: str = "prediction") -> list[str]:
    """One segment's references, a ``str`` or a non-empty sequence of ``str``, as a list of plain ``str``.

    Example:
        >>> check_references([], "target[3]")
        Traceback (most recent call last):
        ...
        ValueError: target[3] has no reference; every prediction needs at least one
    """
    if type(refs) is list and set(map(type, refs)) == _STR:
        return refs
    if isinstance(refs, str):
        return [check_text(refs, name)]
    check_item(refs, "{} must be a str or a list of str", name)
    refs = list(refs.tolist() if getattr(refs, "ndim", None) == 1 and hasattr(refs, "tolist") else refs)
    if not refs:
        raise ValueError(f"{name} has no reference; every {item} needs at least one")
    return [check_text(ref, f"{name}[{j}]") for j, ref in enumerate(refs)]


def check_type(value: Any, kind: type, name: str, what: str) -> Any:
    """``value`` when it is a ``kind``, else a ``TypeError`` naming ``name`` and ``what`` it must be."""
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {what}, got {describe(value)}")
    return value


def named_texts(hypotheses: list, references: list, names: tuple[str, str]) -> Any:
    yield from ((f"{names[0]}[{i}]", sentence) for i, sentence in enumerate(hypotheses))
    yield from ((f"{names[1]}[{i}][{j}]", ref) for i, refs in enumerate(references) for j, ref in enumerate(refs))


def _plain_text_references(predictions: list, references: Any) -> list[list[str]] | None:
    """Normalised references when every value has an exact plain type, else ``None``."""
    if not set(map(type, predictions)) <= _STR:
        return None
    kinds = set(map(type, references))
    if kinds <= _STR:
        return [[ref] for ref in references]
    if not kinds <= PLAIN_TYPES or not all(map(len, references)):
        return None
    if not set(map(type, chain.from_iterable(references))) <= _STR:
        return None
    return list(references) if kinds == {list} else list(map(list, references))


TEXTS = ("predictions", "references")


class ReferenceLayoutWarning(UserWarning):
    """References that read two ways, per segment or as sacrebleu's streams (docs/porting.md, "From sacrebleu")."""


def check_texts(
    predictions: Any, references: Any, names: tuple[str, str] = TEXTS, *, per_segment: bool = False
) -> tuple[list[str], list[list[str]]]:
    """Untokenized input as plain ``str``, references as a list per segment; ``names`` name the lists in messages
    (``"sample {}: label"`` is a template), ``per_segment``: built per segment (no layout warning).

    Example:
        >>> check_texts(["a b"], ["a c"])
        (['a b'], [['a c']])
        >>> check_texts(["a b", "c"], [["a"]])
        Traceback (most recent call last):
        ...
        ValueError: Mismatch in the number of predictions and references: predictions has 2, references has 1
        >>> check_texts(["a"], [["x", 3]], ("completions", "reference"))
        Traceback (most recent call last):
        ...
        TypeError: reference[0][1] must be a str, got int 3
    """
    first, second = names
    check_sequence(predictions, first)
    check_sequence(references, second)
    if len(predictions) != len(references):
        message = f"Mismatch in the number of {first} and {second}: {first} has {len(predictions)}, {second} has {len(references)}"
        raise ValueError(message + _streams_hint(predictions, references))
    predictions = list(predictions)
    normalized = _plain_text_references(predictions, references)
    if normalized is None:
        predictions = [check_text(prediction, _entry(first, i)) for i, prediction in enumerate(predictions)]
        normalized = [check_references(refs, _entry(second, i)) for i, refs in enumerate(references)]
    if not per_segment:
        _check_layout(normalized, second if "{}" not in second else "the references")
    return predictions, normalized


def _entry(name: str, index: int) -> str:
    return name.replace("{}", str(index)) if "{}" in name else f"{name}[{index}]"


def _streams_hint(predictions: Sequence, references: Sequence) -> str:
    # Counts that differ and look like sacrebleu's streams get a pointer to the streams door.
    try:
        if not all(not isinstance(refs, str) and len(refs) == len(predictions) for refs in references):
            return ""
    except TypeError:
        return ""
    return (
        "; references are per segment ([[refs of segment 1], [refs of segment 2], ...]), these look like "
        "sacrebleu's reference streams ([[ref1 of every segment], ...]): use GLEU.corpus_score_streams(predictions, ref_streams)"
    )


def _check_layout(references: list[list[str]], name: str) -> None:
    """Warns when ``references`` could be sacrebleu's streams, unless both readings agree or all segments' are equal."""
    n = len(references)
    if n < 2 or any(len(refs) != n for refs in references):
        return
    if all(refs == references[0] for refs in references):  # the samples of one prompt, not streams
        return
    if all(references[i][j] == references[j][i] for i in range(n) for j in range(i)):
        return
    warnings.warn(
        f"{name} holds {n} references for each of the {n} segments: read as references per segment, but also "
        f"the shape of {n} sacrebleu reference streams (a list per reference, a line per segment), which "
        "GLEU.corpus_score_streams(predictions, ref_streams) scores; "
        "warnings.simplefilter('ignore', google_bleu.ReferenceLayoutWarning) silences this",
        ReferenceLayoutWarning,
        stacklevel=_outside(),
    )


def _outside() -> int:
    """The stack level of the first caller outside this package, so that a warning points at it."""
    here, level = os.path.dirname(os.path.abspath(__file__)), 1
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def check_utf8(predictions: list[str], references: list[list[str]]) -> None:
    """Refuses text that UTF-8 cannot encode (a lone surrogate), which evaluate's Arrow cache cannot store.

    Example:
        >>> check_utf8(["fine", "bad \\ud800"], [["a"], ["b"]])
        Traceback (most recent call last):
        ...
        ValueError: predictions[1] holds a lone surrogate U+D800 at character 4, which UTF-8 cannot encode: ...
    """
    texts = chain(predictions, chain.from_iterable(references))
    try:
        # UTF-16 refuses exactly what UTF-8 refuses (surrogates), several times faster.
        while batch := list(islice(texts, 256)):
            "".join(batch).encode("utf-16-le")
        return
    except UnicodeEncodeError:
        pass
    for name, text in named_texts(predictions, references, TEXTS):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(f"{name} holds a lone surrogate U+{ord(text[error.start]):04X} at character {error.start}, which UTF-8 cannot encode: repair the text (e.g. decode it with errors='replace')") from None


def is_tensor(value: Any) -> bool:
    """Whether ``value`` is a torch tensor (without importing torch)."""
    return _tensor_type(type(value))


def _tensor_type(kind: type) -> bool:
    return kind.__module__.startswith("torch") and hasattr(kind, "dim")
