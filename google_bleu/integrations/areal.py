"""AReaL's ``reward_fn``: ``RLVRWorkflow(reward_fn="google_bleu.integrations.areal.reward_fn")``.

AReaL (1.0) calls ``reward_fn(prompt, completions, prompt_ids, completion_ids, **data)``
once per sample, where ``completions`` is the response decoded with its special tokens
(``tokenizer.decode(output_tokens)``: the stop token's text is in it) and ``data`` is the
dataset row (``answer``, ``messages``, ...). ``RLVRWorkflow`` takes the function itself or
its dotted path, and runs it through ``AsyncRewardWrapper``: in a process pool, pickled
with its arguments for every call, under a timeout (15 s by default; a call that times out
is retried and finally rewarded 0). So :class:`GleuReward` pickles as its settings only,
and this module imports nothing beyond the scorer (no torch): a fresh worker process
unpickles it with one import of ``google_bleu``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ..scorer import GLEU, scorer_from_options
from ..validation import check_references, check_text, describe
from ._text import COMMON_SPECIAL_TOKENS, special_token_strings

__all__ = ["GleuReward", "reward_fn"]


class GleuReward:
    """AReaL's ``reward_fn``: sentence GLEU of the completion against a dataset field.

    Args:
        scorer: The settings as a :class:`~google_bleu.GLEU` (default ``GLEU()``: 13a,
            cased, orders 1-4).
        reference_key: The dataset field with the reference (a string) or references (a
            list of strings); AReaL passes every field of the row as a keyword.
        special_tokens: Strings removed from the completion before scoring (AReaL decodes
            it with special tokens): a list of strings, or a Hugging Face tokenizer whose
            special tokens are read once here (only the strings are kept, so the reward
            stays small to pickle). Default: ``COMMON_SPECIAL_TOKENS`` (ChatML/Qwen,
            Llama 2 and 3, Mistral, Gemma).

    Returns (when called):
        The sentence GLEU, a float (``== GLEU(...).sentence_score(...).score``).

    Raises:
        TypeError, ValueError: Bad arguments here; at call time a row without the
            reference field (naming the fields it has) or a completion that is not text.

    Example:
        >>> reward = GleuReward()
        >>> reward("Translate: le chat", "the cat<|im_end|>", [1, 2], [3, 4, 5], answer="the cat")
        1.0
        >>> import pickle
        >>> pickle.loads(pickle.dumps(reward)) == reward
        True
    """

    __slots__ = ("scorer", "reference_key", "special_tokens")

    def __init__(
        self, scorer: GLEU | None = None, *, reference_key: str = "answer", special_tokens: Any = COMMON_SPECIAL_TOKENS
    ) -> None:
        self.scorer = scorer_from_options(scorer)
        if not isinstance(reference_key, str) or not reference_key:
            raise TypeError(f"reference_key must be a non-empty str naming a dataset field, got {describe(reference_key)}")
        self.reference_key = reference_key
        self.special_tokens = special_token_strings(special_tokens)

    def _key(self) -> tuple:
        return (self.scorer, self.reference_key, self.special_tokens)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GleuReward):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple:
        # AReaL pickles the reward with every call; a worker rebuilds each distinct one once.
        return (_rebuild, self._key())

    def __repr__(self) -> str:
        return (
            f"GleuReward({self.scorer!r}, reference_key={self.reference_key!r}, "
            f"{len(self.special_tokens)} special tokens)"
        )

    def response(self, completions: str) -> str:
        """The completion without special-token strings."""
        completions = check_text(completions, "completions (the decoded completion)")
        for token in self.special_tokens:
            completions = completions.replace(token, "")
        return completions

    def __call__(
        self,
        prompt: Any = None,
        completions: str | None = None,
        prompt_ids: Sequence[int] | None = None,
        completion_ids: Sequence[int] | None = None,
        **data: Any,
    ) -> float:
        if self.reference_key not in data:
            raise ValueError(
                f"the GLEU reward reads the references from the dataset field {self.reference_key!r}; "
                f"the row has {sorted(data)}"
            )
        references = check_references(data[self.reference_key], self.reference_key)
        return self.scorer.sentence_score(self.response(completions), references).score


@functools.lru_cache(maxsize=8)
def _rebuild(scorer: GLEU, reference_key: str, special_tokens: tuple[str, ...]) -> GleuReward:
    return GleuReward(scorer, reference_key=reference_key, special_tokens=list(special_tokens))


#: ``reward_fn="google_bleu.integrations.areal.reward_fn"``: ``GLEU()`` against the row's
#: ``answer``, common chat templates' special tokens removed.
reward_fn = GleuReward()
