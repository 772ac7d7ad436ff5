"""One module per framework; each imports its framework only when used.

=====================  ==================================================================
module                 what it adapts
=====================  ==================================================================
``trl``                TRL reward functions (text and token ids)
``verl``               veRL's ``compute_score`` (file: ``google_bleu/verl_reward.py``)
``gather``             concurrent per-sample calls scored in one batch (veRL's async form)
``openrlhf``           OpenRLHF's ``reward_func`` (file: ``google_bleu/openrlhf_reward.py``)
``verifiers``          verifiers rewards
``nemo_rl``            a NeMo-RL environment (batched)
``slime``              slime's custom reward (``--custom-rm-path``; text and token ids)
``skyrl``              a SkyRL (skyrl-gym) text environment
``areal``              AReaL's ``reward_fn`` (process pool, by object or dotted path)
``roll``               a ROLL reward worker (batched token ids)
``torchmetrics``       a torchmetrics ``Metric``
``lm_eval``            lm-evaluation-harness metric and aggregation
``lighteval``          a LightEval metric
``transformers``       ``compute_metrics`` for the HF ``Trainer``
``torch_distributed``  exact corpus statistics over a ``torch.distributed`` group
``columns``            statistics columns for ``datasets``, Ray Data and Daft
=====================  ==================================================================
"""

import importlib as _importlib
from typing import Any as _Any

#: The adapter modules, imported on first attribute access (each imports its framework
#: only when used).
MODULES = (
    "areal",
    "columns",
    "gather",
    "lighteval",
    "lm_eval",
    "nemo_rl",
    "openrlhf",
    "roll",
    "skyrl",
    "slime",
    "torch_distributed",
    "torchmetrics",
    "transformers",
    "trl",
    "verifiers",
    "verl",
)


def __getattr__(name: str) -> _Any:
    if name in MODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(MODULES))
