"""Exact corpus Google-BLEU in lm-evaluation-harness tasks: :class:`LmEvalGleu`
(docs/metrics-harnesses.md, ``examples/lm_eval/``). The harness is not imported here."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..settings import GLEU, scorer_from_options
from ..stats import GleuStats
from ..validation import check_references, check_text, describe, is_sequence

#: The metric key ``process_results`` returns by default (the evaluate metric's key).
METRIC_NAME = "google_bleu"


class LmEvalGleu:
    """``process_results`` (a document's statistics row) and ``aggregation`` (their sum's score, not
    the harness's default mean of per-document scores) for an lm-evaluation-harness task.

    Args:
        references: The document field with the reference(s), or a callable ``doc -> str | list[str]``.
        metric: The metric key ``process_results`` returns (the YAML's ``metric:``).

    Example:
        >>> gleu = LmEvalGleu(references="references")
        >>> docs = [{"references": ["the cat ate the mat"]}, {"references": "a b c"}]
        >>> values = [gleu.process_results(doc, [text])["google_bleu"]
        ...           for doc, text in zip(docs, ["the cat sat on the mat", "a b c"])]
        >>> values
        [(6, 18, 14, 18), (6, 6, 6, 6)]
        >>> gleu.aggregation(values)
        0.5
    """

    def __init__(
        self, references: str | Callable[[Any], str | Sequence[str]] = "references", scorer: GLEU | None = None,
        metric: str = METRIC_NAME, **settings: Any,
    ) -> None:
        if not (isinstance(references, str) or callable(references)):
            raise TypeError(f"references must be a document field name or a callable, got {describe(references)}")
        if not isinstance(metric, str) or not metric:
            raise TypeError(f"metric must be a non-empty str, got {describe(metric)}")
        self.scorer = scorer_from_options(scorer, settings, caller="LmEvalGleu")
        self.references = references
        self.metric = metric

    def __repr__(self) -> str:
        return f"LmEvalGleu(references={self.references!r}, metric={self.metric!r}, scorer={self.scorer!r})"

    def doc_references(self, doc: Any) -> list[str]:
        """The references of one document, as a non-empty list of strings."""
        if callable(self.references):
            return check_references(self.references(doc), "references(doc)", "document")
        if not isinstance(doc, Mapping):
            raise TypeError(f"doc must be a mapping of fields, got {describe(doc)}")
        if self.references not in doc:
            raise ValueError(f"doc has no field {self.references!r} (references=); its fields: {sorted(doc)}")
        return check_references(doc[self.references], f"doc[{self.references!r}]", "document")

    def process_results(self, doc: Any, results: Sequence[Any]) -> dict[str, tuple[int, int, int, int]]:
        """The document's statistics row under the metric key; ``results`` holds its one generation."""
        if isinstance(results, (str, bytes)) or not is_sequence(results) or len(results) != 1:
            raise ValueError(f"results must hold exactly one generation per document, got {describe(results)}; with repeats, add a take_first filter")
        prediction = check_text(results[0], "results[0] (the generation)")
        stats = self.scorer.checked_stats([prediction], [self.doc_references(doc)])
        return {self.metric: stats.totals()}

    def stats(self, items: Sequence[Sequence[int]]) -> GleuStats:
        """The per-document rows as :class:`GleuStats`."""
        return GleuStats(items, self.scorer.min_len, self.scorer.max_len)

    def aggregation(self, items: Sequence[Sequence[int]]) -> float:
        """Corpus GLEU of the per-document rows: ``sum(n_match) / sum(n_all)``."""
        return self.stats(items).score()
