"""What a scorer returns: :class:`GleuScore` (score, precision, recall, exact totals, signature;
an interval, p-value or per-order scores when asked), and the one rule for printing its figures
(:func:`check_figures`, :func:`scaled_text`), which the command line and the Space follow too.

The attributes hold fractions on the 0-1 scale, as nltk and evaluate return them; what is
printed is on sacrebleu's 0-100 scale unless asked otherwise, and names its scale.
"""

from __future__ import annotations

import dataclasses
import json as json_module
from typing import Any, ClassVar

from .stats import GleuStats, ratio
from .validation import describe, integer

#: The scales a printed score may use: 100 (sacrebleu's 0-100) or 1 (the API's fractions).
SCALES = (100, 1)


def check_figures(width: Any, scale: Any) -> tuple[int, int]:
    """The decimals (0-17) and the scale (:data:`SCALES`) of printed figures, as integers, each
    tested by :func:`~google_bleu.validation.integer` (so ``2.0`` and ``100.0`` are refused).

    Example:
        >>> check_figures(2, 100)
        (2, 100)
        >>> check_figures(1, 100.0)
        Traceback (most recent call last):
        ...
        TypeError: scale must be the integer 100 (0-100, as sacrebleu) or 1 (0-1, as the API), got float 100.0
    """
    number, factor = integer(width), integer(scale)
    if number is None or not 0 <= number <= 17:
        error = TypeError if number is None else ValueError
        raise error(f"width must be an integer from 0 to 17, got {describe(width)}")
    if factor not in SCALES:
        error = TypeError if factor is None else ValueError
        raise error(f"scale must be the integer 100 (0-100, as sacrebleu) or 1 (0-1, as the API), got {describe(scale)}")
    return number, factor


def scaled_text(value: float, width: int, scale: int) -> str:
    """A 0-1 value as every surface prints a score: times ``scale``, ``width`` decimals (both
    checked by the caller with :func:`check_figures`).

    Example:
        >>> scaled_text(0.3333333333333333, 2, 100), scaled_text(0.3333333333333333, 3, 1)
        ('33.33', '0.333')
    """
    return f"{scale * value:.{width}f}"


def scale_name(scale: int) -> str:
    """How a printed score states its scale: ``"scale 0-100"`` or ``"scale 0-1"``."""
    return f"scale 0-{scale}"


@dataclasses.dataclass(frozen=True, repr=False)
class GleuScore:
    """A corpus GLEU score with everything needed to report and recompute it: fractions on the
    0-1 scale (:attr:`scale`) and the exact totals. ``float(result)`` is :attr:`score`;
    ``print(result)`` shows :meth:`format`, on sacrebleu's 0-100 scale, and says so.

    Attributes:
        score: Corpus GLEU, ``n_match / n_all`` (0.0 when ``n_all == 0``), 0-1.
        precision: ``n_match / n_hyp``, 0-1.
        recall: ``n_match / n_ref``, 0-1.
        n_match: Summed clipped matches against the chosen references.
        n_hyp: Summed hypothesis n-grams.
        n_ref: Summed n-grams of the chosen references.
        n_all: Summed ``max(n_hyp, n_ref)`` per segment.
        signature: The settings that determine the score.
        ci_low: Lower end of the 95% bootstrap interval, when computed, 0-1.
        ci_high: Upper end of the 95% bootstrap interval, when computed, 0-1.
        p_value: Paired-test p-value against a baseline, when computed.
        orders: When asked for (:meth:`~google_bleu.GLEU.corpus_score` with ``by_order=True``),
            each order's own score: ``((n, GleuScore of orders n-n), ...)``, exactly what
            ``GLEU(min_len=n, max_len=n)`` gives on the same text.

    Example:
        >>> from google_bleu import GLEU
        >>> result = GLEU().corpus_score(["the cat sat on the mat"], [["the cat ate the mat"]])
        >>> result.scale, result.score, float(result), str(result).split(" = ", 1)[1]
        ('0-1', 0.3333333333333333, 0.3333333333333333, '33.3 (P = 33.3, R = 42.9), scale 0-100')
        >>> result
        GleuScore(scale='0-1', score=0.3333333333333333, precision=0.3333333333333333, recall=0.42857142857142855, n_match=6, n_hyp=18, n_ref=14, n_all=18, signature='nrefs:1|case:mixed|tok:13a|ngram:1-4|version:...')
    """

    #: The scale of :attr:`score`, :attr:`precision`, :attr:`recall` and the interval: ``"0-1"``.
    scale: ClassVar[str] = "0-1"

    score: float
    precision: float
    recall: float
    n_match: int
    n_hyp: int
    n_ref: int
    n_all: int
    signature: str
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    orders: tuple[tuple[int, GleuScore], ...] | None = None

    @classmethod
    def from_stats(
        cls, stats: GleuStats, signature: str, interval: tuple[float, float] | None = None, p_value: float | None = None
    ) -> GleuScore:
        """The score of summed statistics, with a signature and optional interval / p-value."""
        n_match, n_hyp, n_ref, n_all = stats.totals()
        low, high = (None, None) if interval is None else interval
        fractions = ratio(n_match, n_all), ratio(n_match, n_hyp), ratio(n_match, n_ref)
        return cls(*fractions, n_match, n_hyp, n_ref, n_all, signature, low, high, p_value)

    def __float__(self) -> float:
        return self.score

    def __repr__(self) -> str:
        shown = [f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if getattr(self, f.name) is not None]
        return f"GleuScore(scale={self.scale!r}, {', '.join(shown)})"

    def __str__(self) -> str:
        return self.format()

    def totals(self) -> dict[str, int]:
        """The exact totals: ``n_match``, ``n_hyp``, ``n_ref``, ``n_all``."""
        return {"n_match": self.n_match, "n_hyp": self.n_hyp, "n_ref": self.n_ref, "n_all": self.n_all}

    def to_dict(self) -> dict[str, Any]:
        """Plain values: ``google_bleu``, ``precision``, ``recall``, ``signature``, the totals,
        and ``ci_low``/``ci_high``/``p_value``/``orders`` only when computed (0-1, not percent)."""
        out = {"google_bleu": self.score, "precision": self.precision, "recall": self.recall, "signature": self.signature}
        out.update(self.totals())
        if self.ci_low is not None:
            out.update(ci_low=float(self.ci_low), ci_high=float(self.ci_high))
        if self.p_value is not None:
            out["p_value"] = float(self.p_value)
        if self.orders is not None:
            out["orders"] = [
                {"order": n, "google_bleu": one.score, "precision": one.precision, "recall": one.recall, **one.totals()}
                for n, one in self.orders
            ]
        return out

    def metric_dict(self, sentence_scores: list[float] | None = None) -> dict[str, Any]:
        """The evaluate module's dict: ``google_bleu``, ``precision``, ``recall``, ``signature``,
        then ``sentence_scores`` when given and ``ci_low``/``ci_high`` when computed."""
        out = {"google_bleu": self.score, "precision": self.precision, "recall": self.recall, "signature": self.signature}
        if sentence_scores is not None:
            out["sentence_scores"] = sentence_scores
        if self.ci_low is not None:
            out.update(ci_low=float(self.ci_low), ci_high=float(self.ci_high))
        return out

    def format(self, width: int = 1, score_only: bool = False, json: bool = False, scale: int = 100) -> str:
        """The score for people (or JSON) with ``width`` decimals (0-17), on ``scale``: ``100``
        (sacrebleu's 0-100, the default) or ``1`` (0-1); the text line names its scale.

        Example:
            >>> from google_bleu import GLEU
            >>> result = GLEU().corpus_score(["the cat sat on the mat"], [["the cat ate the mat"]])
            >>> result.format(width=2, score_only=True), result.format(width=4, score_only=True, scale=1)
            ('33.33', '0.3333')
            >>> result.format(json=True).startswith('{"name": "GLEU", "score": 33.3, "precision": 33.3')
            True
        """
        figures = self.figures(width, scale)
        if score_only:
            return figures["score"]
        if json:
            return json_module.dumps(self.json_object(width, scale), ensure_ascii=False)
        text = figures["score"]
        if self.ci_low is not None:
            text += f" [{figures['ci_low']}, {figures['ci_high']}]"
        if self.orders is not None:
            text += f" {self.orders[0][0]}-{self.orders[-1][0]}: {figures['orders']}"
        text += f" (P = {figures['precision']}, R = {figures['recall']})"
        if self.p_value is not None:
            text += f" p = {figures['p_value']}"
        return f"GLEU|{self.signature} = {text}, {scale_name(integer(scale))}"

    def figures(self, width: int = 1, scale: int = 100) -> dict[str, str]:
        """The printed figures every surface shows: ``score``, ``precision``, ``recall`` (and
        ``ci_low``/``ci_high`` and each order's score, ``/``-joined, when computed) on ``scale``
        with ``width`` decimals, and ``p_value`` (4 decimals) when computed.

        Example:
            >>> from google_bleu import GLEU
            >>> GLEU().corpus_score(["the cat sat on the mat"], [["the cat ate the mat"]]).figures(2)
            {'score': '33.33', 'precision': '33.33', 'recall': '42.86'}
        """
        width, scale = check_figures(width, scale)
        out = {name: scaled_text(getattr(self, name), width, scale) for name in ("score", "precision", "recall")}
        if self.ci_low is not None:
            out.update(ci_low=scaled_text(self.ci_low, width, scale), ci_high=scaled_text(self.ci_high, width, scale))
        if self.p_value is not None:
            out["p_value"] = f"{self.p_value:.4f}"
        if self.orders is not None:
            out["orders"] = "/".join(scaled_text(one.score, width, scale) for _, one in self.orders)
        return out

    def json_object(
        self, width: int = 1, scale: int = 100, *, labels: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The object :meth:`format` prints with ``json=True``: ``name``, ``score``, ``precision``,
        ``recall`` (on ``scale``, rounded), ``scale`` (``"0-100"`` or ``"0-1"``), ``signature``, the
        totals, and ``ci_low``/``ci_high``/``p_value``/``orders`` when computed. A surface adds its own
        fields: ``labels`` (e.g. the command line's ``system``) after ``name``, ``settings`` after the totals.
        """
        width, scale = check_figures(width, scale)

        def figures(one: GleuScore) -> dict[str, float]:
            return {name: round(scale * getattr(one, name), width) for name in ("score", "precision", "recall")}

        out = {"name": "GLEU", **(labels or {}), **figures(self), "scale": f"0-{scale}", "signature": self.signature}
        out.update(self.totals())
        out.update(settings or {})
        if self.ci_low is not None:
            out.update(ci_low=round(scale * self.ci_low, width), ci_high=round(scale * self.ci_high, width))
        if self.p_value is not None:
            out["p_value"] = round(self.p_value, 4)
        if self.orders is not None:
            out["orders"] = [{"order": n, **figures(one), **one.totals()} for n, one in self.orders]
        return out
