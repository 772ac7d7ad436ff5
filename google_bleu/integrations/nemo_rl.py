"""NeMo-RL: :class:`GleuEnvironment`, registered as ``register_env("gleu",
"google_bleu.integrations.nemo_rl.GleuEnvironmentActor")`` (docs/rl-rewards.md, "NeMo-RL")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..imports import import_optional
from ..settings import SETTINGS, scorer_from_options
from ..validation import check_references, check_type, describe
from ._text import completion_text

NEMO_RL = "install NeMo-RL 0.7 from a checkout of NVIDIA-NeMo/RL v0.7.0 (it is not on PyPI)"
_interfaces = import_optional("nemo_rl.environments.interfaces", None, "google_bleu.integrations.nemo_rl", NEMO_RL)
EnvironmentInterface, EnvironmentReturn = _interfaces.EnvironmentInterface, _interfaces.EnvironmentReturn
torch = import_optional("torch", None, "google_bleu.integrations.nemo_rl", NEMO_RL)

__all__ = ["GleuEnvironment"]

_CONFIG_KEYS = ("reference_key", *SETTINGS)


class GleuEnvironment(EnvironmentInterface):
    """Sentence GLEU of each sample's last assistant message against ``metadata[i][reference_key]``
    (single turn). ``step`` also returns a message per sample (``"Environment: GLEU 0.4286"``), the
    metadata as given and the scored ``answers``. ``cfg`` is NeMo-RL's ``env.<name>``."""

    def __init__(self, cfg: Mapping[str, Any] | None = None) -> None:
        cfg = {} if cfg is None else cfg
        if not isinstance(cfg, Mapping):
            raise TypeError(f"cfg must be a mapping (NeMo-RL's env.<name> config), got {describe(cfg)}")
        unknown = sorted(str(key) for key in cfg if key not in _CONFIG_KEYS)
        if unknown:
            raise ValueError(f"unknown GleuEnvironment config keys {unknown}; expected some of {list(_CONFIG_KEYS)}")
        self.reference_key = check_type(cfg.get("reference_key", "ground_truth"), str, "reference_key", "a str")
        self.scorer = scorer_from_options(None, cfg)

    def _references(self, metadata: Any, size: int) -> list[list[str]]:
        if isinstance(metadata, (str, bytes)) or not hasattr(metadata, "__len__") or len(metadata) != size:
            raise ValueError(f"metadata must hold one entry per message log ({size}), got {describe(metadata)}")
        references = []
        for index, info in enumerate(metadata):
            if not isinstance(info, Mapping) or self.reference_key not in info:
                raise ValueError(f"metadata[{index}] must be a mapping with the field {self.reference_key!r} (reference_key), got {describe(info)}")
            references.append(check_references(info[self.reference_key], f"metadata[{index}][{self.reference_key!r}]"))
        return references

    def step(self, message_log_batch: list[list[dict[str, Any]]], metadata: list[Any]) -> EnvironmentReturn:
        """Scores every sample of the batch in one call."""
        if isinstance(message_log_batch, (str, bytes)) or not hasattr(message_log_batch, "__len__"):
            raise TypeError(f"message_log_batch must be a list of message logs, got {describe(message_log_batch)}")
        answers = [completion_text(log, index) for index, log in enumerate(message_log_batch)]
        references = self._references(metadata, len(answers))
        scores = [row[0] for row in self.scorer.checked_stats(answers, references).segment_scores()]
        size = len(answers)
        observations = [{"role": "environment", "content": f"Environment: GLEU {score:.4f}"} for score in scores]
        return EnvironmentReturn(
            observations=observations, metadata=list(metadata), next_stop_strings=[None] * size, answers=answers,
            rewards=torch.tensor(scores, dtype=torch.float32), terminateds=torch.ones(size, dtype=torch.bool),
        )

    def global_post_process_and_metrics(self, batch: Any) -> tuple[Any, dict[str, float]]:
        """The batch as it is, and ``{"gleu_mean": mean reward}``."""
        rewards = batch["rewards"]
        return batch, {"gleu_mean": float(rewards.float().mean()) if len(rewards) else 0.0}


def __getattr__(name: str) -> Any:
    # The Ray actor class NeMo-RL's create_env instantiates, made on first use (imports ray).
    if name == "GleuEnvironmentActor":
        ray = import_optional("ray", "ray", "GleuEnvironmentActor")

        actor = ray.remote(GleuEnvironment)
        globals()[name] = actor
        return actor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
