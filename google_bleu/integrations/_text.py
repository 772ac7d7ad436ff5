"""What the adapters share: their scorer, a completion's text, a segment's references (text or
token ids), names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def _is_id(value: Any) -> bool:
    return not isinstance(value, bool) and hasattr(value, "__index__")


def _id_references(value: Any, where: str) -> list:
    """One segment's reference ids: a sequence of ids (one reference) or of id sequences.

    ``where`` names the value in the error message (e.g. ``"column 'ids', example 3"``).
    """
    if _is_array(value):
        if value.ndim == 1:
            return [value]
        if value.ndim == 2:
            return list(value)
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        items = list(value)
        if not items or _is_id(items[0]):
            return [items]  # one reference (possibly empty)
        return items
    raise TypeError(f"{where}: reference ids must be a list of ints or a list of such lists, got {describe(value)}")


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


def id_orders(scorer: GLEU) -> tuple[int, int]:
    """The n-gram orders of a checked scorer given to a token-id reward.

    Token ids are neither tokenized nor lowercased, so a scorer that sets either is refused
    rather than quietly scoring without it.

    Example:
        >>> id_orders(GLEU(max_len=2))
        (1, 2)
        >>> id_orders(GLEU(lowercase=True))
        Traceback (most recent call last):
        ...
        ValueError: token ids are scored as they are: a token-id reward takes only the orders, e.g. scorer=GLEU(min_len=1, max_len=4); got GLEU(tokenizer='13a', lowercase=True, min_len=1, max_len=4)
    """
    if scorer.tokenizer != GLEU().tokenizer:
        raise ValueError(
            "token ids are scored as they are: a token-id reward takes only the orders, "
            f"e.g. scorer=GLEU(min_len=1, max_len=4); got {scorer!r}"
        )
    return scorer.min_len, scorer.max_len
