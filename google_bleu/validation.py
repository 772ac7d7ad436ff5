"""Input checks shared by every surface (core, evaluate module, CLI, app).

Each check raises ``TypeError`` for a wrong kind of value and ``ValueError`` for a
wrong value, with a message that names the argument and shows what was given.
Nothing here imports evaluate, datasets or any I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

#: Highest n-gram order accepted. nltk's ``everygrams`` with an unbounded order
#: enumerates O(n**2) tuples per segment (CVE-2024-39705 class of memory blow-up);
#: orders beyond a few dozen have no use for GLEU, so larger values are refused.
MAX_ORDER = 100


def describe(value: Any) -> str:
    """A value's type and a short repr, for error messages.

    Example:
        >>> describe([1, 2])
        'list [1, 2]'
    """
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def check_orders(min_len: Any, max_len: Any) -> tuple[int, int]:
    """Validates the n-gram orders and returns them as plain ints.

    Args:
        min_len: Lowest n-gram order, at least 1.
        max_len: Highest n-gram order, at least ``min_len`` and at most ``MAX_ORDER``.

    Returns:
        ``(min_len, max_len)``.

    Raises:
        TypeError: If an order is not an integer (``bool`` included).
        ValueError: If the orders are out of range.

    Example:
        >>> check_orders(1, 4)
        (1, 4)
        >>> check_orders(3, 2)
        Traceback (most recent call last):
        ...
        ValueError: max_len must be >= min_len, got min_len=3 and max_len=2
    """
    for name, value in (("min_len", min_len), ("max_len", max_len)):
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise TypeError(f"{name} must be an integer, got {describe(value)}")
    min_len, max_len = int(min_len), int(max_len)
    if min_len < 1:
        raise ValueError(f"min_len must be >= 1, got min_len={min_len}")
    if max_len < min_len:
        raise ValueError(f"max_len must be >= min_len, got min_len={min_len} and max_len={max_len}")
    if max_len > MAX_ORDER:
        raise ValueError(f"max_len must be <= {MAX_ORDER}, got max_len={max_len}")
    return min_len, max_len


_PLAIN_SEQUENCES = (list, tuple)
_PLAIN_TYPES = frozenset(_PLAIN_SEQUENCES)
_STR = frozenset({str})


def _is_sequence(value: Any) -> bool:
    if type(value) in _PLAIN_SEQUENCES:  # the common case, without the ABC machinery
        return True
    # numpy arrays and torch tensors are not registered as Sequence but index like one.
    return isinstance(value, Sequence) or (hasattr(value, "__len__") and hasattr(value, "__getitem__"))


def _plain_token_input(hypotheses: list, list_of_references: list) -> bool:
    """Whether the input is lists/tuples all the way down, with a reference everywhere.

    Looks at types with C-level passes (``set(map(type, ...))``); anything else goes
    through the per-item checks below, which find and name the problem.
    """
    if not set(map(type, hypotheses)) <= _PLAIN_TYPES or not set(map(type, list_of_references)) <= _PLAIN_TYPES:
        return False
    if list_of_references and not all(map(len, list_of_references)):
        return False
    return set(map(type, chain.from_iterable(list_of_references))) <= _PLAIN_TYPES


def check_tokens(hypotheses: Any, list_of_references: Any) -> tuple[list, list]:
    """Validates pre-tokenized input for the core.

    Args:
        hypotheses: One token sequence per segment.
        list_of_references: For each segment, a non-empty sequence of token sequences.

    Returns:
        ``(hypotheses, list_of_references)`` as lists (the token sequences are not copied).

    Raises:
        TypeError: If a hypothesis or reference is a bare string (it would be scored as
            characters) or not a sequence.
        ValueError: If the counts differ or a segment has no reference.

    Example:
        >>> check_tokens([["a", "b"]], [[["a"], ["b"]]])
        ([['a', 'b']], [[['a'], ['b']]])
        >>> check_tokens([["a"]], [])
        Traceback (most recent call last):
        ...
        ValueError: got 1 hypotheses but 0 reference lists
    """
    for name, value in (("hypotheses", hypotheses), ("list_of_references", list_of_references)):
        if isinstance(value, (str, bytes)) or not _is_sequence(value):
            raise TypeError(f"{name} must be a sequence with one entry per segment, got {describe(value)}")
    if len(hypotheses) != len(list_of_references):
        raise ValueError(f"got {len(hypotheses)} hypotheses but {len(list_of_references)} reference lists")
    hypotheses = list(hypotheses)
    list_of_references = list(list_of_references)
    if _plain_token_input(hypotheses, list_of_references):
        return hypotheses, list_of_references
    for i, hypothesis in enumerate(hypotheses):
        if isinstance(hypothesis, (str, bytes)):
            raise TypeError(
                f"hypothesis {i} is a {type(hypothesis).__name__}, not a token sequence; "
                f"split it first (e.g. text.split()): {describe(hypothesis)}"
            )
        if not _is_sequence(hypothesis):
            raise TypeError(f"hypothesis {i} must be a sequence of tokens, got {describe(hypothesis)}")
    for i, references in enumerate(list_of_references):
        if isinstance(references, (str, bytes)) or not _is_sequence(references):
            raise TypeError(
                f"references of segment {i} must be a sequence of token sequences, got {describe(references)}"
            )
        if len(references) == 0:
            raise ValueError(f"segment {i} has no reference; every hypothesis needs at least one")
        for j, reference in enumerate(references):
            if isinstance(reference, (str, bytes)) or not _is_sequence(reference):
                raise TypeError(
                    f"reference {j} of segment {i} must be a token sequence (e.g. text.split()), "
                    f"got {describe(reference)}"
                )
    return hypotheses, list_of_references


def _plain_text_references(predictions: list, references: Any) -> list[list[str]] | None:
    """Normalised references when every value has an exact plain type, else ``None``.

    C-level passes over types only; anything unusual goes through the per-item checks
    of :func:`check_texts`, which name the problem.
    """
    if not set(map(type, predictions)) <= _STR:
        return None
    kinds = set(map(type, references))
    if kinds <= _STR:
        return [[ref] for ref in references]
    if not kinds <= _PLAIN_TYPES or not all(map(len, references)):
        return None
    if not set(map(type, chain.from_iterable(references))) <= _STR:
        return None
    return list(references) if kinds == {list} else list(map(list, references))


def check_texts(predictions: Any, references: Any) -> tuple[list[str], list[list[str]]]:
    """Validates untokenized input and normalises references to one list per prediction.

    Args:
        predictions: One string per segment.
        references: Per segment a string (one reference) or a non-empty sequence of strings.

    Returns:
        ``(predictions, references)``; references always as a list of string lists.

    Raises:
        TypeError: If a prediction or reference is not a string.
        ValueError: If the counts differ or a segment has no reference.

    Example:
        >>> check_texts(["a b"], ["a c"])
        (['a b'], [['a c']])
        >>> check_texts(["a b", "c"], [["a"]])
        Traceback (most recent call last):
        ...
        ValueError: got 2 predictions but 1 reference lists
    """
    for name, value in (("predictions", predictions), ("references", references)):
        if isinstance(value, (str, bytes)) or not _is_sequence(value):
            raise TypeError(f"{name} must be a list with one entry per segment, got {describe(value)}")
    if len(predictions) != len(references):
        raise ValueError(f"got {len(predictions)} predictions but {len(references)} reference lists")
    predictions = list(predictions)
    fast = _plain_text_references(predictions, references)
    if fast is not None:
        return predictions, fast
    for i, prediction in enumerate(predictions):
        if not isinstance(prediction, str):
            raise TypeError(f"prediction {i} must be a str, got {describe(prediction)}")
    normalized: list[list[str]] = []
    for i, refs in enumerate(references):
        if isinstance(refs, str):
            normalized.append([refs])
            continue
        if not _is_sequence(refs):
            raise TypeError(f"references of prediction {i} must be a str or a list of str, got {describe(refs)}")
        refs = list(refs)
        if not refs:
            raise ValueError(f"prediction {i} has no reference; every prediction needs at least one")
        for j, ref in enumerate(refs):
            if not isinstance(ref, str):
                raise TypeError(f"reference {j} of prediction {i} must be a str, got {describe(ref)}")
        normalized.append(refs)
    return predictions, normalized
