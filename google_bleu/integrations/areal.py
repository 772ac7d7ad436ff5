"""AReaL's ``reward_fn``: ``RLVRWorkflow(reward_fn="google_bleu.integrations.areal.reward_fn")``
(docs/rl-rewards.md, "AReaL"). Nothing here imports torch."""

from __future__ import annotations

from typing import Any

from ..validation import check_references
from ._reward import Reward
from ._text import COMMON_SPECIAL_TOKENS

__all__ = ["GleuReward", "reward_fn"]


class GleuReward(Reward):
    """AReaL's ``reward_fn``: sentence GLEU of the completion, its special tokens removed (default
    ``COMMON_SPECIAL_TOKENS``), against the row's ``reference_key`` field (default ``"answer"``).

    Example:
        >>> reward = GleuReward()
        >>> reward("Translate: le chat", "the cat<|im_end|>", [1, 2], [3, 4, 5], answer="the cat")
        1.0
        >>> import pickle
        >>> pickle.loads(pickle.dumps(reward)) == reward
        True
    """

    reference_key = "answer"
    special_tokens = COMMON_SPECIAL_TOKENS

    def __call__(
        self, prompt: Any = None, completions: Any = None, prompt_ids: Any = None, completion_ids: Any = None, **data: Any
    ) -> float:
        references = check_references(self.lookup(data, "dataset field", "the row has"), self.reference_key)
        response = self.strip(completions, "completions (the decoded completion)")
        return self.scorer.checked_stats([response], [references]).segment_scores()[0][0]


#: ``GLEU()`` against the row's ``answer``, common chat templates' special tokens removed.
reward_fn = GleuReward()
