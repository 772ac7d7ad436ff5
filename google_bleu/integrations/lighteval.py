"""Exact corpus Google-BLEU as a LightEval metric: :func:`make_lighteval_metric`.

LightEval's ``CorpusLevelMetric`` runs a sample-level function on each sample
(``sample_level_fn.prepare(doc=..., model_response=...)`` for a ``Preparator``) and then
the corpus-level function on the list of per-sample values
(``corpus_level_fn.compute_corpus(items)``), also on bootstrap resamples of that list
for the standard error. Here a sample's value is its GLEU statistics row
``(n_match, n_hyp, n_ref, n_all)``, and the corpus function sums the rows and divides:
the exact corpus score, equal to :meth:`google_bleu.GLEU.corpus_score` on the same text,
and bootstrap resamples of rows, as sacrebleu resamples them.

:class:`GleuPreparator` and :class:`GleuCorpus` subclass LightEval's ``Preparator`` and
``CorpusLevelComputation`` when LightEval is installed (``pip install
'google-bleu[lighteval]'``); importing this module imports LightEval, so ``google_bleu``
loads it only when :func:`make_lighteval_metric` is first used. Both classes pickle
(LightEval's bootstrap sends the corpus function to worker processes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..scorer import GLEU
from ..stats import GleuStats
from ..tokenizers import DEFAULT_TOKENIZER, Tokenizer
from ..validation import _is_sequence, describe
from .lm_eval import check_rows

try:
    from lighteval.metrics.metrics_corpus import CorpusLevelComputation as _CorpusBase
    from lighteval.metrics.sample_preparator import Preparator as _PreparatorBase
except ImportError:  # LightEval absent: the classes still work through their methods.
    _CorpusBase = _PreparatorBase = object  # type: ignore[assignment,misc]

#: The metric name LightEval reports (the evaluate metric's key).
METRIC_NAME = "google_bleu"


class GleuPreparator(_PreparatorBase):  # type: ignore[misc,valid-type]
    """LightEval's sample-level step: a sample's GLEU statistics row.

    Args:
        scorer: The :class:`~google_bleu.GLEU` settings to count with.

    Example:
        >>> from types import SimpleNamespace
        >>> doc = SimpleNamespace(get_golds=lambda: ["the cat ate the mat"])
        >>> response = SimpleNamespace(final_text=["the cat sat on the mat"])
        >>> GleuPreparator(GLEU()).prepare(doc=doc, model_response=response)
        (6, 18, 14, 18)
    """

    def __init__(self, scorer: GLEU) -> None:
        if not isinstance(scorer, GLEU):
            raise TypeError(f"scorer must be a google_bleu.GLEU, got {describe(scorer)}")
        self.scorer = scorer

    def prepare(self, doc: Any, model_response: Any, **kwargs: Any) -> tuple[int, int, int, int]:
        """The statistics row of one sample: its one generation against the doc's golds.

        Args:
            doc: LightEval's ``Doc``; its ``get_golds()`` are the references.
            model_response: LightEval's ``ModelResponse``; ``final_text`` must hold
                exactly one generation.
        """
        texts = model_response.final_text
        if isinstance(texts, str):
            texts = [texts]
        if not _is_sequence(texts) or len(texts) != 1 or not isinstance(texts[0], str):
            raise ValueError(
                "model_response.final_text must hold exactly one generated str per sample "
                f"(GLEU scores one generation), got {describe(texts)}"
            )
        golds = doc.get_golds()
        if isinstance(golds, str):
            golds = [golds]
        if not _is_sequence(golds) or not golds or not all(isinstance(gold, str) for gold in golds):
            raise ValueError(f"doc.get_golds() must give one or more reference strings, got {describe(golds)}")
        return self.scorer.stats([texts[0]], [list(golds)]).totals()

    def __str__(self) -> str:
        return f"GleuPreparator(scorer={self.scorer!r})"


class GleuCorpus(_CorpusBase):  # type: ignore[misc,valid-type]
    """LightEval's corpus-level step: corpus GLEU of the per-sample rows.

    Args:
        scorer: The :class:`~google_bleu.GLEU` the rows were counted with (its orders).

    Example:
        >>> GleuCorpus(GLEU()).compute_corpus([(6, 18, 14, 18), (6, 6, 6, 6)])
        0.5
    """

    def __init__(self, scorer: GLEU) -> None:
        if not isinstance(scorer, GLEU):
            raise TypeError(f"scorer must be a google_bleu.GLEU, got {describe(scorer)}")
        self.scorer = scorer

    def stats(self, items: list[Any]) -> GleuStats:
        """The per-sample rows as :class:`GleuStats` (for intervals, signatures, ...)."""
        return GleuStats(check_rows(items), self.scorer.min_len, self.scorer.max_len)

    def compute_corpus(self, items: list[Any]) -> float:
        """``sum(n_match) / sum(n_all)`` over the samples' rows."""
        return self.stats(items).score()

    def __str__(self) -> str:
        return f"GleuCorpus(scorer={self.scorer!r})"


def make_lighteval_metric(
    tokenizer: str | Callable[[str], list[str]] | Tokenizer = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    min_len: int = 1,
    max_len: int = 4,
    metric_name: str = METRIC_NAME,
) -> Any:
    """A LightEval ``CorpusLevelMetric`` for exact corpus GLEU of generative tasks.

    Args:
        tokenizer: GLEU's word tokenizer, a name (default ``"13a"``) or a callable.
        lowercase: Lowercase before tokenizing.
        min_len: Lowest n-gram order (default 1).
        max_len: Highest n-gram order (default 4).
        metric_name: The name LightEval reports.

    Returns:
        ``CorpusLevelMetric(metric_name, sample_level_fn=GleuPreparator,
        corpus_level_fn=GleuCorpus, category=SamplingMethod.GENERATIVE,
        higher_is_better=True)``, to put in a ``LightevalTaskConfig``'s ``metrics``.

    Raises:
        ImportError: When LightEval is not installed.
        ValueError, TypeError: For bad settings.
    """
    if not isinstance(metric_name, str) or not metric_name:
        raise TypeError(f"metric_name must be a non-empty str, got {describe(metric_name)}")
    scorer = GLEU(tokenizer, lowercase, min_len, max_len)
    if _CorpusBase is object:
        raise ImportError("make_lighteval_metric needs LightEval: pip install 'google-bleu[lighteval]'")
    from lighteval.metrics.utils.metric_utils import CorpusLevelMetric
    from lighteval.tasks.requests import SamplingMethod

    return CorpusLevelMetric(
        metric_name=metric_name,
        higher_is_better=True,
        category=SamplingMethod.GENERATIVE,
        sample_level_fn=GleuPreparator(scorer),
        corpus_level_fn=GleuCorpus(scorer),
    )
