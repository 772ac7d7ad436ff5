"""LightEval (0.13): corpus Google-BLEU and the mean sentence GLEU as one metric,
:func:`make_lighteval_metric` (docs/metrics-harnesses.md, "LightEval"). Imports LightEval."""

from __future__ import annotations

import statistics
from typing import Any

from ..imports import import_optional
from ..settings import GLEU, scorer_from_options
from ..stats import GleuStats
from ..validation import describe, integer, is_sequence


def _lighteval(module: str) -> Any:
    return import_optional(f"lighteval.{module}", "lighteval", "google_bleu.integrations.lighteval")


CorpusLevelComputation = _lighteval("metrics.metrics_corpus").CorpusLevelComputation
Preparator = _lighteval("metrics.sample_preparator").Preparator
CorpusLevelMetricGrouping = _lighteval("metrics.utils.metric_utils").CorpusLevelMetricGrouping
SamplingMethod = _lighteval("tasks.requests").SamplingMethod

__all__ = ["GleuCorpus", "GleuPreparator", "make_lighteval_metric", "mean_sentence_gleu"]

#: The name LightEval reports corpus GLEU under; the mean sentence GLEU's is this + ``"_sentence"``.
METRIC_NAME = "google_bleu"


def _check_gold_index(doc: Any) -> None:
    # LightEval's Doc.get_golds indexes doc.choices with doc.gold_index as it is: an IndexError
    # past the end, and a negative index silently takes a reference from the end.
    choices = getattr(doc, "choices", None)
    if not is_sequence(choices) or isinstance(choices, str) or not choices:
        raise ValueError(f"doc.choices must hold the reference strings, got {describe(choices)}")
    indices = doc.gold_index if isinstance(doc.gold_index, (list, tuple)) else [doc.gold_index]
    if not indices:
        raise ValueError("doc.gold_index must name at least one of doc.choices, got []")
    for index in indices:
        if integer(index) is None:
            raise ValueError(f"doc.gold_index must be an index of doc.choices or a list of them, got {describe(doc.gold_index)}")
        if not 0 <= index < len(choices):
            raise ValueError(f"doc.gold_index must index doc.choices (0 to {len(choices) - 1}), got {int(index)} for {len(choices)} choice{'s' * (len(choices) != 1)}")


class GleuPreparator(Preparator):
    """LightEval's sample-level step: a sample's statistics row and its sentence GLEU (:attr:`names`).

    Example:
        >>> from lighteval.models.model_output import ModelResponse
        >>> from lighteval.tasks.requests import Doc
        >>> doc = Doc(query="...", choices=["the cat ate the mat"], gold_index=0)
        >>> response = ModelResponse(text=["the cat sat on the mat"])
        >>> GleuPreparator(GLEU()).prepare(doc=doc, model_response=response)
        {'google_bleu': (6, 18, 14, 18), 'google_bleu_sentence': 0.3333333333333333}
    """

    def __init__(self, scorer: GLEU | None = None, metric_name: str = METRIC_NAME) -> None:
        if not isinstance(metric_name, str) or not metric_name:
            raise TypeError(f"metric_name must be a non-empty str, got {describe(metric_name)}")
        self.scorer = scorer_from_options(scorer)
        self.metric_name = metric_name

    @property
    def names(self) -> list[str]:
        """The two names LightEval reports: corpus GLEU, then the mean sentence GLEU."""
        return [self.metric_name, f"{self.metric_name}_sentence"]

    def stats(self, doc: Any, model_response: Any) -> GleuStats:
        """The statistics row of one sample: its one generation against the doc's golds."""
        texts = model_response.final_text
        texts = [texts] if isinstance(texts, str) else texts  # one generation given as a plain string
        if not is_sequence(texts) or len(texts) != 1 or not isinstance(texts[0], str):
            raise ValueError(f"model_response.final_text must hold exactly one generated str per sample (GLEU scores one generation), got {describe(texts)}")
        _check_gold_index(doc)
        golds = doc.get_golds()
        golds = [golds] if isinstance(golds, str) else golds
        if not is_sequence(golds) or not golds or not all(isinstance(gold, str) for gold in golds):
            raise ValueError(f"doc.get_golds() must give one or more reference strings, got {describe(golds)}")
        return self.scorer.checked_stats([str.__str__(texts[0])], [list(map(str.__str__, golds))])

    def prepare(self, doc: Any, model_response: Any, **kwargs: Any) -> dict[str, Any]:
        """One value per reported name: the sample's row and its sentence GLEU."""
        stats = self.stats(doc, model_response)
        corpus, sentence = self.names
        return {corpus: stats.totals(), sentence: stats.sentence_scores().tolist()[0]}

    def __str__(self) -> str:
        return f"GleuPreparator(scorer={self.scorer!r}, metric_name={self.metric_name!r})"


class GleuCorpus(CorpusLevelComputation):
    """LightEval's corpus-level step for corpus GLEU: the samples' rows (counted with ``scorer``), summed.

    Example:
        >>> GleuCorpus(GLEU()).compute_corpus([(6, 18, 14, 18), (6, 6, 6, 6)])
        0.5
    """

    def __init__(self, scorer: GLEU | None = None) -> None:
        self.scorer = scorer_from_options(scorer)

    def stats(self, items: list[Any]) -> GleuStats:
        """The per-sample rows as :class:`GleuStats`."""
        return GleuStats(items, self.scorer.min_len, self.scorer.max_len)

    def compute_corpus(self, items: list[Any]) -> float:
        """``sum(n_match) / sum(n_all)`` over the samples' rows."""
        return self.stats(items).score()

    def __str__(self) -> str:
        return f"GleuCorpus(scorer={self.scorer!r})"


def mean_sentence_gleu(scores: list[float]) -> float:
    """The mean of the samples' sentence GLEU, exact and rounded once; no scores give 0.0 (the
    ``"mean"`` in its name gives it LightEval's standard error of a mean).

    Example:
        >>> mean_sentence_gleu([0.5, 0.25])
        0.375
    """
    values = list(scores) if is_sequence(scores) and not isinstance(scores, (str, bytes)) else None
    if values is None or any(isinstance(value, bool) or not isinstance(value, (int, float)) for value in values):
        raise TypeError(f"scores must be a list of sentence GLEU floats, got {describe(scores)}")
    for index, value in enumerate(values):
        if not 0 <= value <= 1:  # NaN fails both
            raise ValueError(f"scores[{index}] must be a sentence score in [0, 1], got {value!r}")
    return statistics.mean(values) if values else 0.0


def make_lighteval_metric(scorer: GLEU | None = None, *, metric_name: str = METRIC_NAME) -> CorpusLevelMetricGrouping:
    """A LightEval metric for generative tasks: corpus GLEU and the mean sentence GLEU (see ``METRIC_NAME``).

    Example:
        >>> metric = make_lighteval_metric(GLEU(lowercase=True))
        >>> metric.metric_name
        ['google_bleu', 'google_bleu_sentence']
    """
    preparator = GleuPreparator(scorer, metric_name)
    corpus, sentence = preparator.names
    return CorpusLevelMetricGrouping(
        metric_name=preparator.names, higher_is_better={corpus: True, sentence: True},
        category=SamplingMethod.GENERATIVE, sample_level_fn=preparator,
        corpus_level_fn={corpus: GleuCorpus(preparator.scorer), sentence: mean_sentence_gleu},
    )
