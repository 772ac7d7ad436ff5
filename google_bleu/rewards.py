"""GLEU as a reward function for TRL's trainers (GRPO, RLOO, online DPO, ...).

TRL calls a reward function as ``reward(prompts=..., completions=..., completion_ids=...,
**columns)`` where ``columns`` are the dataset's other columns (one value per completion,
repeated for each generation of a prompt) plus trainer objects such as ``trainer_state``.
Completions are strings, or for conversational datasets lists of messages
(``[{"role": "assistant", "content": "..."}]``). The adapter takes the references from
one named column and scores each completion with the core :func:`google_bleu.text_stats`
(sentence GLEU, as nltk's ``sentence_gleu`` on the tokenized text); it holds no
scoring logic of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .gleu import text_stats
from .tokenizers import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer
from .validation import check_orders, describe

RewardFunction = Callable[..., "list[float]"]


def _message_text(content: Any, index: int) -> str:
    if isinstance(content, str):
        return content
    if content is None:  # an assistant turn that only calls tools has no text
        return ""
    if isinstance(content, list):  # multimodal content parts: keep the text ones
        parts = [part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"]
        return "".join(parts)
    raise TypeError(f"completion {index}: message content must be a str, got {describe(content)}")


def completion_text(completion: Any, index: int = 0) -> str:
    """The text to score of one completion: a string, or the last assistant message's content.

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
        if messages and all(isinstance(message, dict) for message in messages):
            assistant = [message for message in messages if message.get("role", "assistant") == "assistant"]
            if not assistant:
                roles = [message.get("role") for message in messages]
                raise ValueError(f"completion {index} has no assistant message (roles {roles})")
            return _message_text(assistant[-1].get("content"), index)
    raise TypeError(
        f"completion {index} must be a str or a list of messages like "
        f'[{{"role": "assistant", "content": "..."}}], got {describe(completion)}'
    )


def make_gleu_reward(
    reference_key: str = "reference",
    tokenizer: str | Callable[[str], list[str]] | Tokenizer = DEFAULT_TOKENIZER,
    *,
    lowercase: bool = False,
    min_len: int = 1,
    max_len: int = 4,
    name: str = "gleu",
) -> RewardFunction:
    """A TRL reward function: sentence GLEU of each completion against its references.

    Args:
        reference_key: Dataset column with the references: per example a string or a
            list of strings (several references; counts may vary).
        tokenizer: Tokenizer name (default ``"13a"``) or callable ``str -> list[str]``.
        lowercase: Lowercase before tokenizing.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
        name: The function's ``__name__``, which TRL uses in its logs
            (``rewards/<name>/mean``).

    Returns:
        ``reward(completions, **kwargs) -> list[float]``, one score in ``[0, 1]`` per
        completion; extra keyword arguments (``prompts``, ``completion_ids``,
        ``trainer_state``, other columns) are ignored.

    Raises:
        ValueError, TypeError: At construction for bad options; at call time when the
            reference column is missing or a completion is neither text nor messages.

    Example:
        >>> reward = make_gleu_reward()
        >>> reward(["the cat sat on the mat", "a dog"], reference=["the cat ate the mat", ["a dog", "one dog"]])
        [0.3333333333333333, 1.0]
        >>> reward([[{"role": "assistant", "content": "the cat"}]], reference=["the cat"])
        [1.0]
    """
    min_len, max_len = check_orders(min_len, max_len)
    if not isinstance(reference_key, str):
        raise TypeError(f"reference_key must be a str naming a dataset column, got {describe(reference_key)}")
    tokenize = get_tokenizer(tokenizer, lowercase)  # built once; bad names fail here, not mid-training

    def reward(completions: Sequence[Any], **kwargs: Any) -> list[float]:
        if reference_key not in kwargs:
            columns = sorted(key for key in kwargs if key not in ("trainer_state", "log_extra", "log_metric"))
            raise ValueError(
                f"the GLEU reward needs the references in the dataset column {reference_key!r}; "
                f"the trainer passed {columns}"
            )
        if isinstance(completions, (str, bytes)) or not isinstance(completions, Sequence):
            raise TypeError(f"completions must be a list, got {describe(completions)}")
        texts = [completion_text(completion, i) for i, completion in enumerate(completions)]
        stats = text_stats(texts, kwargs[reference_key], tokenizer=tokenize, min_len=min_len, max_len=max_len)
        return stats.sentence_scores().tolist()

    reward.__name__ = reward.__qualname__ = name
    return reward
