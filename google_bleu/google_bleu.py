"""Google-BLEU (GLEU, Wu et al. 2016) as a HuggingFace ``evaluate`` metric (docs/porting.md, "From evaluate")."""

from __future__ import annotations

import dataclasses
from typing import Any

import datasets
import evaluate

# A name from every core module, at column 0: evaluate.load copies only these (docs/design.md, "Layers and
# rooms"). No comment may follow an import line (evaluate reads it as a download URL).
from .counting import count_matches
from .fast13a import tokenize_13a
from .imports import lazy_module
from .keys import group_keys
from .result import GleuScore
from .settings import GLEU, SETTINGS, scorer_from_options
from .signature import count_references
from .significance import DEFAULT_SEED, check_bootstrap
from .stats import GleuStats
from .text import checked_text_stats
from .tokenizers import get_tokenizer
from .tokens import gleu_stats
from .validation import check_bool, check_texts, check_utf8
from .version import CITATION, __version__

__all__ = [
    "GoogleBleu", "GLEU", "GleuScore", "GleuStats", "count_matches", "count_references", "get_tokenizer", "group_keys",
    "checked_text_stats", "gleu_stats", "lazy_module", "tokenize_13a", "__version__",
]

_DESCRIPTION = """\
Google-BLEU (GLEU) from the GNMT paper (Wu et al. 2016). For each segment, all n-grams of
orders min_len..max_len (default 1..4) of the prediction and the reference are counted;
GLEU is min(precision, recall) = matches / max(prediction n-grams, reference n-grams).
The corpus score sums matches and max(prediction n-grams, reference n-grams) over the
segments before dividing. With several references, each segment keeps the reference with
the highest ratio (the first one on a tie), as nltk does. Numbers are identical to nltk's
corpus_gleu/sentence_gleu on the same tokens and to HF's google_bleu on the same text.
This is not the grammatical-error-correction GLEU of Napoles et al. (2015).
"""

_KWARGS_DESCRIPTION = """\
Computes corpus Google-BLEU, corpus precision and recall, and optionally sentence scores.

Args:
    predictions (list of str): translations to score (a list, tuple, numpy array, pandas
        Series or datasets column; dicts, sets, generators and DataFrames are refused).
    references (list of list of str | list of str): one or more references per prediction
        (the count may vary), or one string per prediction.
    tokenizer (str or callable): "13a" (default), "none", "intl", "zh", "char",
        "ja-mecab", "ko-mecab", "spm", "flores101", "flores200", or any callable
        str -> list[str].
    min_len (int): lowest n-gram order, default 1.
    max_len (int): highest n-gram order, default 4.
    lowercase (bool): lowercase before tokenizing, default False.
    return_sentence_scores (bool): also return one score per prediction, default False.
    n_bootstrap (int): when given, add a 95% bootstrap confidence interval from this many
        resamples of the segments' statistics (sacrebleu uses 1000; at most 1,000,000),
        default None.
    seed (int): seed of the bootstrap's local generator, default 12345 (None: fresh entropy).

Every argument is checked before evaluate reads (and clears) what add/add_batch stored,
so a rejected compute() keeps the added data for the next call; an error while scoring (a
tokenizer failing on a stored line, Ctrl-C) loses it, as in any evaluate metric. compute() with nothing
added and no predictions raises a ValueError; an explicitly empty corpus
(predictions=[], references=[]) scores 0.0, as nltk's corpus_gleu.

Returns:
    'google_bleu': corpus GLEU (0.0 for an empty corpus),
    'precision': corpus n-gram precision against the chosen references,
    'recall': corpus n-gram recall against the chosen references,
    'signature': settings that determine the score,
    'sentence_scores': (only when asked) list of float, one per prediction, in order.
    'ci_low', 'ci_high': (only with n_bootstrap) the 95% percentile bootstrap interval;
        'google_bleu' stays the full-corpus score and the signature gains bs:N|seed:S.

Examples:
    Example 1:
        >>> predictions = ['It is a guide to action which ensures that the rubber duck always disobeys the commands of the cat', \
        'he read the book because he was interested in world history']
        >>> references = [['It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat'], \
        ['he was interested in world history because he read the book']]
        >>> google_bleu = evaluate.load("google_bleu")
        >>> results = google_bleu.compute(predictions=predictions, references=references)
        >>> print(round(results["google_bleu"], 2))
        0.44

    Example 2 (several references for the first prediction):
        >>> references = [['It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat', \
        'It is a guide to action that ensures that the rubber duck will never heed the cat commands', \
        'It is the practical guide for the rubber duck army never to heed the directions of the cat'], \
        ['he was interested in world history because he read the book']]
        >>> results = google_bleu.compute(predictions=predictions, references=references)
        >>> print(round(results["google_bleu"], 2))
        0.61

    Example 3 (min_len=2):
        >>> results = google_bleu.compute(predictions=predictions, references=references, min_len=2)
        >>> print(round(results["google_bleu"], 2))
        0.53

    Example 4 (min_len=2, max_len=6):
        >>> results = google_bleu.compute(predictions=predictions, references=references, min_len=2, max_len=6)
        >>> print(round(results["google_bleu"], 2))
        0.4

    Sentence scores:
        >>> results = google_bleu.compute(predictions=["the cat sat on the mat"],
        ...     references=[["the cat ate the mat"]], return_sentence_scores=True)
        >>> results["sentence_scores"], round(results["precision"], 4), round(results["recall"], 4)
        ([0.3333333333333333], 0.3333, 0.4286)

    Confidence interval (bootstrap over segments, seeded):
        >>> results = google_bleu.compute(predictions=predictions, references=references, n_bootstrap=1000)
        >>> results["ci_low"] <= results["google_bleu"] <= results["ci_high"], results["signature"].split("|")[4:6]
        (True, ['bs:1000', 'seed:12345'])
"""


@dataclasses.dataclass(frozen=True)
class ComputeOptions:
    """The options of ``compute``, checked (all of them) before any data is consumed."""

    scorer: GLEU
    return_sentence_scores: bool = False
    n_bootstrap: int | None = None
    seed: int | None = DEFAULT_SEED

    @classmethod
    def from_kwargs(cls, kwargs: dict[str, Any]) -> ComputeOptions:
        """Checks ``compute``'s keyword arguments and builds the scorer once."""
        unknown = sorted(set(kwargs) - {*SETTINGS, "return_sentence_scores", "n_bootstrap", "seed"})
        if unknown:
            raise TypeError(f"compute() got unknown arguments {unknown}")
        scorer = scorer_from_options(None, kwargs)
        if scorer.tokenizer.checked:
            # A callable's output is checked when it runs: now, before the stored data is read.
            scorer.tokenizer("a b")
        n_bootstrap, seed = check_bootstrap(kwargs.get("n_bootstrap"), kwargs.get("seed", DEFAULT_SEED))
        return cls(scorer, check_bool(kwargs.get("return_sentence_scores", False), "return_sentence_scores"), n_bootstrap, seed)


def _check_keywords(method: str, kwargs: dict[str, Any], meant: dict[str, str], other: str) -> None:
    # add() takes prediction=, add_batch() and compute() predictions=: the other spelling would arrive as None.
    for given, keyword in meant.items():
        if given in kwargs:
            raise TypeError(f"{method}() takes {keyword}=, not {given}= ({other}() takes {given}=)")


def _checked(predictions: Any, references: Any) -> tuple[list[str], list[list[str]]]:
    # Before evaluate's Arrow encoding, which fails on a lone surrogate without naming the segment.
    predictions, references = check_texts(predictions, references)
    check_utf8(predictions, references)
    return predictions, references


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GoogleBleu(evaluate.Metric):
    """Google-BLEU metric: exact nltk/HF numbers plus precision, recall and sentence scores."""

    def _info(self) -> evaluate.MetricInfo:
        text = datasets.Value("string", id="sequence")
        return evaluate.MetricInfo(
            description=_DESCRIPTION, citation=CITATION, inputs_description=_KWARGS_DESCRIPTION,
            features=[  # references as lists, or one string per prediction
                datasets.Features({"predictions": text, "references": datasets.Sequence(text, id="references")}),
                datasets.Features({"predictions": text, "references": text}),
            ],
            codebase_urls=["https://github.com/nltk/nltk/blob/develop/nltk/translate/gleu_score.py"],
            reference_urls=["https://arxiv.org/abs/1609.08144"],
        )

    # References are normalised to lists, so batches of either shape can be mixed.
    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Adds a batch of predictions and references (validated first)."""
        _check_keywords("add_batch", kwargs, {"prediction": "predictions", "reference": "references"}, "add")
        predictions, references = _checked(predictions, references)
        if predictions:
            super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Adds one prediction and its reference(s) (validated first)."""
        _check_keywords("add", kwargs, {"predictions": "prediction", "references": "reference"}, "add_batch")
        predictions, references = _checked([prediction], [reference])
        super().add(prediction=predictions[0], reference=references[0], **kwargs)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """Scores these inputs and everything added; every argument is checked first, so a rejected call keeps those."""
        options = ComputeOptions.from_kwargs(kwargs)
        if predictions is not None or references is not None:
            predictions, references = _checked(predictions, references)
        added = self.writer is not None  # evaluate opens its writer at the first add (tests/surfaces/test_metric.py)
        if not added and not predictions:
            if self.num_process > 1:
                # Process 0 would wait for this process's cache file until evaluate's timeout.
                raise ValueError(f"process {self.process_id} of {self.num_process} added no prediction: in evaluate's distributed mode every process must add at least one before compute()")
            if predictions is None:
                raise ValueError("nothing to compute: no prediction was added (add/add_batch) or given to compute(); an empty corpus is scored by compute(predictions=[], references=[]) and gives 0.0")
            # evaluate cannot store an empty batch; an empty corpus scores 0.0 as in nltk.
            return self._compute(predictions=[], references=[], options=options)
        if not added and self.num_process == 1:  # evaluate's cache would hand these lists back, at a scoring's cost
            return self._compute(predictions, references, options)
        if predictions:  # checked above: stored without a second check
            super().add_batch(predictions=predictions, references=references)
        return super().compute(options=options)

    def _compute(self, predictions: list[str], references: list[list[str]], options: ComputeOptions) -> dict[str, Any]:
        scorer = options.scorer
        stats = scorer.checked_stats(predictions, references)
        score = scorer.checked_score(stats, count_references(references), options.n_bootstrap, options.seed)
        values = score.to_dict()
        out = {key: values[key] for key in ("google_bleu", "precision", "recall", "signature")}
        if options.return_sentence_scores:
            out["sentence_scores"] = stats.sentence_scores().tolist()
        out.update({key: values[key] for key in ("ci_low", "ci_high") if key in values})
        return out
