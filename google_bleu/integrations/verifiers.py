"""verifiers: a reward function for a ``Rubric``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..scorer import GLEU
from ..tokenizers import DEFAULT_TOKENIZER, Tokenizer
from ..validation import describe
from ._text import _check_name, _text_references, completion_text

# -- verifiers ------------------------------------------------------------------------------


class VerifiersReward:
    """A reward function for ``verifiers.Rubric``: GLEU of the completion against the answer.

    The rubric calls it with keywords (``prompt``, ``completion``, ``answer``, ``state``,
    ``info``, ...); completions are strings or message lists (dicts or verifiers'
    message objects), and the last assistant message is scored. Build it with
    :func:`make_verifiers_reward`.
    """

    def __init__(self, scorer: GLEU, info_key: str | None, name: str) -> None:
        if info_key is not None and not isinstance(info_key, str):
            raise TypeError(f"info_key must be None or a str, got {describe(info_key)}")
        self.scorer = scorer
        self.info_key = info_key
        self.__name__ = _check_name(name)

    def __repr__(self) -> str:
        return f"VerifiersReward(info_key={self.info_key!r}, scorer={self.scorer!r}, name={self.__name__!r})"

    def __call__(self, completion: Any, answer: Any = None, info: Any = None, **kwargs: Any) -> float:
        if self.info_key is None:
            references = _text_references(answer, "answer")
        else:
            if not isinstance(info, Mapping) or self.info_key not in info:
                keys = sorted(info) if isinstance(info, Mapping) else describe(info)
                raise ValueError(f"the GLEU reward reads the references from info[{self.info_key!r}]; info has {keys}")
            references = _text_references(info[self.info_key], f"info[{self.info_key!r}]")
        return self.scorer.stats([completion_text(completion)], [references]).sentence_scores().tolist()[0]


def make_verifiers_reward(
    tokenizer: str | Callable[[str], list[str]] | Tokenizer = DEFAULT_TOKENIZER,
    *,
    info_key: str | None = None,
    lowercase: bool = False,
    min_len: int = 1,
    max_len: int = 4,
    name: str = "gleu",
) -> VerifiersReward:
    """A ``verifiers.Rubric`` reward function: sentence GLEU of each completion.

    Args:
        tokenizer: The GLEU tokenizer name (default ``"13a"``) or callable.
        info_key: Read the references from ``info[info_key]`` (a string or a list of
            strings) instead of ``answer`` (the default).
        lowercase: Lowercase before tokenizing.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
        name: The function's ``__name__``: the rubric's metric name.

    Example:
        >>> gleu = make_verifiers_reward()
        >>> gleu(completion=[{"role": "assistant", "content": "the cat sat"}], answer="the cat sat", state={})
        1.0
        >>> make_verifiers_reward(info_key="references")(completion="a dog", info={"references": ["one dog", "a dog"]})
        1.0
    """
    return VerifiersReward(GLEU(tokenizer, lowercase, min_len, max_len), info_key, name)
