"""The metric's definition on the token API: hand-computed cases, nltk's reference rule,
invariants, the statistics' own checks and bad input (both counting strategies)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import google_bleu
from google_bleu import GLEU, GleuStats, corpus_gleu, gleu_stats, sentence_gleu
from google_bleu.counting import ngram_counts
from google_bleu.tokens import check_tokens
from tests.helpers.oracles import nltk_corpus, nltk_sentence

pytestmark = pytest.mark.usefixtures("both_strategies")

CAT = "the cat sat on the mat".split()
CAT_REF = "the cat ate the mat".split()


def test_cat_example_as_exact_fractions():
    stats = gleu_stats([CAT], [[CAT_REF]])
    # 6 tokens -> 6+5+4+3 = 18 n-grams; 5 tokens -> 5+4+3+2 = 14.
    # Matches: unigrams the,the,cat,mat (4) + bigrams "the cat", "the mat" (2) = 6.
    assert stats.rows.tolist() == [[6, 18, 14, 18]]
    assert stats.score() == float(Fraction(6, 18))
    assert stats.precision() == float(Fraction(6, 18))
    assert stats.recall() == float(Fraction(6, 14))
    assert sentence_gleu([CAT_REF], CAT) == 1 / 3


def test_corpus_is_summed_not_averaged():
    a, b = "a b c d".split(), "x y".split()
    stats = gleu_stats([a, b], [[a], [["x", "z"]]])
    # Segment 1: 10/10; segment 2: "x" matches, 1 of max(3, 3).
    assert stats.rows.tolist() == [[10, 10, 10, 10], [1, 3, 3, 3]]
    assert stats.score() == 11 / 13
    assert stats.score() != np.mean(stats.sentence_scores())


def test_ngram_counts_follow_from_lengths():
    lengths = np.arange(0, 12)
    for lo in range(1, 5):
        for hi in range(lo, 7):
            expected = [sum(max(n - k + 1, 0) for k in range(lo, hi + 1)) for n in lengths]
            assert ngram_counts(lengths, lo, hi).tolist() == expected


def test_clipping_counts_repeats_once_per_reference_occurrence():
    hyp = "the the the the the the the".split()
    ref = "the cat is on the mat".split()
    # "the": min(7, 2) = 2; "the the" etc. absent from the reference. n_hyp = 7+6+5+4 = 22.
    assert gleu_stats([hyp], [[ref]]).rows.tolist() == [[2, 22, 18, 22]]
    assert sentence_gleu([ref], hyp) == 2 / 22


def test_best_reference_by_highest_ratio():
    hyp = ["a", "b", "c"]  # 6 n-grams
    worse = ["a", "x", "y"]  # 1 match / max(6, 6)
    better = ["a", "b", "y"]  # a, b, "a b" = 3 / max(6, 6)
    for refs in ([worse, better], [better, worse]):
        assert gleu_stats([hyp], [refs]).rows.tolist() == [[3, 6, 6, 6]]


def test_tied_ratios_keep_the_first_reference():
    hyp = ["a", "b", "c", "d"]  # unigrams only: 4
    short = ["a"]  # 1 / max(4, 1) = 1/4
    long = ["a", "b", "w", "x", "y", "z", "u", "v"]  # 2 / max(4, 8) = 1/4: same ratio, other n_all
    assert gleu_stats([hyp], [[short, long]], 1, 1).rows.tolist() == [[1, 4, 1, 4]]
    assert gleu_stats([hyp], [[long, short]], 1, 1).rows.tolist() == [[2, 4, 8, 8]]
    # The choice changes a corpus score once another segment is added, as in nltk.
    other = (["p", "q"], [["p", "r"]])
    first = corpus_gleu([[short, long], other[1]], [hyp, other[0]], 1, 1)
    second = corpus_gleu([[long, short], other[1]], [hyp, other[0]], 1, 1)
    assert (first, second) == (2 / 6, 3 / 10)


def test_segments_without_ngrams_are_left_out():
    stats = gleu_stats([[], ["a"]], [[[]], [["a"]]])
    assert stats.rows.tolist() == [[0, 0, 0, 0], [1, 1, 1, 1]]
    assert stats.score() == 1.0
    assert corpus_gleu([[[]]], [[]]) == 0.0
    assert sentence_gleu([[]], []) == 0.0
    assert corpus_gleu([], []) == 0.0


def test_empty_hypothesis_picks_first_nonempty_reference():
    stats = gleu_stats([[]], [[[], ["a", "b"], ["c"]]])
    assert stats.rows.tolist() == [[0, 0, 3, 3]]


def test_orders_longer_than_segments():
    assert gleu_stats([["a", "b"]], [[["a", "b"]]], 3, 5).rows.tolist() == [[0, 0, 0, 0]]
    assert gleu_stats([["a", "b", "c"]], [[["a", "b", "c"]]], 3, 5).rows.tolist() == [[1, 1, 1, 1]]


def test_integer_and_mixed_hashable_tokens():
    assert corpus_gleu([[[1, 2, 3]]], [[1, 2, 4]]) == 3 / 6
    assert corpus_gleu([[[(1, 2), "x"]]], [[(1, 2), "x"]]) == 1.0
    assert corpus_gleu([[np.array([5, 6, 7])]], [np.array([5, 6, 7])]) == 1.0


# -- nltk's reference rule ---------------------------------------------------------------

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


@settings(max_examples=150, deadline=None)
@given(st.lists(segment, max_size=10))
def test_sequences_of_every_kind_give_the_same_rows(segments):
    hyps = [h for h, _ in segments]
    refs = [r for _, r in segments]
    expected = gleu_stats(hyps, refs)
    as_tuples = gleu_stats(tuple(map(tuple, hyps)), tuple(tuple(map(tuple, r)) for r in refs))
    mixed = gleu_stats([tuple(h) if i % 2 else h for i, h in enumerate(hyps)], [list(map(tuple, r)) for r in refs])
    assert as_tuples == expected == mixed
    assert expected.score() == nltk_corpus(refs, hyps)


def test_numpy_token_arrays_take_the_slow_path_and_agree():
    hyps = [np.array([1, 2, 3]), np.array([2, 2])]
    refs = [[np.array([1, 2, 4])], [np.array([2]), np.array([2, 2, 2])]]
    plain_hyps = [h.tolist() for h in hyps]
    plain_refs = [[r.tolist() for r in rs] for rs in refs]
    assert gleu_stats(hyps, refs) == gleu_stats(plain_hyps, plain_refs)
    assert corpus_gleu(refs, hyps) == nltk_corpus(plain_refs, plain_hyps)


# -- the statistics ---------------------------------------------------------------------


def test_stats_add_sum_total_and_dict_round_trip():
    hyps = [CAT, ["a", "b"], []]
    refs = [[CAT_REF], [["a"], ["b", "a"]], [["z"]]]
    stats = gleu_stats(hyps, refs)
    parts = [stats[i : i + 1] for i in range(len(stats))]
    assert sum(parts) == stats
    assert GleuStats.concatenate(parts) == stats
    total = stats.total()
    assert len(total) == 1
    assert (total.score(), total.precision(), total.recall()) == (stats.score(), stats.precision(), stats.recall())
    assert GleuStats.from_dict(stats.to_dict()) == total
    with pytest.raises(ValueError, match="different orders"):
        stats + gleu_stats(hyps, refs, 1, 3)


def test_permutation_invariance():
    rng = np.random.default_rng(7)
    hyps = [list(rng.integers(0, 5, rng.integers(0, 10))) for _ in range(200)]
    refs = [[list(rng.integers(0, 5, rng.integers(0, 10))) for _ in range(rng.integers(1, 3))] for _ in range(200)]
    order = rng.permutation(200)
    forward = gleu_stats(hyps, refs)
    permuted = gleu_stats([hyps[i] for i in order], [refs[i] for i in order])
    assert permuted.score() == forward.score()
    assert permuted.rows.tolist() == forward.rows[order].tolist()


def test_reference_index_follows_slices_and_sums():
    stats = GLEU().stats(["a b", "c d", "e"], [["x", "a b"], ["c d"], ["y", "z", "e"]])
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
        ([[1.0, 1, 1, 1]], "must be a row of 4 integers"),
        (np.array([[1.0, 1, 1, 1]]), "must hold integers"),
        ([[1, 1, 1]], "must be a row of 4 integers"),
        (np.zeros((1, 3), np.int64), "shape"),
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


# -- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (([["a"]], [[["a"]], [["b"]]]), ValueError, "got 1 hypotheses but 2 reference lists"),
        ((["a b"], [[["a"]]]), TypeError, "hypothesis 0 is a str"),
        (("a b", [[["a"]]]), TypeError, "hypotheses must be a sequence"),
        (([["a"]], [[]]), ValueError, "segment 0 has no reference"),
        (([["a"]], [["a b"]]), TypeError, "reference 0 of segment 0 must be a token sequence"),
        (([["a"]], ["a"]), TypeError, "references of segment 0 must be a sequence"),
        (([[["x"]]], [[["a"]]]), TypeError, "tokens must be hashable"),
        (([[1]], [[[2]]], 0, 4), ValueError, "min_len must be >= 1"),
        (([[1]], [[[2]]], 3, 2), ValueError, "max_len must be >= min_len"),
        (([[1]], [[[2]]], 1, 10**9), ValueError, "max_len must be <="),
        (([[1]], [[[2]]], 1.0, 4), TypeError, "min_len must be an integer"),
        (([[1]], [[[2]]], 1, "4"), TypeError, "max_len must be an integer"),
        (([[1]], [[[2]]], True, 4), TypeError, "min_len must be an integer"),
    ],
)
def test_bad_input_raises_clear_errors(args, error, message):
    with pytest.raises(error, match=message):
        gleu_stats(*args)


@pytest.mark.parametrize(
    ("hyps", "refs", "error", "message"),
    [
        ([["a"], "b c"], [[["a"]], [["b"]]], TypeError, "hypothesis 1 is a str, not a token sequence"),
        ([["a"], 5], [[["a"]], [["b"]]], TypeError, "hypothesis 1 must be a sequence of tokens, got int 5"),
        ([["a"], ["b"]], [[["a"]], []], ValueError, "segment 1 has no reference"),
        ([["a"]], [[["a"], "a b"]], TypeError, "reference 1 of segment 0 must be a token sequence"),
        ([["a"]], ["a"], TypeError, "references of segment 0 must be a sequence of token sequences"),
        ([["a", ["x"]]], [[["a"]]], TypeError, "tokens must be hashable"),
    ],
)
def test_messages_are_unchanged_by_the_fast_path(hyps, refs, error, message):
    with pytest.raises(error, match=message):
        gleu_stats(hyps, refs)


def test_check_tokens_returns_lists_on_both_paths():
    assert check_tokens((("a",),), ((("a",),),)) == ([("a",)], [(("a",),)])
    assert check_tokens([np.array([1])], [[[1]]])[1] == [[[1]]]


def test_numpy_integer_orders_accepted():
    assert corpus_gleu([[["a", "b"]]], [["a", "b"]], np.int64(1), np.int32(2)) == 1.0


def test_import_is_light():
    import subprocess
    import sys

    code = "import sys, google_bleu; print(sorted(m for m in ('evaluate', 'datasets', 'sacrebleu', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_id_tensors_in_the_token_api_score_as_ids():
    torch = pytest.importorskip("torch")
    hyp, ref = torch.tensor([5, 6, 7, 8]), torch.tensor([5, 6, 7, 9])
    as_lists = gleu_stats([[5, 6, 7, 8]], [[[5, 6, 7, 9]]])
    assert gleu_stats([hyp], [[ref]]) == as_lists
    assert sentence_gleu([ref], hyp) == sentence_gleu([[5, 6, 7, 9]], [5, 6, 7, 8]) == as_lists.score()
    assert corpus_gleu([[ref.clone()]], [hyp.clone()]) == as_lists.score()
    assert google_bleu.explain(hyp, [ref]).row == tuple(as_lists.rows[0].tolist())
    # The same input through the id functions gives the same number.
    from google_bleu.ids import batch_sentence_gleu

    assert batch_sentence_gleu(hyp[None], ref[None, None]).tolist() == [as_lists.score()]
    with pytest.raises(ValueError, match="hypothesis 0 must be a 1-D tensor"):
        gleu_stats([hyp[None]], [[ref]])


def test_tensor_tokens_inside_lists_are_refused_not_scored_zero():
    torch = pytest.importorskip("torch")
    ids = torch.tensor([5, 6, 7])
    # list(tensor) holds 0-d tensors, which hash by identity: equal ids would never match.
    with pytest.raises(TypeError, match="tokens are torch tensors.*google_bleu.ids"):
        sentence_gleu([list(ids)], list(ids.clone()))
    with pytest.raises(TypeError, match="tokens are torch tensors"):
        google_bleu.explain(list(ids), [list(ids.clone())])
