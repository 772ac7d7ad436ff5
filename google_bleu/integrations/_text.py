"""What the adapters share: their scorer, a completion's text, a segment's text references, names,
and the mean of sentence scores."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..scorer import GLEU
from ..validation import describe

# Trainer objects TRL passes besides the dataset columns; left out of error messages.
_TRL_OBJECTS = ("trainer_state", "log_extra", "log_metric")


# -- completions as text --------------------------------------------------------------------


def _field(message: Any, key: str) -> Any:
    # Messages are dicts (TRL, OpenAI) or pydantic models with attributes (verifiers).
    if isinstance(message, Mapping):
        return message.get(key)
    return getattr(message, key, None)


def _is_message(value: Any) -> bool:
    return isinstance(value, Mapping) or (hasattr(value, "role") and hasattr(value, "content"))


def _message_text(content: Any, index: int) -> str:
    if isinstance(content, str):
        return content
    if content is None:  # an assistant turn that only calls tools has no text
        return ""
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        # Multimodal content parts: keep the text ones.
        return "".join(_field(part, "text") or "" for part in content if _field(part, "type") == "text")
    raise TypeError(f"completion {index}: message content must be a str, got {describe(content)}")


def completion_text(completion: Any, index: int = 0) -> str:
    """The text to score of one completion: a string, or the last assistant message's content.

    Messages may be dicts or objects with ``role`` and ``content`` attributes.

    Example:
        >>> completion_text("the cat")
        'the cat'
        >>> completion_text([{"role": "assistant", "content": "the cat"}])
        'the cat'
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and not isinstance(completion, (bytes, bytearray)):
        messages = list(completion)
        if messages and all(map(_is_message, messages)):
            assistant = [message for message in messages if (_field(message, "role") or "assistant") == "assistant"]
            if not assistant:
                roles = [_field(message, "role") for message in messages]
                raise ValueError(f"completion {index} has no assistant message (roles {roles})")
            return _message_text(_field(assistant[-1], "content"), index)
    raise TypeError(
        f"completion {index} must be a str or a list of messages like "
        f'[{{"role": "assistant", "content": "..."}}], got {describe(completion)}'
    )


def _check_list(value: Any, name: str) -> list:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) and not _is_array(value):
        raise TypeError(f"{name} must be a list, got {describe(value)}")
    return list(value)


def _is_array(value: Any) -> bool:
    # numpy arrays and torch tensors, without importing either.
    return hasattr(value, "ndim") and hasattr(value, "tolist")


def _text_references(value: Any, name: str) -> list[str]:
    """One segment's references: a string, or a non-empty list (or array) of strings."""
    if isinstance(value, str):
        return [value]
    if _is_array(value) and value.ndim == 1:
        value = value.tolist()
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        refs = list(value)
        if refs and all(isinstance(ref, str) for ref in refs):
            return refs
    raise TypeError(f"{name} must be a str or a non-empty list of str, got {describe(value)}")


def _check_name(name: Any) -> str:
    # Frameworks log rewards under this name (TRL: rewards/<name>/mean).
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {describe(name)}")
    if not name:
        raise ValueError("name must not be empty: frameworks log the reward under it")
    return name




#: The four settings of a scorer; adapters take them as one ``GLEU``, never one by one.
SETTINGS = ("tokenizer", "lowercase", "min_len", "max_len")


def check_scorer(scorer: Any, options: Mapping[str, Any] | None = None) -> GLEU:
    """An adapter's settings: ``scorer`` itself (a :class:`~google_bleu.GLEU`), or ``GLEU()``.

    ``options`` are the other keywords the adapter received; a GLEU setting among them
    (``tokenizer=``, ...) is refused with the way to pass it.

    Example:
        >>> check_scorer(None) == GLEU()
        True
        >>> check_scorer(None, {"tokenizer": "char"})
        Traceback (most recent call last):
        ...
        TypeError: tokenizer is a setting of the scorer: pass scorer=GLEU(tokenizer=...)
    """
    for key in options or ():
        if key in SETTINGS:
            raise TypeError(f"{key} is a setting of the scorer: pass scorer=GLEU({key}=...)")
    if scorer is None:
        return GLEU()
    if not isinstance(scorer, GLEU):
        raise TypeError(f"scorer must be a google_bleu.GLEU (e.g. GLEU(tokenizer='char')), got {describe(scorer)}")
    return scorer


def mean_score(values: Sequence[Any], name: str) -> float:
    """The mean of sentence scores, exact and rounded once (0.0 for none): a sum correctly
    rounded and then divided would round twice.

    Each value must be a real number in ``[0, 1]`` (a sentence GLEU, precision or recall);
    NaN, a negative or a larger value is refused rather than averaged.

    Raises:
        TypeError: A value that is not a real number (``bool`` included), naming its place.
        ValueError: A value outside ``[0, 1]`` or NaN, naming its place.

    Example:
        >>> mean_score([0.1] * 10, "scores")  # the sum of ten 0.1 is 0.9999999999999999
        0.1
        >>> mean_score([0.5, float("nan")], "scores")
        Traceback (most recent call last):
        ...
        ValueError: scores[1] must be a sentence score in [0, 1], got nan
    """
    numbers = []
    for index, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name}[{index}] must be a sentence score (a float), got {describe(value)}")
        if not 0 <= value <= 1:  # NaN fails both
            raise ValueError(f"{name}[{index}] must be a sentence score in [0, 1], got {value!r}")
        numbers.append(float(value))
    if not numbers:
        return 0.0
    # The exact sum as a few floats: each fsum rounds what the ones before left out.
    parts: list[float] = []
    while True:
        part = math.fsum(numbers + [-p for p in parts])
        if part == 0:
            break
        parts.append(part)
    return float(sum(map(Fraction, parts)) / len(numbers))
