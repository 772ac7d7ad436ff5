"""verifiers (0.4, ``import verifiers.v1 as vf``): GLEU as a task reward (docs/rl-rewards.md,
"verifiers"). Nothing here imports verifiers."""

from __future__ import annotations

from typing import Any

from ..settings import GLEU
from ..validation import check_references, check_text, describe
from ._reward import Reward


class VerifiersReward(Reward):
    """A verifiers task reward, made by :func:`make_gleu_reward`."""

    reference_key = "answer"
    FIELDS = ("scorer", "reference_key")

    def __init__(self, scorer: GLEU | None = None, *, field: str = "answer", name: str = "gleu", **settings: Any) -> None:
        if not isinstance(field, str) or not field:
            raise TypeError(f"field must be a non-empty str naming a field of the task's data, got {describe(field)}")
        super().__init__(scorer, reference_key=field, name=name, **settings)

    @property
    def field(self) -> str:
        """The task data's field with the references."""
        return self.reference_key

    def score(self, task: Any, trace: Any) -> float:
        """The reward, without awaiting."""
        if not hasattr(trace, "last_reply"):
            raise TypeError(f"trace must be a verifiers Trace (it has last_reply), got {describe(trace)}")
        reply = check_text(trace.last_reply, "trace.last_reply")
        # A task's data is a pydantic model; vf.WireTaskData (a trace read back) has extra fields.
        if not (hasattr(type(task), "model_fields") and hasattr(task, "model_fields_set")):
            hint = " (in a Task method: self.data)" if hasattr(task, "data") else ""
            raise TypeError(f"task must be the task's data, a verifiers TaskData{hint}; got {describe(task)}")
        extra = set(getattr(task, "model_extra", None) or ())
        if self.field not in set(type(task).model_fields) | extra:
            raise ValueError(f"the GLEU reward reads the references from the task's {self.field!r} field; the task's data ({type(task).__name__}) sets {sorted(set(task.model_fields_set) | extra)}")
        references = check_references(getattr(task, self.field), f"task.{self.field}")
        return self.scorer.checked_stats([reply], [references]).segment_scores()[0][0]

    # A fraction of a millisecond next to a rollout's seconds: no worker thread.
    async def __call__(self, task: Any, trace: Any) -> float:
        return self.score(task, trace)


def make_gleu_reward(
    scorer: GLEU | None = None, *, field: str = "answer", name: str = "gleu", **settings: Any
) -> VerifiersReward:
    """A verifiers task reward: sentence GLEU of ``trace.last_reply`` against ``task.<field>``; ``name``
    is its ``__name__``, what verifiers records it under when marked with ``vf.reward`` (not from a TOML).

    Example:
        >>> from google_bleu import GLEU
        >>> make_gleu_reward(GLEU(tokenizer="intl"), field="reference", name="gleu_intl")
        VerifiersReward(scorer=GLEU(tokenizer='intl', lowercase=False, min_len=1, max_len=4), reference_key='reference', name='gleu_intl')
    """
    return VerifiersReward(scorer, field=field, name=name, **settings)


_DEFAULT = VerifiersReward()


async def gleu_reward(task: Any, trace: Any) -> float:
    """The verifiers reward with ``GLEU()``: ``trace.last_reply`` against ``task.answer``."""
    return _DEFAULT.score(task, trace)
