"""verifiers (0.4, ``import verifiers.v1 as vf``): GLEU as a task reward.

verifiers scores a finished rollout by awaiting each reward of its task with the arguments
the reward names among ``task`` (the task's data, a ``vf.TaskData``), ``trace`` (the
``vf.Trace``) and ``runtime``. :func:`gleu_reward` is such a reward: sentence GLEU of
``trace.last_reply`` against the task's ``answer`` field, with ``GLEU()``. For another field
or other settings, :func:`make_gleu_reward` builds one (a picklable :class:`VerifiersReward`).

Both plug into any task from an environment's TOML, without touching the taskset's code::

    [env.taskset.task.rewards]
    gleu = { fn = "google_bleu.integrations.verifiers:gleu_reward", weight = 1.0 }

and a task's own ``@vf.reward`` method can return ``await gleu_reward(self.data, trace)``.
Nothing here imports verifiers.
"""

from __future__ import annotations

from typing import Any

from ..scorer import GLEU, scorer_from_options
from ..stats import GleuStats
from ..validation import check_references, check_text, describe
from ._text import check_name

# -- verifiers ------------------------------------------------------------------------------


# A task's data is a pydantic model (``vf.TaskData``); ``vf.WireTaskData``, the form a trace
# is read back in, keeps its taskset's own fields as extra fields.
def _is_task_data(task: Any) -> bool:
    return hasattr(type(task), "model_fields") and hasattr(task, "model_fields_set")


def _fields(task: Any) -> set[str]:
    return set(type(task).model_fields) | set(getattr(task, "model_extra", None) or ())


def _set_fields(task: Any) -> list[str]:
    """The fields a task's data sets (verifiers' TaskData has many that are left unset)."""
    return sorted(set(task.model_fields_set) | set(getattr(task, "model_extra", None) or ()))


class VerifiersReward:
    """A verifiers task reward: sentence GLEU of the rollout's last reply against a field.

    verifiers (0.4) awaits a task's rewards with the arguments they name: this one takes
    ``task`` (the task's data, a ``vf.TaskData``) and ``trace`` (a ``vf.Trace``). It scores
    ``trace.last_reply`` against ``task.<field>``: a string, or a list of strings for several
    references. Build it with :func:`make_gleu_reward`.

    A picklable instance with a ``__name__``, so it can be named in an environment's TOML
    (``fn = "my_rewards.py:gleu"``, the object a module defines), awaited from a task's
    ``@vf.reward`` method, or marked itself (``gleu = vf.reward(make_gleu_reward(),
    weight=1.0)`` in the task's class body).

    Raises:
        ValueError: The task's data has no such field (the message lists the fields it sets).
        TypeError: ``task`` is not a task's data, the field holds no reference text,
            ``trace`` has no ``last_reply``, or the reply is not a string.
    """

    def __init__(self, scorer: GLEU | None = None, *, field: str = "answer", name: str = "gleu", **settings: Any) -> None:
        if not isinstance(field, str) or not field:
            raise TypeError(f"field must be a non-empty str naming a field of the task's data, got {describe(field)}")
        self.scorer = scorer_from_options(scorer, settings, caller="VerifiersReward")
        self.field = field
        self.__name__ = check_name(name)

    def __repr__(self) -> str:
        return f"VerifiersReward(scorer={self.scorer!r}, field={self.field!r}, name={self.__name__!r})"

    def references(self, task: Any) -> list[str]:
        """The references of a task: its data's ``field``, checked."""
        if not _is_task_data(task):
            hint = " (in a Task method: self.data)" if hasattr(task, "data") else ""
            raise TypeError(f"task must be the task's data, a verifiers TaskData{hint}; got {describe(task)}")
        if self.field not in _fields(task):
            raise ValueError(
                f"the GLEU reward reads the references from the task's {self.field!r} field; "
                f"the task's data ({type(task).__name__}) sets {_set_fields(task)}"
            )
        value = getattr(task, self.field)
        return check_references(value, f"task.{self.field}")

    def stats(self, task: Any, trace: Any) -> GleuStats:
        """The statistics row of the rollout's reply (for precision and recall)."""
        if not hasattr(trace, "last_reply"):
            raise TypeError(f"trace must be a verifiers Trace (it has last_reply), got {describe(trace)}")
        reply = check_text(trace.last_reply, "trace.last_reply")
        return self.scorer.stats([reply], [self.references(task)])

    def score(self, task: Any, trace: Any) -> float:
        """The reward, without awaiting: sentence GLEU of ``trace.last_reply``."""
        return self.stats(task, trace).segment_scores()[0][0]

    # Scoring one sentence takes a fraction of a millisecond, next to a rollout's seconds, so
    # it runs on verifiers' event loop rather than in a worker thread.
    async def __call__(self, task: Any, trace: Any) -> float:
        return self.score(task, trace)


def make_gleu_reward(
    scorer: GLEU | None = None, *, field: str = "answer", name: str = "gleu", **settings: Any
) -> VerifiersReward:
    """A verifiers task reward: sentence GLEU of ``trace.last_reply`` against ``task.<field>``.

    Args:
        scorer: The settings (tokenizer, lowercase, orders) as a :class:`~google_bleu.GLEU`;
            default ``GLEU()`` (13a, cased, orders 1-4).
        field: The task data's field holding the references (a string or a list of
            strings); default ``"answer"``.
        name: The reward's ``__name__``: the name verifiers records it under when the object
            itself is marked with ``vf.reward`` (from a TOML, the entry's key is the name).
        **settings: Or the settings as keywords, instead of ``scorer``.

    Example:
        >>> from google_bleu import GLEU
        >>> make_gleu_reward(GLEU(tokenizer="intl"), field="reference", name="gleu_intl")
        VerifiersReward(scorer=GLEU(tokenizer='intl', lowercase=False, min_len=1, max_len=4), field='reference', name='gleu_intl')
    """
    return VerifiersReward(scorer, field=field, name=name, **settings)


_DEFAULT = VerifiersReward()


async def gleu_reward(task: Any, trace: Any) -> float:
    """The verifiers reward with ``GLEU()``: ``trace.last_reply`` against ``task.answer``.

    Name it in an environment's TOML as ``fn = "google_bleu.integrations.verifiers:gleu_reward"``,
    or await it from a task's ``@vf.reward`` method: ``return await gleu_reward(self.data, trace)``.
    """
    return _DEFAULT.score(task, trace)
