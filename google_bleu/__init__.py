"""google-bleu: exact, fast Google-BLEU (GLEU, Wu et al. 2016) for MT and LLM evaluation.

``import google_bleu`` is light: it needs numpy only. The evaluate metric class
(``google_bleu.GoogleBleu``) and :func:`load` import evaluate when first used.

Example:
    >>> import google_bleu
    >>> google_bleu.corpus_gleu([["the cat ate the mat".split()]], ["the cat sat on the mat".split()])
    0.3333333333333333
"""

from __future__ import annotations

import os
from typing import Any

from .explain import Explanation, explain
from .gleu import corpus_gleu, gleu_stats, sentence_gleu, text_stats
from .scorer import GLEU, GleuScore
from .signature import signature
from .significance import PairedResult, bootstrap_ci, bootstrap_scores, paired_test, paired_test_stats
from .stats import GleuStats
from .tokenizers import SACREBLEU_TOKENIZERS, Tokenizer, get_tokenizer
from .validation import MAX_ORDER
from .version import __version__

#: The metric folder: ``evaluate.load(METRIC_PATH)`` loads this metric offline.
METRIC_PATH = os.path.dirname(os.path.abspath(__file__))

__all__ = [
    "BatchScorer",
    "ComputeMetrics",
    "GleuColumns",
    "GleuIdReward",
    "GleuReward",
    "GLEU",
    "GleuScore",
    "Explanation",
    "GleuStats",
    "GoogleBleu",
    "GoogleBLEUScore",
    "LmEvalGleu",
    "MAX_ORDER",
    "METRIC_PATH",
    "PairedResult",
    "SACREBLEU_TOKENIZERS",
    "Tokenizer",
    "__version__",
    "all_reduce_stats",
    "batch_gleu_stats",
    "batch_sentence_gleu",
    "bootstrap_ci",
    "bootstrap_scores",
    "corpus_gleu",
    "explain",
    "get_tokenizer",
    "gleu_stats",
    "load",
    "make_compute_metrics",
    "make_gleu_reward",
    "mbr_select",
    "make_openrlhf_reward",
    "make_verifiers_reward",
    "make_lighteval_metric",
    "paired_test",
    "pairwise_gleu",
    "paired_test_stats",
    "sentence_gleu",
    "signature",
    "stats_from_columns",
    "text_stats",
]


def load(**kwargs: Any) -> Any:
    """``evaluate.load`` of this installed metric, offline, from any directory.

    Keyword arguments go to ``evaluate.load`` (``experiment_id``, ``num_process``, ...).
    """
    import evaluate

    return evaluate.load(METRIC_PATH, **kwargs)


# Training, scale and RL adapters, by module; torch is imported only when all_reduce_stats
# or the batched functions run.
_LAZY = {
    "make_compute_metrics": "training",
    "ComputeMetrics": "training",
    "all_reduce_stats": "distributed",
    "GleuColumns": "distributed",
    "stats_from_columns": "distributed",
    "batch_sentence_gleu": "batched",
    "BatchScorer": "batched",
    "batch_gleu_stats": "batched",
    "make_gleu_reward": "rewards",
    "pairwise_gleu": "pairwise",
    "mbr_select": "pairwise",
    "GleuReward": "rewards",
    "GleuIdReward": "rewards",
    "make_openrlhf_reward": "rewards",
    "make_verifiers_reward": "rewards",
    "GoogleBLEUScore": "torchmetrics_metric",
    "LmEvalGleu": "lm_eval_metric",
    "make_lighteval_metric": "lighteval_metric",
}


def __getattr__(name: str) -> Any:
    # Heavy adapters are imported on first use only.
    if name == "GoogleBleu":
        from .google_bleu import GoogleBleu

        return GoogleBleu
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'google_bleu' has no attribute {name!r}")
