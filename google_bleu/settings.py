""":class:`GLEU`, the frozen settings that score text, and :func:`scorer_from_options` (docs/python-api.md)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .result import GleuScore
from .signature import count_references, signature
from .significance import (
    DEFAULT_N_BOOTSTRAP,
    DEFAULT_SEED,
    check_bootstrap,
    checked_bootstrap_ci,
    checked_paired_intervals,
    paired_intervals,
)
from .stats import GleuStats, check_stats
from .text import checked_text_stats, order_text_stats
from .tokenizers import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer
from .validation import (
    TEXTS,
    check_bool,
    check_list,
    check_orders,
    check_references,
    check_text,
    check_texts,
    check_type,
    describe,
)

SETTINGS = ("tokenizer", "lowercase", "min_len", "max_len")


class GLEU:
    """Google-BLEU with fixed settings: an immutable value, equal, hashable and pickled by its settings.

    Args:
        tokenizer: A name of :data:`~google_bleu.tokenizers.SACREBLEU_TOKENIZERS`, a callable
            ``str -> list[str]``, or a :class:`~google_bleu.tokenizers.Tokenizer`.

    Raises:
        ValueError, TypeError, ImportError: For bad settings or a tokenizer's missing extra, here and nowhere later.

    Example:
        >>> scorer = GLEU(min_len=2)
        >>> scorer.corpus_score(["the cat sat on the mat"], ["the cat ate the mat"]).score
        0.16666666666666666
        >>> scorer.sentence_scores(["a b c", "x"], [["a b c"], ["y", "x"]])
        [1.0, 0.0]
        >>> scorer.max_len = 9
        Traceback (most recent call last):
        ...
        AttributeError: GLEU is immutable: use scorer.replace(max_len=...) for other settings
        >>> GLEU(tokenizer="nonsense")
        Traceback (most recent call last):
        ...
        ValueError: unknown tokenizer 'nonsense'; choose one of ...
    """

    __slots__ = ("tokenizer", "min_len", "max_len")

    def __init__(
        self, tokenizer: str | Callable[[str], list[str]] | Tokenizer = DEFAULT_TOKENIZER, lowercase: bool = False,
        min_len: int = 1, max_len: int = 4,
    ) -> None:
        min_len, max_len = check_orders(min_len, max_len)
        #: The :class:`~google_bleu.tokenizers.Tokenizer`; it applies and reports ``lowercase``.
        object.__setattr__(self, "tokenizer", get_tokenizer(tokenizer, lowercase))
        object.__setattr__(self, "min_len", min_len)
        object.__setattr__(self, "max_len", max_len)

    def __setattr__(self, name: str, value: Any = None) -> None:
        raise AttributeError(f"GLEU is immutable: use scorer.replace({name}=...) for other settings")

    __delattr__ = __setattr__

    def replace(self, **settings: Any) -> GLEU:
        """A scorer with some settings changed, checked as the constructor checks them.

        Example:
            >>> GLEU(lowercase=True).replace(max_len=2)
            GLEU(tokenizer='13a', lowercase=True, min_len=1, max_len=2)
        """
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise TypeError(f"replace() takes the settings {', '.join(SETTINGS)}, got {unknown}")
        tokenizer = settings.get("tokenizer", self.tokenizer)
        lowercase = settings.get("lowercase", self.lowercase if "tokenizer" not in settings else False)
        if isinstance(tokenizer, Tokenizer):
            tokenizer = tokenizer.cased(lowercase)
        return GLEU(tokenizer, lowercase, settings.get("min_len", self.min_len), settings.get("max_len", self.max_len))

    @property
    def lowercase(self) -> bool:
        """Whether text is lowercased before tokenizing (the tokenizer's setting)."""
        return self.tokenizer.lowercase

    def _key(self) -> tuple:
        return (self.tokenizer, self.min_len, self.max_len)

    def __eq__(self, other: object) -> bool:
        """Scorers are equal when their settings are.

        Example:
            >>> GLEU("intl") == GLEU("intl"), GLEU() == GLEU(max_len=2)
            (True, False)
        """
        return self._key() == other._key() if isinstance(other, GLEU) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple:
        return (GLEU, (self.tokenizer, False, self.min_len, self.max_len))

    def __repr__(self) -> str:
        settings = f"lowercase={self.lowercase}, min_len={self.min_len}, max_len={self.max_len}"
        return f"GLEU(tokenizer={self.tokenizer.name!r}, {settings})"

    def stats(
        self, predictions: Sequence[str], references: Sequence[str | Sequence[str]], names: tuple[str, str] = TEXTS
    ) -> GleuStats:
        """Per-segment statistics of untokenized text; ``names``: what messages call the two lists."""
        return self.checked_stats(*check_texts(predictions, references, names))

    def checked_stats(self, predictions: list[str], references: list[list[str]]) -> GleuStats:
        """:meth:`stats` of lists already checked (as :func:`~google_bleu.validation.check_texts` returns them)."""
        return checked_text_stats(predictions, references, self.tokenizer, self.min_len, self.max_len)

    def signature(
        self, nrefs: str | int = 1, n_bootstrap: int | None = None, seed: int | None = DEFAULT_SEED,
        n_randomization: int | None = None,
    ) -> str:
        """The signature of these settings, ``nrefs`` references per segment and the resampling behind a result.

        Example:
            >>> GLEU(lowercase=True).signature("var").rsplit("|", 1)[0]
            'nrefs:var|case:lc|tok:13a|ngram:1-4'
        """
        tokenizer, orders = self.tokenizer, (self.min_len, self.max_len)
        return signature(str(nrefs), tokenizer.name, tokenizer.lowercase, *orders, n_bootstrap, seed, n_randomization)

    def score_stats(
        self, stats: GleuStats, nrefs: str | int = 1, n_bootstrap: int | None = None, seed: int | None = DEFAULT_SEED,
        *, orders: Sequence[GleuStats] = (),
    ) -> GleuScore:
        """A :class:`GleuScore` of statistics counted with these settings; ``orders``: each order's own, ``n-n``."""
        check_stats(stats, "stats", (self.min_len, self.max_len))
        if orders:
            check_list(orders, "orders")
            for index, (n, one) in enumerate(zip(range(self.min_len, self.max_len + 1), orders)):
                check_stats(one, f"orders[{index}]", (n, n))
            if len(orders) != self.max_len - self.min_len + 1:
                raise ValueError(f"orders must hold one GleuStats per order {self.min_len}-{self.max_len}, got {len(orders)}")
        n_bootstrap, seed = check_bootstrap(n_bootstrap, seed)
        return self.checked_score(stats, nrefs, n_bootstrap, seed, orders)

    def checked_score(
        self, stats: GleuStats, nrefs: str | int, n_bootstrap: int | None = None, seed: int | None = DEFAULT_SEED,
        orders: Sequence[GleuStats] = (),
    ) -> GleuScore:
        """:meth:`score_stats` of arguments already checked (``n_bootstrap`` and ``seed`` by ``check_bootstrap``)."""
        interval = None if n_bootstrap is None else checked_bootstrap_ci(stats, n_bootstrap, seed)
        score = GleuScore.from_stats(stats, self.signature(nrefs, n_bootstrap, seed), interval)
        if not orders:
            return score
        alone = [(one.min_len, self.replace(min_len=one.min_len, max_len=one.max_len)) for one in orders]
        return dataclasses.replace(score, orders=tuple((n, scorer.checked_score(one, nrefs)) for (n, scorer), one in zip(alone, orders)))

    def corpus_score(
        self, predictions: Sequence[str], references: Sequence[str | Sequence[str]], n_bootstrap: int | None = None,
        seed: int | None = DEFAULT_SEED, *, by_order: bool = False,
    ) -> GleuScore:
        """Corpus GLEU of untokenized text.

        Args:
            references: Per segment a string or a non-empty list of strings (counts may vary).
            n_bootstrap: When given, add a 95% bootstrap interval (sacrebleu uses 1000).
            seed: Seed of the bootstrap (``None``: fresh entropy).
            by_order: Also score each order on its own (:attr:`GleuScore.orders`).

        Example:
            >>> score = GLEU().corpus_score(["the cat sat on the mat"], ["the cat ate the mat"], by_order=True)
            >>> [(n, order.score) for n, order in score.orders]
            [(1, 0.6666666666666666), (2, 0.4), (3, 0.0), (4, 0.0)]
            >>> score.format().split(" (P")[0].split(" = ")[1]
            '33.3 1-4: 66.7/40.0/0.0/0.0'
        """
        return self._corpus_score(predictions, references, n_bootstrap, seed, by_order, per_segment=False)

    def _corpus_score(
        self, predictions: Any, references: Any, n_bootstrap: Any, seed: Any, by_order: Any, per_segment: bool
    ) -> GleuScore:
        n_bootstrap, seed = check_bootstrap(n_bootstrap, seed)
        check_bool(by_order, "by_order")
        predictions, references = check_texts(predictions, references, per_segment=per_segment)
        stats, *orders = order_text_stats(predictions, references, self.tokenizer, self.min_len, self.max_len, by_order)
        return self.checked_score(stats, count_references(references), n_bootstrap, seed, orders)

    def sentence_score(self, hypothesis: str, references: str | Sequence[str]) -> GleuScore:
        """GLEU of one hypothesis against its references, as sacrebleu's ``sentence_score``.

        Example:
            >>> GLEU().sentence_score("the cat sat on the mat", ["the cat ate the mat"]).score
            0.3333333333333333
        """
        hypothesis = check_text(hypothesis, "hypothesis")
        references = check_references(references, "references")
        return self.checked_score(self.checked_stats([hypothesis], [references]), len(references))

    def corpus_score_streams(
        self, predictions: Sequence[str], ref_streams: Sequence[Sequence[str]], n_bootstrap: int | None = None,
        seed: int | None = DEFAULT_SEED,
    ) -> GleuScore:
        """Corpus GLEU of references as sacrebleu takes them: ``[[ref1 of each segment], [ref2 of each segment]]``.

        Example:
            >>> scorer = GLEU()
            >>> predictions = ["the cat sat on the mat", "a b c", "x"]
            >>> streams = [["the cat ate the mat", "a b c", "x"], ["a cat sat", "a b", "y"]]
            >>> scorer.corpus_score_streams(predictions, streams) == scorer.corpus_score(
            ...     predictions, [["the cat ate the mat", "a cat sat"], ["a b c", "a b"], ["x", "y"]])
            True
        """
        if isinstance(ref_streams, str) or not isinstance(ref_streams, Sequence) or not ref_streams:
            raise TypeError(f"ref_streams must be a non-empty list of reference streams, got {describe(ref_streams)}")
        if isinstance(predictions, Sequence) and not isinstance(predictions, str):
            for index, stream in enumerate(ref_streams):
                if isinstance(stream, str) or not isinstance(stream, Sequence):
                    raise TypeError(f"ref_streams[{index}] must be a list of strings, got {describe(stream)}")
                if len(stream) != len(predictions):
                    raise ValueError(f"ref_streams[{index}] has {len(stream)} lines but there are {len(predictions)} predictions: a stream holds one reference of every segment")
        references = [list(refs) for refs in zip(*ref_streams)]
        return self._corpus_score(predictions, references, n_bootstrap, seed, False, per_segment=True)

    def sentence_scores(self, predictions: Sequence[str], references: Sequence[str | Sequence[str]]) -> list[float]:
        """Sentence GLEU of each prediction (``== nltk.sentence_gleu`` on the same tokens)."""
        return [score for score, _, _ in self.stats(predictions, references).segment_scores()]

    def paired_scores(
        self, systems: Sequence[GleuStats], test: str = "bs", n_samples: int | None = None,
        seed: int | None = DEFAULT_SEED, n_bootstrap: int = DEFAULT_N_BOOTSTRAP, nrefs: str | int = 1,
    ) -> list[GleuScore]:
        """Paired tests of each system against the first (:func:`~google_bleu.significance.paired_intervals`).

        Example:
            >>> scorer = GLEU()
            >>> refs = ["the cat sat on the mat", "a dog ran", "hello there"]
            >>> base = scorer.stats(["the cat sat", "a dog", "hello"], refs)
            >>> [(s.p_value, s.signature.split("|")[4]) for s in scorer.paired_scores([base, base], n_samples=99)]
            [(None, 'bs:99'), (1.0, 'bs:99')]
        """
        results, n_samples, n_bootstrap, seed = paired_intervals(systems, test, n_samples, seed, n_bootstrap)
        check_stats(systems[0], "systems[0]", (self.min_len, self.max_len))  # the others match it
        return self._paired_scores(systems, results, test, n_samples, seed, n_bootstrap, nrefs)

    def checked_paired_scores(
        self, systems: Sequence[GleuStats], test: str, n_samples: int, seed: int | None, n_bootstrap: int, nrefs: str | int
    ) -> list[GleuScore]:
        """:meth:`paired_scores` of arguments already checked (``n_samples`` resolved)."""
        results, *_ = checked_paired_intervals(systems, test, n_samples, seed, n_bootstrap)
        return self._paired_scores(systems, results, test, n_samples, seed, n_bootstrap, nrefs)

    def _paired_scores(
        self, systems: Sequence[GleuStats], results: list, test: str, n_samples: int, seed: int | None, n_bootstrap: int,
        nrefs: str | int,
    ) -> list[GleuScore]:
        sig = self.signature(nrefs, n_samples, seed) if test == "bs" else self.signature(nrefs, n_bootstrap, seed, n_samples)
        return [GleuScore.from_stats(stats, sig, (low, high), p) for stats, (low, high, p) in zip(systems, results)]


def scorer_from_options(scorer: Any = None, options: Mapping[str, Any] | None = None, *, caller: str | None = None) -> GLEU:
    """``scorer``, else one built (and cached) from the settings among ``options``, else ``GLEU()``; other keywords
    are left to the caller, unless ``caller`` names a function that takes settings only.

    Example:
        >>> scorer_from_options(None, {"min_len": 2, "name": "gleu"})
        GLEU(tokenizer='13a', lowercase=False, min_len=2, max_len=4)
        >>> scorer_from_options(GLEU(), {"max_len": 2})
        Traceback (most recent call last):
        ...
        TypeError: pass the settings as scorer=GLEU(...) or as keywords, not both: got scorer and ['max_len']
    """
    settings = {key: options[key] for key in SETTINGS if key in options} if options else {}
    if caller is not None and options and len(settings) < len(options):
        unknown = sorted(set(options) - set(SETTINGS))
        raise TypeError(f"{caller}() got unexpected keyword arguments {unknown}; the settings are {', '.join(SETTINGS)}")
    if scorer is not None:
        check_type(scorer, GLEU, "scorer", "a google_bleu.GLEU (e.g. GLEU(tokenizer='char'))")
        if settings:
            raise TypeError(f"pass the settings as scorer=GLEU(...) or as keywords, not both: got scorer and {sorted(settings)}")
        return scorer
    try:
        hash(tuple(settings.values()))
    except TypeError:  # an unhashable setting (a callable tokenizer object): not cached
        return GLEU(**settings)
    return _cached_scorer(**settings)


# typed: True == 1 and 1.0 == 1, but only 1 is a valid order (and only False a valid
# lowercase), so equal settings of another type must reach GLEU's checks, not the cache.
@functools.lru_cache(maxsize=64, typed=True)
def _cached_scorer(**settings: Any) -> GLEU:
    return GLEU(**settings)
