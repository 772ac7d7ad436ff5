"""The counting engine's outputs beyond the rows: the chosen reference, checked statistics,
linear cost on long tokens, and NUL characters in text."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from google_bleu import GleuStats, gleu_stats, text_stats
from google_bleu.engine import ngram_counts
from tests.helpers.oracles import nltk_corpus, nltk_sentence, tokenize_13a

pytestmark = pytest.mark.usefixtures("both_strategies")

tokens = st.lists(st.sampled_from(["a", "b", "c", 0, 1]), max_size=7)
segment = st.tuples(tokens, st.lists(tokens, min_size=1, max_size=5))


def nltk_choice(hypothesis, references, min_len, max_len):
    """nltk's reference: the first with the highest tp / n_all among those with n_all > 0."""
    n_hyp = int(ngram_counts(np.array([len(hypothesis)]), min_len, max_len)[0])
    best, best_ratio = -1, None
    for index, reference in enumerate(references):
        n_ref = int(ngram_counts(np.array([len(reference)]), min_len, max_len)[0])
        if max(n_hyp, n_ref) == 0:
            continue
        ratio = nltk_sentence([reference], hypothesis, min_len, max_len)  # tp / n_all, as nltk's key
        if best_ratio is None or ratio > best_ratio:
            best, best_ratio = index, ratio
    return best


@settings(max_examples=300, deadline=None)
@given(st.lists(segment, max_size=8), st.integers(1, 3), st.integers(0, 2))
def test_chosen_reference_is_nltks_choice(segments, min_len, extra):
    # Small alphabets make ties of ratio common, with equal and with different n_all.
    max_len = min_len + extra
    hyps = [h for h, _ in segments]
    refs = [r for _, r in segments]
    stats = gleu_stats(hyps, refs, min_len, max_len)
    expected = [nltk_choice(h, r, min_len, max_len) for h, r in segments]
    assert stats.reference_index.tolist() == expected
    for row, chosen, (h, r) in zip(stats.rows.tolist(), expected, segments):
        if chosen >= 0:  # the row is the chosen reference's row
            assert row == gleu_stats([h], [[r[chosen]]], min_len, max_len).rows[0].tolist()
        else:
            assert row == [0, 0, 0, 0]
    assert stats.score() == nltk_corpus(refs, hyps, min_len, max_len)


def test_ties_keep_the_first_reference_index():
    hyp = ["a", "b"]
    short, spread = ["a"], ["a", "x", "b"]  # ratios 1/3 and 2/6
    assert gleu_stats([hyp], [[short, spread]]).reference_index.tolist() == [0]
    assert gleu_stats([hyp], [[spread, short]]).reference_index.tolist() == [0]
    assert gleu_stats([hyp, []], [[["z"], spread, short], [[]]]).reference_index.tolist() == [1, -1]


def test_reference_index_follows_slices_and_sums():
    stats = text_stats(["a b", "c d", "e"], [["x", "a b"], ["c d"], ["y", "z", "e"]])
    assert stats.reference_index.tolist() == [1, 0, 2]
    assert stats[1:].reference_index.tolist() == [0, 2]
    assert stats[2].reference_index.tolist() == [2]
    assert (stats[:1] + stats[1:]).reference_index.tolist() == [1, 0, 2]
    assert stats.total().reference_index is None
    assert GleuStats(stats.rows).reference_index is None
    assert (stats + GleuStats(stats.rows)).reference_index is None  # unknown for some segments


@pytest.mark.parametrize(
    "rows, message",
    [
        ([[5, 1, 1, 1]], "not a GLEU statistics row"),
        ([[0, 3, 2, 2]], "not a GLEU statistics row"),  # n_all below max(n_hyp, n_ref)
        ([[0, 3, 2, 6]], "not a GLEU statistics row"),  # n_all above n_hyp + n_ref
        ([[-1, 0, 0, 0]], "from 0 to 2**63 - 1"),
        (np.array([[2**64 - 1, 0, 0, 0]], np.uint64), "from 0 to 2**63 - 1"),
        ([[2**70, 0, 0, 0]], "from 0 to 2**63 - 1"),
        ([[2**62, 2**62, 2**62, 2**62]] * 2, "do not fit in int64"),
        ([[1.0, 1, 1, 1]], "must hold integers"),
        ([[1, 1, 1]], "shape"),
    ],
)
def test_impossible_statistics_are_refused(rows, message):
    with pytest.raises((ValueError, TypeError), match="rows|totals") as error:
        GleuStats(rows)
    assert message in str(error.value)


def test_sums_of_valid_statistics_are_valid_and_checked():
    a = GleuStats([[2**61, 2**61, 2**61, 2**61]])
    summed = GleuStats.from_dict({**a.to_dict()})
    assert summed == a.total()
    with pytest.raises(ValueError, match="do not fit in int64"):
        GleuStats.concatenate([a] * 4)
    # Rows of sums (n_all between max and n_hyp + n_ref) are statistics too.
    assert GleuStats([[3, 4, 5, 7]]).score() == 3 / 7


def test_one_long_token_costs_linear_passes():
    # A token of a million characters is hashed and checked in a few numpy passes.
    long = "x" * 1_000_000
    stats = gleu_stats([[long, "a"], [long + "y"]], [[[long]], [[long + "z"]]])
    assert stats.rows.tolist() == [[1, 3, 1, 3], [0, 1, 1, 1]]


def test_nul_characters_in_text_are_token_characters():
    # sacrebleu's 13a keeps NUL inside tokens (it is not whitespace for str.split).
    for prediction, reference in [("\x00a", "a"), ("a \x00 b", "a b"), ("a\x00", "a\x00 b"), ("\x00", "\x00")]:
        hyp, ref = tokenize_13a(prediction), tokenize_13a(reference)
        got = text_stats([prediction], [reference])
        assert got.score() == nltk_corpus([[ref]], [hyp]), (prediction, reference)
        assert got.sentence_scores().tolist() == [nltk_sentence([ref], hyp)]
