"""What the adapters share: a completion's text, a segment's reference ids, special tokens, a name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..validation import describe

# Trainer objects TRL passes besides the dataset columns; left out of error messages.
TRL_OBJECTS = ("trainer_state", "log_extra", "log_metric")


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
    """The text of one completion: a string, or the last assistant message's content.

    Example:
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


def reference_ids(value: Any, where: str) -> list:
    """One segment's reference ids: a sequence of ids (one reference) or of id sequences (several).

    Example:
        >>> reference_ids([5, 6], "labels[0]"), reference_ids([[5], [6, 7]], "labels[1]")
        ([[5, 6]], [[5], [6, 7]])
    """
    if hasattr(value, "ndim") and hasattr(value, "tolist"):  # a numpy array or a torch tensor
        if value.ndim == 1:
            return [value]
        if value.ndim == 2:
            return list(value)
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        items = list(value)
        first_is_id = bool(items) and not isinstance(items[0], bool) and hasattr(items[0], "__index__")
        return [items] if not items or first_is_id else items
    raise TypeError(f"{where}: reference ids must be a list of ints or a list of such lists, got {describe(value)}")


#: Special tokens of common chat templates (ChatML/Qwen, Llama, Mistral, Gemma): the OpenRLHF and AReaL default.
COMMON_SPECIAL_TOKENS = (
    "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>",
    "<|end_header_id|>", "<|eot_id|>", "<s>", "</s>", "<bos>", "<eos>", "<pad>", "<start_of_turn>", "<end_of_turn>",
)  # fmt: skip


def special_token_strings(special_tokens: Any) -> tuple[str, ...]:
    """The special-token strings to strip, longest first: a Hugging Face tokenizer's, or a list's."""
    if hasattr(special_tokens, "all_special_tokens"):  # a Hugging Face tokenizer
        tokens = list(special_tokens.all_special_tokens)
        added = getattr(special_tokens, "added_tokens_decoder", None) or {}
        tokens += [str(token) for token in added.values() if getattr(token, "special", False)]
    elif isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, Sequence):
        raise TypeError(f"special_tokens must be a Hugging Face tokenizer or a list of special-token strings, got {describe(special_tokens)}")
    else:
        tokens = list(special_tokens)
    for token in tokens:
        if not isinstance(token, str) or not token:
            raise TypeError(f"special_tokens must hold non-empty strings, got {describe(token)}")
    return tuple(sorted(set(tokens), key=lambda token: (-len(token), token)))


def check_name(name: Any) -> str:
    """A reward's name: frameworks log it under this name (TRL: ``rewards/<name>/mean``)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {describe(name)}")
    if not name:
        raise ValueError("name must not be empty: frameworks log the reward under it")
    return name
