"""google-bleu: exact, fast Google-BLEU (GLEU, Wu et al. 2016); the import needs numpy only (docs/python-api.md).

Example:
    >>> import google_bleu
    >>> google_bleu.corpus_gleu([["the cat ate the mat".split()]], ["the cat sat on the mat".split()])
    0.3333333333333333
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from .imports import import_optional
from .result import GleuScore
from .settings import GLEU
from .signature import signature
from .stats import GleuStats
from .tokenizers import SACREBLEU_TOKENIZERS, Tokenizer, get_tokenizer
from .tokens import corpus_gleu, gleu_stats, sentence_gleu
from .validation import MAX_ORDER, ReferenceLayoutWarning
from .version import __version__

if TYPE_CHECKING:
    from .analysis.explain import Explanation, explain

#: The metric folder: ``evaluate.load(METRIC_PATH)`` loads this metric offline.
METRIC_PATH = os.path.dirname(os.path.abspath(__file__))

__all__ = [
    "GLEU", "GleuScore", "GleuStats", "GoogleBleu", "Explanation", "MAX_ORDER", "METRIC_PATH", "ReferenceLayoutWarning",
    "SACREBLEU_TOKENIZERS", "Tokenizer", "__version__", "corpus_gleu", "explain", "get_tokenizer", "gleu_stats", "load",
    "sentence_gleu", "signature",
]  # fmt: skip

_NAMESPACES = ("analysis", "cli", "ids", "integrations", "scale")


def load(**kwargs: Any) -> Any:
    """``evaluate.load(METRIC_PATH, **kwargs)``: this installed metric, offline, from any directory (``import
    evaluate`` can take tens of seconds: ``GLEU().corpus_score(...).to_dict()`` holds the same result)."""
    import_optional("datasets", "evaluate", "google_bleu.load()")  # first: evaluate imports it
    evaluate = import_optional("evaluate", "evaluate", "google_bleu.load()")
    return evaluate.load(METRIC_PATH, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "GoogleBleu":
        for module in ("datasets", "evaluate"):  # datasets first: evaluate imports it
            import_optional(module, "evaluate", "google_bleu.GoogleBleu")
        from .google_bleu import GoogleBleu

        return GoogleBleu
    if name in _NAMESPACES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in ("explain", "Explanation"):
        return getattr(importlib.import_module(f"{__name__}.analysis.explain"), name)
    raise AttributeError(f"module 'google_bleu' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_NAMESPACES))
