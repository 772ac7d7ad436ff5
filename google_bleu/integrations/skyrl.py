"""SkyRL: :class:`GleuEnv`, a single-turn skyrl-gym text environment rewarding sentence GLEU
(docs/rl-rewards.md, "SkyRL"). Imports skyrl-gym."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ..imports import import_optional
from ..settings import GLEU, scorer_from_options
from ..validation import check_references, check_text, describe

_base = import_optional("skyrl_gym.envs.base_text_env", None, "google_bleu.integrations.skyrl", "pip install skyrl-gym")
BaseTextEnv, BaseTextEnvStepOutput = _base.BaseTextEnv, _base.BaseTextEnvStepOutput

__all__ = ["GleuEnv", "gleu_env"]


class GleuEnv(BaseTextEnv):
    """A single-turn skyrl-gym environment rewarding the action's sentence GLEU against the row's
    ``extras["reward_spec"]["ground_truth"]`` (``env_config`` is not used); ``get_metrics`` gives the
    episode's ``gleu``, ``gleu_precision`` and ``gleu_recall``."""

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
            raise ValueError(f"the GLEU environment reads the references from extras['reward_spec']['ground_truth']; the {where} {has}")
        self.references = check_references(spec["ground_truth"], "reward_spec['ground_truth']")
        self._metrics: dict[str, float] = {}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        action = check_text(action, "action (the response text)")
        self.turns += 1
        score, precision, recall = self.scorer.checked_stats([action], [self.references]).segment_scores()[0]
        self._metrics = {"gleu": score, "gleu_precision": precision, "gleu_recall": recall}
        metadata = {"gleu_precision": precision, "gleu_recall": recall}
        return BaseTextEnvStepOutput(observations=[], reward=score, done=True, metadata=metadata)

    def get_metrics(self) -> dict[str, Any]:
        return dict(self._metrics)


def gleu_env(scorer: GLEU | None = None) -> functools.partial:
    """An entry point for ``skyrl_gym.register``: a picklable partial of :class:`GleuEnv` with ``scorer``."""
    return functools.partial(GleuEnv, scorer=scorer_from_options(scorer))
