"""SkyRL: a skyrl-gym text environment whose ``step`` rewards the response with GLEU.

SkyRL's generator makes one environment per trajectory,
``skyrl_gym.make(env_class, env_config=..., extras=row)``, where ``extras`` is the dataset
row's ``env_extras`` (``{"reward_spec": {"method": "rule", "ground_truth": ...}, ...}``),
calls ``init(prompt)`` and then ``step(response)``, in a thread pool. :class:`GleuEnv` is
single-turn: ``step`` returns the sentence GLEU of the response against
``reward_spec["ground_truth"]`` (a string, or a list of strings for several references)
and ends the episode. Register it once, in the process that builds the generator::

    import skyrl_gym
    skyrl_gym.register(id="gleu", entry_point="google_bleu.integrations.skyrl:GleuEnv")

and set ``env_class: gleu`` in the dataset. For other settings, register a creator that
holds its scorer: ``entry_point=gleu_env(GLEU(lowercase=True))``.

This module imports skyrl-gym when it is imported.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ..scorer import GLEU, scorer_from_options
from ..validation import check_references, check_text, describe, import_optional

_base = import_optional("skyrl_gym.envs.base_text_env", None, "google_bleu.integrations.skyrl", "pip install skyrl-gym")
BaseTextEnv, BaseTextEnvStepOutput = _base.BaseTextEnv, _base.BaseTextEnvStepOutput

__all__ = ["GleuEnv", "gleu_env"]


class GleuEnv(BaseTextEnv):
    """A single-turn skyrl-gym environment rewarding the response with sentence GLEU.

    Args:
        env_config: SkyRL's ``skyrl_gym_config.<env_class>`` (not used).
        extras: The row's ``env_extras``; ``extras["reward_spec"]["ground_truth"]`` holds
            the reference or references.
        scorer: The settings as a :class:`~google_bleu.GLEU` (default ``GLEU()``).

    ``step(action)`` returns ``BaseTextEnvStepOutput(observations=[], reward=gleu,
    done=True, metadata={"gleu_precision": ..., "gleu_recall": ...})``; the reward equals
    ``GLEU(...).sentence_score(action, references).score``. ``get_metrics`` gives the
    episode's ``gleu``, ``gleu_precision`` and ``gleu_recall`` (SkyRL averages them).

    Raises:
        ValueError, TypeError: At construction, a row without ``reward_spec.ground_truth``
            or a ground truth that is not text (naming what the row has); at ``step``, an
            action that is not a str.
    """

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None, *, scorer: GLEU | None = None):
        super().__init__()
        self.scorer = scorer_from_options(scorer)
        extras = {} if extras is None else extras
        if not isinstance(extras, Mapping):
            raise TypeError(f"extras must be the row's env_extras (a mapping), got {describe(extras)}")
        spec = extras.get("reward_spec")
        if not isinstance(spec, Mapping) or "ground_truth" not in spec:
            has = sorted(spec) if isinstance(spec, Mapping) else sorted(extras)
            where = "reward_spec has" if isinstance(spec, Mapping) else "extras have"
            raise ValueError(
                f"the GLEU environment reads the references from extras['reward_spec']['ground_truth']; the {where} {has}"
            )
        self.references = check_references(spec["ground_truth"], "reward_spec['ground_truth']")
        self._metrics: dict[str, float] = {}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        action = check_text(action, "action (the response text)")
        self.turns += 1
        result = self.scorer.sentence_score(action, self.references)
        self._metrics = {"gleu": result.score, "gleu_precision": result.precision, "gleu_recall": result.recall}
        metadata = {"gleu_precision": result.precision, "gleu_recall": result.recall}
        return BaseTextEnvStepOutput(observations=[], reward=result.score, done=True, metadata=metadata)

    def get_metrics(self) -> dict[str, Any]:
        return dict(self._metrics)


def gleu_env(scorer: GLEU | None = None) -> functools.partial:
    """An entry point for ``skyrl_gym.register`` that makes :class:`GleuEnv` with ``scorer``.

    A ``functools.partial`` (picklable): skyrl-gym calls it with ``env_config`` and
    ``extras`` for every trajectory, and the scorer, checked once here, is shared.
    """
    return functools.partial(GleuEnv, scorer=scorer_from_options(scorer))
