"""OpenRLHF's ``reward_func(queries, prompts, labels)``: :class:`OpenRLHFReward`.

``google_bleu/openrlhf_reward.py`` is the file to name in OpenRLHF's (0.11) flags:
``--reward.remote_url $(python -m google_bleu.openrlhf_reward) --data.label_key <column>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..scorer import GLEU, scorer_from_options
from ..validation import check_list, check_references, check_text, import_optional
from ._text import COMMON_SPECIAL_TOKENS, check_name, special_token_strings

__all__ = ["COMMON_SPECIAL_TOKENS", "OpenRLHFReward"]

# -- OpenRLHF -------------------------------------------------------------------------------

class OpenRLHFReward:
    """OpenRLHF's ``reward_func(queries, prompts, labels)``: GLEU of each response.

    OpenRLHF (0.11) loads ``reward_func`` from the file named by ``--reward.remote_url``
    and calls it once per rollout sample, ``reward_func([query], [prompt], [label])``, in a
    worker thread. Each query is the prompt followed by the response, decoded with
    ``skip_special_tokens=False``; each label is the ``--data.label_key`` column. This
    reward removes the prompt (the query must start with it, as decoded or once special
    tokens are removed from both), removes every special-token string from the rest, and
    scores that response against its label (a string, or a list of strings for several
    references).

    Args:
        special_tokens: What to strip from responses: a Hugging Face tokenizer (its
            special and added special tokens) or a list of strings (an empty list
            strips nothing). ``COMMON_SPECIAL_TOKENS`` covers common chat templates.
        scorer: The settings (tokenizer, lowercase, orders) as a :class:`~google_bleu.GLEU`;
            default ``GLEU()`` (13a, cased, orders 1-4).
        name: Prefix of the logged keys (``<name>_precision``, ``<name>_recall``).
        **settings: Or the settings as keywords, instead of ``scorer``.

    Calling it returns ``{"rewards": Tensor, "scores": Tensor, "extra_logs":
    {"<name>_precision": Tensor, "<name>_recall": Tensor}}``, float64 tensors with one value
    per query, exactly the scorer's sentence values (OpenRLHF converts them).

    Raises:
        ValueError, TypeError: Bad arguments here; at call time, lists of different
            lengths, a query that does not start with its prompt, a label that is not a
            str or list of str. (OpenRLHF logs an exception of ``reward_func`` at INFO and
            leaves the sample without a reward: call the reward once yourself to see it.)

    Example:
        >>> from google_bleu import GLEU
        >>> reward_func = OpenRLHFReward(["<|im_end|>"], GLEU(tokenizer="13a"))
        >>> out = reward_func(["<|im_start|>user hi<|im_start|>assistant the cat sat<|im_end|>"],
        ...                   ["<|im_start|>user hi<|im_start|>assistant "], ["the cat sat"])
        >>> out["rewards"].tolist(), sorted(out["extra_logs"])
        ([1.0], ['gleu_precision', 'gleu_recall'])
    """

    def __init__(self, special_tokens: Any, scorer: GLEU | None = None, *, name: str = "gleu", **settings: Any) -> None:
        self.scorer = scorer_from_options(scorer, settings, caller="OpenRLHFReward")
        self.special_tokens = special_token_strings(special_tokens)
        self.__name__ = check_name(name)

    def __repr__(self) -> str:
        return (
            f"OpenRLHFReward({len(self.special_tokens)} special tokens, scorer={self.scorer!r}, "
            f"name={self.__name__!r})"
        )

    def _strip(self, text: str) -> str:
        for token in self.special_tokens:
            text = text.replace(token, "")
        return text

    def response(self, query: str, prompt: str, index: int = 0) -> str:
        """The response part of ``query`` without special tokens.

        Example:
            >>> reward = OpenRLHFReward(["<|im_end|>"])
            >>> reward.response("Q: hi A: hello<|im_end|>", "Q: hi A: ")
            'hello'
        """
        query, prompt = check_text(query, f"queries[{index}]"), check_text(prompt, f"prompts[{index}]")
        if query.startswith(prompt):
            return self._strip(query[len(prompt) :])
        query, prompt = self._strip(query), self._strip(prompt)
        if query.startswith(prompt):
            return query[len(prompt) :]
        raise ValueError(
            f"queries[{index}] does not start with prompts[{index}] (nor once special tokens are removed): "
            f"query begins {query[:40]!r}, prompt begins {prompt[:40]!r}"
        )

    def __call__(self, queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any) -> dict:
        torch = import_optional("torch", "openrlhf", "the OpenRLHF reward (its tensors)")

        queries = check_list(queries, "queries")
        prompts = check_list(prompts, "prompts")
        labels = check_list(labels, "labels")
        if not len(queries) == len(prompts) == len(labels):
            raise ValueError(f"got {len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels")
        responses = [self.response(query, prompt, i) for i, (query, prompt) in enumerate(zip(queries, prompts))]
        references = [check_references(label, f"labels[{i}]") for i, label in enumerate(labels)]
        rows = self.scorer.stats(responses, references).segment_scores()
        # One tensor, four rows (rewards and scores must not share memory): one allocation a call.
        values = torch.tensor([[row[column] for row in rows] for column in (0, 0, 1, 2)], dtype=torch.float64)
        rewards, scores, precision, recall = values.reshape(4, len(rows))
        return {
            "rewards": rewards,
            "scores": scores,
            "extra_logs": {f"{self.__name__}_precision": precision, f"{self.__name__}_recall": recall},
        }
