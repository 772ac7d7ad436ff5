"""OpenRLHF's ``reward_func(queries, prompts, labels)``: :class:`OpenRLHFReward`; the file to name in
its flags is ``google_bleu/openrlhf_reward.py`` (docs/rl-rewards.md, "OpenRLHF")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..imports import import_optional
from ..settings import GLEU
from ..validation import check_list, check_text
from ._reward import Reward
from ._text import COMMON_SPECIAL_TOKENS

__all__ = ["COMMON_SPECIAL_TOKENS", "OpenRLHFReward"]


class OpenRLHFReward(Reward):
    """OpenRLHF's ``reward_func(queries, prompts, labels)``: GLEU of each response, the query without
    its prompt and ``special_tokens`` (a Hugging Face tokenizer's, or a list), as float64 tensors
    ``{"rewards", "scores", "extra_logs": {"<name>_precision", "<name>_recall"}}``.

    Example:
        >>> from google_bleu import GLEU
        >>> reward_func = OpenRLHFReward(["<|im_end|>"], GLEU(tokenizer="13a"))
        >>> out = reward_func(["<|im_start|>user hi<|im_start|>assistant the cat sat<|im_end|>"],
        ...                   ["<|im_start|>user hi<|im_start|>assistant "], ["the cat sat"])
        >>> out["rewards"].tolist(), sorted(out["extra_logs"])
        ([1.0], ['gleu_precision', 'gleu_recall'])
    """

    FIELDS = ("special_tokens", "scorer")

    def __init__(self, special_tokens: Any, scorer: GLEU | None = None, *, name: str = "gleu", **settings: Any) -> None:
        super().__init__(scorer, special_tokens=special_tokens, name=name, **settings)

    def response(self, query: str, prompt: str, index: int = 0) -> str:
        """The response part of ``query`` without special tokens; the query must start with the prompt,
        as decoded or once special tokens are removed from both.

        Example:
            >>> OpenRLHFReward(["<|im_end|>"]).response("Q: hi A: hello<|im_end|>", "Q: hi A: ")
            'hello'
        """
        query, prompt = check_text(query, f"queries[{index}]"), check_text(prompt, f"prompts[{index}]")
        if query.startswith(prompt):
            return self.strip(query[len(prompt) :], f"queries[{index}]")
        query, prompt = self.strip(query, f"queries[{index}]"), self.strip(prompt, f"prompts[{index}]")
        if query.startswith(prompt):
            return query[len(prompt) :]
        raise ValueError(f"queries[{index}] does not start with prompts[{index}] (nor once special tokens are removed): query begins {query[:40]!r}, prompt begins {prompt[:40]!r}")

    def __call__(self, queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any) -> dict:
        torch = import_optional("torch", "openrlhf", "the OpenRLHF reward (its tensors)")
        queries, prompts, labels = check_list(queries, "queries"), check_list(prompts, "prompts"), check_list(labels, "labels")
        if not len(queries) == len(prompts) == len(labels):
            raise ValueError(f"got {len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels")
        responses = [self.response(query, prompt, i) for i, (query, prompt) in enumerate(zip(queries, prompts))]
        rows = self.rows(responses, labels, ("queries", "labels"))
        # Four rows of one tensor: rewards and scores must not share memory.
        values = torch.tensor([[row[column] for row in rows] for column in (0, 0, 1, 2)], dtype=torch.float64)
        rewards, scores, precision, recall = values.reshape(4, len(rows))
        extra = {f"{self.__name__}_precision": precision, f"{self.__name__}_recall": recall}
        return {"rewards": rewards, "scores": scores, "extra_logs": extra}
