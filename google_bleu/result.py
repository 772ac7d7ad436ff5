""":class:`GleuScore`, what a scorer returns, and :func:`figure`, the one rule of a printed figure (docs/design.md)."""

from __future__ import annotations

import dataclasses
import json as json_module
import re
from fractions import Fraction
from typing import Any, ClassVar

from .stats import GleuStats, ratio
from .validation import describe, integer

#: The scales a printed score may use: 100 (sacrebleu's 0-100) or 1 (the API's fractions).
SCALES = (100, 1)


def check_figures(width: Any, scale: Any) -> tuple[int, int]:
    """The decimals (0-17) and the scale (:data:`SCALES`) of printed figures, checked to be integers.

    Example:
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


class Figure(float):
    """A printed figure: the number, and the digits it is printed with (:func:`dumps` writes them in JSON)."""

    def __new__(cls, text: str) -> Figure:
        self = super().__new__(cls, text)
        self.text = text
        return self

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


def figure(value: float | Fraction, width: int, scale: int) -> Figure:
    """A 0-1 value as every surface prints it: times ``scale``, rounded half to even to ``width`` decimals (as
    :func:`check_figures` returns them), a :class:`~fractions.Fraction` exactly, a float from its shortest digits.

    Example:
        >>> figure(Fraction(1, 3), 2, 100), figure(Fraction(1, 3), 17, 100), figure(0.25, 0, 100)
        (33.33, 33.33333333333333333, 25)
    """
    exact = value if isinstance(value, Fraction) else Fraction(repr(float(value)))
    digits = str(round(exact * scale * 10**width)).rjust(width + 1, "0")
    return Figure(f"{digits[:-width]}.{digits[-width:]}" if width else digits)


def dumps(document: Any, **kwargs: Any) -> str:
    """``json.dumps(document, ensure_ascii=False, **kwargs)``, each :class:`Figure` written with its printed digits."""
    texts: list[str] = []

    def marked(value: Any) -> Any:
        if isinstance(value, Figure):
            texts.append(value.text)
            return f"\0{len(texts) - 1}\0"
        if isinstance(value, dict):
            return {key: marked(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [marked(item) for item in value]
        return value

    text = json_module.dumps(marked(document), ensure_ascii=False, **kwargs)
    return re.sub(r'"\\u0000(\d+)\\u0000"', lambda match: texts[int(match[1])], text)


@dataclasses.dataclass(frozen=True, repr=False)
class GleuScore:
    """A corpus GLEU score: fractions on the 0-1 scale and the exact totals behind them (docs/python-api.md).

    Attributes:
        score: Corpus GLEU, ``n_match / n_all`` (0.0 when ``n_all == 0``).
        n_all: Summed ``max(n_hyp, n_ref)`` per segment.
        ci_low: Lower end of the 95% bootstrap interval, when computed.
        ci_high: Upper end of the 95% bootstrap interval, when computed.
        p_value: Paired-test p-value against a baseline, when computed.
        orders: With ``by_order=True``, each order's own score: ``((n, GleuScore of orders n-n), ...)``.

    Example:
        >>> from google_bleu import GLEU
        >>> result = GLEU().corpus_score(["the cat sat on the mat"], [["the cat ate the mat"]])
        >>> result.scale, result.score, float(result), str(result).split(" = ", 1)[1]
        ('0-1', 0.3333333333333333, 0.3333333333333333, '33.3 (P = 33.3, R = 42.9), scale 0-100')
        >>> result
        GleuScore(scale='0-1', score=0.3333333333333333, precision=0.3333333333333333, recall=0.42857142857142855, n_match=6, n_hyp=18, n_ref=14, n_all=18, signature='nrefs:1|case:mixed|tok:13a|ngram:1-4|version:...')
    """

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
        """The score of statistics, with a signature and optional interval / p-value."""
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
        """Plain values (0-1): ``google_bleu``, ``precision``, ``recall``, ``signature``, totals, what was computed."""
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

    def format(self, width: int = 1, score_only: bool = False, json: bool = False, scale: int = 100) -> str:
        """The score as text (or JSON), ``width`` decimals (0-17) on ``scale`` 100 (sacrebleu's 0-100) or 1 (0-1).

        Example:
            >>> from google_bleu import GLEU
            >>> result = GLEU().corpus_score(["the cat sat on the mat"], [["the cat ate the mat"]])
            >>> result.format(width=2, score_only=True), result.format(width=4, score_only=True, scale=1)
            ('33.33', '0.3333')
            >>> result.format(json=True, width=0).startswith('{"name": "GLEU", "score": 33, "precision": 33')
            True
        """
        width, scale = check_figures(width, scale)
        if json:
            return dumps(self.json_object(width, scale))
        figures = self._figures(width, scale)
        if score_only:
            return figures["score"]
        text = figures["score"]
        if self.ci_low is not None:
            text += f" [{figures['ci_low']}, {figures['ci_high']}]"
        if self.orders is not None:
            text += f" {self.orders[0][0]}-{self.orders[-1][0]}: {figures['orders']}"
        text += f" (P = {figures['precision']}, R = {figures['recall']})"
        if self.p_value is not None:
            text += f" p = {figures['p_value']}"
        return f"GLEU|{self.signature} = {text}, scale 0-{scale}"

    def figures(self, width: int = 1, scale: int = 100) -> dict[str, str]:
        """The printed figures (:func:`figure`) of the score, precision, recall and what was computed.

        Example:
            >>> from google_bleu import GLEU
            >>> GLEU().corpus_score(["the cat sat on the mat"], [["the cat ate the mat"]]).figures(2)
            {'score': '33.33', 'precision': '33.33', 'recall': '42.86'}
        """
        return self._figures(*check_figures(width, scale))

    def _numbers(self, width: int, scale: int) -> dict[str, Figure]:
        exact = {"score": (self.n_match, self.n_all), "precision": (self.n_match, self.n_hyp), "recall": (self.n_match, self.n_ref)}
        return {name: figure(Fraction(m, n) if n else Fraction(0), width, scale) for name, (m, n) in exact.items()}

    def _figures(self, width: int, scale: int) -> dict[str, str]:
        out = {name: value.text for name, value in self.json_object(width, scale).items() if isinstance(value, Figure)}
        if self.orders is not None:
            out["orders"] = "/".join(one._figures(width, scale)["score"] for _, one in self.orders)
        return out

    def json_object(
        self, width: int = 1, scale: int = 100, *, labels: dict[str, Any] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The object :meth:`format` prints with ``json=True``: :class:`Figure` numbers on ``scale`` and the
        exact totals; a surface adds its own ``labels`` after ``name`` and ``settings`` after the totals."""
        width, scale = check_figures(width, scale)
        out = {"name": "GLEU", **(labels or {}), **self._numbers(width, scale), "scale": f"0-{scale}", "signature": self.signature}
        out.update(self.totals())
        out.update(settings or {})
        if self.ci_low is not None:
            out.update(ci_low=figure(self.ci_low, width, scale), ci_high=figure(self.ci_high, width, scale))
        if self.p_value is not None:
            out["p_value"] = figure(self.p_value, 4, 1)
        if self.orders is not None:
            out["orders"] = [{"order": n, **one._numbers(width, scale), **one.totals()} for n, one in self.orders]
        return out
