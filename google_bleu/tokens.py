"""Google-BLEU on token sequences: statistics, corpus score and sentence score.

``corpus_gleu`` and ``sentence_gleu`` are drop-in replacements for nltk's functions of
the same names (``nltk.translate.gleu_score``) and return exactly the same floats.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from .counting import segment_rows
from .imports import lazy_module
from .stats import GleuStats
from .validation import check_orders, check_tokens, unhashable_token

np = lazy_module("numpy")

Tokens = Sequence[Hashable]

def gleu_stats(
    hypotheses: Sequence[Tokens], list_of_references: Sequence[Sequence[Tokens]], min_len: int = 1, max_len: int = 4
) -> GleuStats:
    """Per-segment sufficient statistics of Google-BLEU, one row per segment, in order: one
    token sequence (of any hashable tokens) per segment, and per segment one or more reference
    token sequences.

    Raises:
        TypeError, ValueError: For a bare string where tokens are expected, unhashable
            tokens, mismatched counts, a segment without references, or bad orders.

    Example:
        >>> stats = gleu_stats(["the cat sat on the mat".split()], [["the cat ate the mat".split()]])
        >>> stats.rows.tolist()
        [[6, 18, 14, 18]]
        >>> stats.score(), stats.precision(), stats.recall()
        (0.3333333333333333, 0.3333333333333333, 0.42857142857142855)
    """
    min_len, max_len = check_orders(min_len, max_len)
    hypotheses, list_of_references = check_tokens(hypotheses, list_of_references)
    try:
        rows, chosen = segment_rows(hypotheses, list_of_references, min_len, max_len)
    except TypeError:  # an unhashable token: say where (the common path never looks)
        where = unhashable_token(hypotheses, list_of_references)
        if where is None:
            raise
        raise TypeError(f"tokens must be hashable (e.g. str or int): {where}") from None
    return GleuStats.trusted(rows, min_len, max_len, chosen)


def corpus_gleu(
    list_of_references: Sequence[Sequence[Tokens]], hypotheses: Sequence[Tokens], min_len: int = 1, max_len: int = 4
) -> float:
    """Corpus-level GLEU, identical to ``nltk.translate.gleu_score.corpus_gleu`` (arguments as
    :func:`gleu_stats`, in nltk's order): summed matches over summed ``max(hypothesis
    n-grams, reference n-grams)``, not a mean of sentence scores; 0.0 for an empty corpus.

    Example:
        >>> hyp = "the cat sat on the mat".split()
        >>> corpus_gleu([["the cat ate the mat".split()]], [hyp])
        0.3333333333333333
        >>> corpus_gleu([], [])
        0.0
    """
    return gleu_stats(hypotheses, list_of_references, min_len, max_len).score()


def sentence_gleu(references: Sequence[Tokens], hypothesis: Tokens, min_len: int = 1, max_len: int = 4) -> float:
    """Sentence-level GLEU, identical to ``nltk.translate.gleu_score.sentence_gleu``:
    ``min(precision, recall)`` against the best of ``references`` (token sequences).

    Example:
        >>> sentence_gleu(["the cat is on the mat".split()], "the the the the the the the".split())
        0.09090909090909091
    """
    return corpus_gleu([references], [hypothesis], min_len, max_len)
