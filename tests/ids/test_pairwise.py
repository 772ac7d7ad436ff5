"""pairwise_gleu and mbr_select against loops of nltk's sentence_gleu, entry by entry (``==``)."""

from __future__ import annotations

import math
import subprocess
import sys
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import google_bleu
import google_bleu.ids.matrix as pairwise_module
from google_bleu.ids import mbr_select, pairwise_gleu
from tests.helpers.oracles import REPO, SAMPLES, nltk_sentence, read_lines, tokenize_13a

# -- oracles ----------------------------------------------------------------------------


def nltk_matrix(hypotheses, references, min_len=1, max_len=4) -> np.ndarray:
    """nltk ``sentence_gleu([reference], hypothesis)`` of every pair, in a Python loop."""
    scores = [[nltk_sentence([ref], hyp, min_len, max_len) for ref in references] for hyp in hypotheses]
    return np.array(scores, np.float64).reshape(len(hypotheses), len(references))


def brute_mbr(candidates, references, weights, exclude_self):
    """MBR by definition, in Fractions: the weighted mean of nltk's sentence scores over the
    references, exact, rounded once."""
    expected = []
    for i, hyp in enumerate(candidates):
        others = [j for j in range(len(references)) if not (exclude_self and j == i)]
        numerator = sum(Fraction(weights[j]) * Fraction(nltk_sentence([references[j]], hyp)) for j in others)
        denominator = sum(Fraction(weights[j]) for j in others)
        expected.append(float(numerator / denominator) if denominator > 0 else 0.0)
    return expected.index(max(expected)), expected


# Every way the engine may split the work: the default, every column through the dense
# product, every column as direct pair counts, and tiny blocks and chunks.
SPLITS = {
    "default": {},
    "all dense": {"DENSE_RATIO": 1 << 40},
    "all pairs": {"DENSE_RATIO": 0, "PAIR_CHUNK": 1 << 40},
    "tiny blocks": {"BLOCK_ELEMENTS": 1, "PAIR_CHUNK": 1, "DENSE_RATIO": 2},
}


@contextmanager
def split(name: str):
    with pytest.MonkeyPatch.context() as patch:
        for constant, value in SPLITS[name].items():
            patch.setattr(pairwise_module, constant, value)
        yield


# -- property-based differential tests -----------------------------------------------------

# Few distinct ids (many repeats and ties), id 0, and ids near the int64 limits.
token_ids = st.sampled_from([0, 1, 2, 3, 7, 2**62, -(2**62), 2**63 - 1])
id_rows = st.lists(st.lists(token_ids, max_size=9), max_size=7)
orders = st.integers(1, 4).flatmap(lambda low: st.tuples(st.just(low), st.integers(low, 6)))


@settings(max_examples=150, deadline=None)
@given(hyps=id_rows, refs=st.one_of(st.none(), id_rows), order=orders, how=st.sampled_from(sorted(SPLITS)))
def test_token_lists_equal_nltk(hyps, refs, order, how):
    with split(how):
        got = pairwise_gleu(hyps, refs, min_len=order[0], max_len=order[1])
    expected = nltk_matrix(hyps, hyps if refs is None else refs, *order)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    assert got.shape == expected.shape
    assert (got == expected).all()


# str tokens: short and long (over 8 UTF-8 bytes, hashed by the engine), non-ASCII, repeats.
str_tokens = st.sampled_from(["a", "b", "the", "Übersetzung", "x" * 9, "x" * 17, "日本語のテキスト", ""])


@settings(max_examples=100, deadline=None)
@given(
    hyps=st.lists(st.lists(str_tokens, max_size=8), max_size=6),
    refs=st.one_of(st.none(), st.lists(st.lists(str_tokens, max_size=8), max_size=6)),
    order=orders,
    how=st.sampled_from(sorted(SPLITS)),
)
def test_str_tokens_equal_nltk(hyps, refs, order, how):
    with split(how):
        got = pairwise_gleu(hyps, refs, min_len=order[0], max_len=order[1])
    assert (got == nltk_matrix(hyps, hyps if refs is None else refs, *order)).all()


def padded(rows, pad_id, width_extra=0, left=False):
    width = max([len(row) for row in rows] + [0]) + width_extra
    matrix = torch.full((len(rows), width), pad_id, dtype=torch.int64)
    for i, row in enumerate(rows):
        if row:
            values = torch.tensor(row, dtype=torch.int64)
            if left:
                matrix[i, width - len(row) :] = values
            else:
                matrix[i, : len(row)] = values
    return matrix


non_pad_ids = st.sampled_from([0, 1, 2, 5, 2**62, -(2**62)])
tensor_rows = st.lists(st.lists(non_pad_ids, max_size=8), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(
    hyps=tensor_rows,
    refs=st.one_of(st.none(), tensor_rows),
    order=orders,
    extra=st.integers(0, 3),
    left=st.booleans(),
    how=st.sampled_from(sorted(SPLITS)),
)
def test_padded_cpu_tensors_equal_nltk(hyps, refs, order, extra, left, how):
    hyp_t = padded(hyps, -1, extra, left)
    ref_t = None if refs is None else padded(refs, -1, extra + 1, left)
    with split(how):
        got = pairwise_gleu(hyp_t, ref_t, pad_id=-1, min_len=order[0], max_len=order[1])
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float64 and got.device == hyp_t.device
    assert (got.numpy() == nltk_matrix(hyps, hyps if refs is None else refs, *order)).all()


@settings(max_examples=60, deadline=None)
@given(hyps=tensor_rows, refs=tensor_rows, garbage=st.sampled_from([-1, 0, 5]))
def test_lengths_select_the_ids_whatever_the_padding_value(hyps, refs, garbage):
    # Right padding with a value that is also a real token: only lengths can tell.
    hyp_t, ref_t = padded(hyps, garbage, 2), padded(refs, garbage, 1)
    got = pairwise_gleu(
        hyp_t,
        ref_t,
        hypothesis_lengths=torch.tensor([len(row) for row in hyps]),
        reference_lengths=[len(row) for row in refs],
    )
    assert (got.numpy() == nltk_matrix(hyps, refs)).all()


def test_pad_id_and_lengths_together_and_id_zero_is_a_token():
    hyps = torch.tensor([[0, 0, 1, -1], [0, 1, 9, 9]])
    got = pairwise_gleu(hyps, pad_id=-1, hypothesis_lengths=torch.tensor([4, 2]))
    assert (got.numpy() == nltk_matrix([[0, 0, 1], [0, 1]], [[0, 0, 1], [0, 1]])).all()


def test_token_lists_of_tensors_and_arrays_are_read_as_ids():
    rows = [[3, 4, 5], [3, 4], [5]]
    for convert in (torch.tensor, np.array):
        got = pairwise_gleu([convert(row) for row in rows])
        assert isinstance(got, np.ndarray)
        assert (got == nltk_matrix(rows, rows)).all()
    got = pairwise_gleu([[3, 4, 5, -100], [3, 4, -100]], pad_id=-100)
    assert (got == nltk_matrix(rows[:2], rows[:2])).all()


# -- text -------------------------------------------------------------------------------------


def test_text_is_tokenized_with_13a_by_default():
    texts = ["Hello, world!", "Hello world.", "It costs 1,000.50 &amp; 5-6 days.", "", "   "]
    refs = ["hello , world !", "It costs 1,000.50 & 5-6 days"]
    tokens = [tokenize_13a(text) for text in texts]
    assert (pairwise_gleu(texts) == nltk_matrix(tokens, tokens)).all()
    assert (pairwise_gleu(texts, refs) == nltk_matrix(tokens, [tokenize_13a(r) for r in refs])).all()


def test_text_options_lowercase_named_and_callable_tokenizers():
    texts = ["The Cat sat.", "the cat SAT .", "a-b c"]
    lower = [tokenize_13a(text.lower()) for text in texts]
    assert (pairwise_gleu(texts, lowercase=True) == nltk_matrix(lower, lower)).all()
    chars = [list(text.replace(" ", "")) for text in texts]
    assert (pairwise_gleu(texts, tokenizer="char") == nltk_matrix(chars, chars)).all()
    split_tokens = [text.split() for text in texts]
    assert (pairwise_gleu(texts, tokenizer=str.split) == nltk_matrix(split_tokens, split_tokens)).all()


def test_duplicates_and_the_diagonal():
    texts = ["a b c", "a b c", "x", "", "a b c d"]
    got = pairwise_gleu(texts)
    tokens = [text.split() for text in texts]
    assert (got == nltk_matrix(tokens, tokens)).all()
    assert got[0, 1] == got[1, 0] == 1.0 and got[3, 3] == 0.0  # no n-gram: 0.0 as nltk


def test_empty_sides():
    assert pairwise_gleu([]).shape == (0, 0)
    assert pairwise_gleu([], ["a"]).shape == (0, 1)
    assert pairwise_gleu(["a b"], []).shape == (1, 0)
    assert pairwise_gleu(torch.zeros((0, 3), dtype=torch.int64)).shape == (0, 0)


# -- real data ----------------------------------------------------------------------------------


def test_bundled_sample_systems_as_candidates():
    folder = SAMPLES / "wmt17_en_de"
    systems = [read_lines(path) for path in sorted(folder.glob("sys_*.txt"))]
    reference = read_lines(folder / "ref0.txt")
    for segment in range(0, len(reference), 7):
        candidates = [system[segment] for system in systems]
        tokens = [tokenize_13a(text) for text in candidates]
        assert (pairwise_gleu(candidates) == nltk_matrix(tokens, tokens)).all(), segment
    # Every candidate of 30 segments against every reference of them.
    hyps = [system[s] for system in systems for s in range(30)]
    refs = reference[:30]
    expected = nltk_matrix([tokenize_13a(h) for h in hyps], [tokenize_13a(r) for r in refs])
    assert (pairwise_gleu(hyps, refs) == expected).all()


@pytest.mark.slow
def test_every_wmt17_system_as_candidates_of_the_same_segment(shared_data):
    folder = shared_data / "wmt17_en_de"
    systems = [read_lines(path) for path in sorted(folder.glob("sys_*.txt"))]
    reference = read_lines(folder / "ref0.txt")
    assert len(systems) == 16
    rng = np.random.default_rng(0)
    for segment in sorted(rng.choice(len(reference), 60, replace=False).tolist()):
        candidates = [system[segment] for system in systems]
        tokens = [tokenize_13a(text) for text in candidates]
        assert (pairwise_gleu(candidates) == nltk_matrix(tokens, tokens)).all(), segment
        ids = [[hash(token) % 1000 for token in row] for row in tokens]  # as ids: collisions are fine
        got = pairwise_gleu(padded(ids, -1), pad_id=-1)
        assert (got.numpy() == nltk_matrix(ids, ids)).all(), segment
        best = mbr_select(candidates)
        assert (best.index, best.expected_scores.tolist()) == brute_mbr(tokens, tokens, [1.0] * 16, True), segment


# -- mbr_select -------------------------------------------------------------------------------------

weights_strategy = st.lists(st.sampled_from([0.0, 0.5, 1.0, 0.1, 3.0, 1e-300]), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(
    candidates=st.lists(st.lists(st.sampled_from(["a", "b", "c", 1]), max_size=6), min_size=1, max_size=6),
    data=st.data(),
    include_self=st.booleans(),
)
def test_mbr_select_equals_brute_force_within_candidates(candidates, data, include_self):
    n = len(candidates)
    weights = data.draw(st.one_of(st.none(), st.lists(st.sampled_from([0.0, 0.5, 1.0, 0.1, 3.0]), min_size=n, max_size=n)))
    if weights is not None and not any(weights):
        weights[0] = 1.0
    result = mbr_select(candidates, weights=weights, include_self=include_self)
    index, expected = brute_mbr(candidates, candidates, weights or [1.0] * n, not include_self)
    assert result.expected_scores.tolist() == expected
    assert result.index == index and result.candidate is candidates[index]


@settings(max_examples=60, deadline=None)
@given(
    candidates=st.lists(st.lists(st.sampled_from(["a", "b", "c"]), max_size=6), min_size=1, max_size=5),
    references=st.lists(st.lists(st.sampled_from(["a", "b", "c"]), max_size=6), min_size=1, max_size=5),
    data=st.data(),
)
def test_mbr_select_against_pseudo_references(candidates, references, data):
    m = len(references)
    weights = data.draw(st.lists(st.sampled_from([0.0, 0.25, 1.0, 2.0]), min_size=m, max_size=m))
    weights[-1] = weights[-1] or 1.0
    result = mbr_select(candidates, references, weights=weights)
    index, expected = brute_mbr(candidates, references, weights, False)
    assert (result.index, result.expected_scores.tolist()) == (index, expected)


def test_mbr_select_ties_and_single_candidate():
    # Two identical best candidates: the first wins; a candidate never scores against itself.
    result = mbr_select(["a b c", "x y", "a b c"])
    assert result.index == 0 and result.expected_scores.tolist() == [0.5, 0.0, 0.5]
    alone = mbr_select(["a b"])
    assert (alone.index, alone.candidate, alone.expected_scores.tolist()) == (0, "a b", [0.0])
    assert mbr_select(["a b"], include_self=True).expected_scores.tolist() == [1.0]
    # All weight on candidate 1: it has no other weighted pseudo-reference and scores 0.0.
    assert mbr_select(["a b", "a b c"], weights=[0, 1]).expected_scores.tolist() == [0.5, 0.0]


def test_mbr_select_on_tensors_returns_the_row():
    ids = torch.tensor([[5, 6, 7, 0], [5, 6, 0, 0], [9, 9, 9, 9]])
    result = mbr_select(ids, pad_id=0, weights=torch.tensor([1.0, 1.0, 1.0]))
    rows = [[5, 6, 7], [5, 6], [9, 9, 9, 9]]
    index, expected = brute_mbr(rows, rows, [1.0] * 3, True)
    assert result.index == index and torch.equal(result.candidate, ids[index])
    assert isinstance(result.expected_scores, np.ndarray) and result.expected_scores.tolist() == expected
    lengths = mbr_select(ids, ids[:2], candidate_lengths=[3, 2, 4], reference_lengths=[3, 2])
    assert lengths.expected_scores.tolist() == brute_mbr(rows, rows[:2], [1.0, 1.0], False)[1]


def test_names_are_exported_lazily_and_text_needs_no_torch():
    assert google_bleu.ids.pairwise_gleu is pairwise_gleu and google_bleu.ids.mbr_select is mbr_select
    assert {"pairwise_gleu", "mbr_select"} <= set(google_bleu.ids.__all__)
    code = (
        "import sys, google_bleu\n"
        "print('google_bleu.ids.pairwise' in sys.modules)\n"
        "print(google_bleu.ids.mbr_select(['a b', 'a c', 'a b']).index)\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.split() == ["False", "0", "False"]


# -- bad input --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: pairwise_gleu("a b c"), TypeError, "hypotheses must be a list"),
        (lambda: pairwise_gleu(["a"], "a"), TypeError, "references must be a list"),
        (lambda: pairwise_gleu(["a", ["a"]]), TypeError, "hypotheses mixes texts and token sequences"),
        (lambda: pairwise_gleu([["a"], 3]), TypeError, r"hypotheses\[1\] must be a text or a token sequence"),
        (lambda: pairwise_gleu(["a"], [["a"]]), TypeError, "same kind, got text and tokens"),
        (lambda: pairwise_gleu([[["a"]]]), TypeError, "tokens must be hashable"),
        (lambda: pairwise_gleu([["a"]], lowercase=True), ValueError, "token sequences and ids are scored as they are"),
        (lambda: pairwise_gleu(["a"], lowercase=1), TypeError, "lowercase must be a bool"),
        (lambda: pairwise_gleu([["a"]], tokenizer="char"), ValueError, r"give a scorer only orders .*tokenizer=.char."),
        (lambda: pairwise_gleu(["a"], tokenizer="nonsense"), ValueError, "unknown tokenizer 'nonsense'"),
        (lambda: pairwise_gleu(["a"], pad_id=0), ValueError, "pad_id applies to token ids"),
        (lambda: pairwise_gleu([[1]], pad_id="0"), TypeError, "pad_id must be an integer"),
        (lambda: pairwise_gleu([[1]], hypothesis_lengths=[1]), ValueError, "hypothesis_lengths applies to a padded"),
        (lambda: pairwise_gleu(torch.ones(2, 2), pad_id=0), TypeError, "hypotheses must hold integer token ids"),
        (lambda: pairwise_gleu(torch.ones(3, dtype=torch.int64)), ValueError, "hypotheses must be a 2-D tensor"),
        (lambda: pairwise_gleu(torch.ones((1, 2), dtype=torch.int64), [[1]]), TypeError, "same kind, got tensor"),
        (
            lambda: pairwise_gleu(torch.ones((1, 2), dtype=torch.int64), reference_lengths=[1]),
            ValueError,
            "reference_lengths needs references",
        ),
        (
            lambda: pairwise_gleu(torch.ones((2, 2), dtype=torch.int64), hypothesis_lengths=[1, 3]),
            ValueError,
            r"hypothesis_lengths must lie in 0..2",
        ),
        (
            lambda: pairwise_gleu(torch.ones((2, 2), dtype=torch.int64), hypothesis_lengths=[1]),
            ValueError,
            r"hypothesis_lengths must have shape \[2\]",
        ),
        (lambda: pairwise_gleu([[1]], min_len=0), ValueError, "min_len must be >= 1"),
        (lambda: pairwise_gleu([[1]], max_len=101), ValueError, "max_len must be <= 100"),
        (lambda: mbr_select([]), ValueError, "candidates must hold at least one candidate"),
        (lambda: mbr_select(["a"], []), ValueError, "pseudo_references must hold at least one"),
        (lambda: mbr_select("a b"), TypeError, "candidates must be a list"),
        (lambda: mbr_select(["a", "b"], weights=[1]), ValueError, "got 1 weights but 2 candidates"),
        (lambda: mbr_select(["a"], ["b", "c"], weights=[1, 2, 3]), ValueError, "got 3 weights but 2 pseudo_references"),
        (lambda: mbr_select(["a", "b"], weights=[1, -1]), ValueError, "weights must be non-negative, got -1.0"),
        (lambda: mbr_select(["a", "b"], weights=[1, float("nan")]), ValueError, "weights must be finite, got nan"),
        (lambda: mbr_select(["a", "b"], weights=[1, float("inf")]), ValueError, "weights must be finite, got inf"),
        (lambda: mbr_select(["a", "b"], weights=[0, 0]), ValueError, "weights must not all be zero"),
        (lambda: mbr_select(["a", "b"], weights=["x", "y"]), TypeError, "weights must be real numbers"),
        (lambda: mbr_select(["a", "b"], weights=[True, False]), TypeError, "weights must be real numbers"),
        (lambda: mbr_select(["a", "b"], weights="ab"), TypeError, "weights must be a sequence of numbers"),
        (lambda: mbr_select(["a", "b"], weights=[[1, 2]]), ValueError, "weights must be 1-D"),
        (lambda: mbr_select(["a"], ["b"], include_self=True), ValueError, "include_self applies when"),
        (lambda: mbr_select(["a"], include_self=1), TypeError, "include_self must be a bool"),
        (lambda: mbr_select([[1]], candidate_lengths=[1]), ValueError, "candidate_lengths applies to a padded"),
    ],
)
def test_bad_input_names_the_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


# Weights a * 2**e (a < 2**10, |e| <= 4): scaled by any 2**k, k from -1070 to 1000, they
# stay exact floats (subnormal ones included), so the scaled call is the same question.
exact_weights = st.builds(lambda a, e: math.ldexp(a, e), st.integers(0, 1023), st.integers(-4, 4))


@settings(max_examples=150, deadline=None)
@given(
    candidates=st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6), min_size=1, max_size=6),
    references=st.one_of(st.none(), st.lists(st.lists(st.sampled_from(["a", "b", "c"]), max_size=6), min_size=1, max_size=5)),
    data=st.data(),
    power=st.integers(-1070, 1000),
    aggregate=st.booleans(),
)
def test_mbr_weights_scaled_by_one_constant_change_nothing(candidates, references, data, power, aggregate):
    # Once, the leave-one-out mean subtracted nearly equal floats and tiny weights lost their
    # bits in rounded products: scaling every weight changed the pick in 84 of 4,000 cases.
    m = len(candidates if references is None else references)
    weights = data.draw(st.lists(exact_weights, min_size=m, max_size=m))
    weights[-1] = weights[-1] or 1.0
    scaled = [math.ldexp(weight, power) for weight in weights]
    assert all(math.ldexp(weight, -power) == original for weight, original in zip(scaled, weights))
    one = mbr_select(candidates, references, weights=weights, aggregate=aggregate)
    other = mbr_select(candidates, references, weights=scaled, aggregate=aggregate)
    assert (other.index, other.expected_scores.tolist()) == (one.index, one.expected_scores.tolist())
    refs = candidates if references is None else references
    if aggregate:
        assert one.expected_scores.tolist() == brute_aggregate(candidates, refs, weights, references is None)
    else:
        assert (one.index, one.expected_scores.tolist()) == brute_mbr(candidates, refs, weights, references is None)


@settings(max_examples=100, deadline=None)
@given(
    candidates=st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6), min_size=1, max_size=5),
    reference=st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6),
    copies=st.integers(2, 4),
    data=st.data(),
    within=st.booleans(),
    order=orders,
)
def test_aggregation_equals_exact_mbr_where_both_are_defined(candidates, reference, copies, data, within, order):
    # Where every weighted pseudo-reference of a candidate is the same sentence, its mean
    # counts are that sentence's and aggregation is exact MBR: the same floats.
    pool = [reference] * copies + candidates
    weights = [data.draw(exact_weights.filter(bool)) for _ in range(copies)] + [0.0] * len(candidates)
    options = {"min_len": order[0], "max_len": order[1], "weights": weights}
    args = (pool,) if within else (candidates, pool)
    exact = mbr_select(*args, **options)
    approximate = mbr_select(*args, aggregate=True, **options)
    assert (approximate.index, approximate.expected_scores.tolist()) == (exact.index, exact.expected_scores.tolist())
    hyps = pool if within else candidates
    assert exact.expected_scores.tolist() == [nltk_sentence([reference], hyp, *order) for hyp in hyps]


def test_one_dominant_weight_and_subnormal_weights():
    # The cases that were wrong: the leave-one-out mean beside one dominant weight gave 0.0,
    # and products of subnormal weights rounded to whole multiples of 5e-324.
    candidates = ["the cat sat on the mat", "the cat ate the mat", "a cat sat on the mat", "the the the cat"]
    tokens = [tokenize_13a(text) for text in candidates]
    for weights in ([0.99, 1e-20, 1e-20, 1e-20], [0.9, 1e-16, 1e-16, 1e-16], [0.5, 5e-324, 5e-324, 5e-324]):
        assert mbr_select(candidates, weights=weights, aggregate=True).expected_scores.tolist() == (
            brute_aggregate(tokens, tokens, weights, True)
        )
        assert mbr_select(candidates, weights=weights).expected_scores.tolist() == brute_mbr(tokens, tokens, weights, True)[1]
    subnormal = mbr_select(candidates[:3], weights=[0.5, 5e-324, 5e-324])
    assert subnormal.expected_scores.tolist() == mbr_select(candidates[:3], weights=[1e300, 1, 1]).expected_scores.tolist()
    # One weight far above the others, however far: the others still count.
    assert mbr_select(candidates, weights=[1.7e308, 5e-324, 5e-324, 5e-324], aggregate=True).expected_scores[0] > 0


def test_mbr_tiny_and_huge_weights_keep_their_ratios():
    candidates = [["a", "b"], ["a", "c"], ["a", "b", "d"]]
    # Probabilities of long samples: subnormal, with ratios that matter (exact multiples here).
    tiny = mbr_select(candidates, weights=[5e-324, 5e-324, 2e-323])
    assert tiny.index == mbr_select(candidates, weights=[1, 1, 4]).index
    assert tiny.expected_scores.tolist() == mbr_select(candidates, weights=[1, 1, 4]).expected_scores.tolist()
    huge = mbr_select(candidates, weights=[1.5e308, 1.5e308, 1.7e308])
    assert np.isfinite(huge.expected_scores).all()
    for bad, error in (([1, float("nan"), 1], "finite"), ([1, float("inf"), 1], "finite"), ([1, -1e-300, 1], "non-negative")):
        with pytest.raises(ValueError, match=f"weights must be {error}"):
            mbr_select(candidates, weights=bad)


# -- reference aggregation (an approximation of MBR, checked against its own definition) ----


def brute_aggregate(candidates, references, weights, exclude_self, min_len=1, max_len=4):
    """Reference aggregation by definition, in Fractions: each candidate against the weighted
    mean n-gram counts (and mean n-gram total) of the pseudo-references."""
    from collections import Counter
    from fractions import Fraction

    def ngrams(tokens):
        return Counter(
            tuple(tokens[i : i + n]) for n in range(min_len, max_len + 1) for i in range(len(tokens) - n + 1)
        )

    ref_counts = [ngrams(list(r)) for r in references]
    scores = []
    for i, hyp in enumerate(candidates):
        others = [j for j in range(len(references)) if not (exclude_self and j == i)]
        total = sum(Fraction(weights[j]) for j in others)
        if total == 0:
            scores.append(0.0)
            continue
        mean = Counter()
        for j in others:
            for gram, c in ref_counts[j].items():
                mean[gram] += Fraction(weights[j]) * c
        mean_total = sum(Fraction(weights[j]) * sum(ref_counts[j].values()) for j in others) / total
        h = ngrams(list(hyp))
        matches = sum(min(Fraction(c), mean[gram] / total) for gram, c in h.items())
        n_all = max(sum(h.values()), mean_total)
        scores.append(float(matches / n_all) if n_all else 0.0)
    return scores


@settings(max_examples=80, deadline=None)
@given(
    candidates=st.lists(st.lists(st.sampled_from(["a", "b", "c", 1]), max_size=6), min_size=1, max_size=6),
    references=st.one_of(
        st.none(), st.lists(st.lists(st.sampled_from(["a", "b", 1]), max_size=6), min_size=1, max_size=4)
    ),
    data=st.data(),
    include_self=st.booleans(),
    order=orders,
)
def test_aggregate_equals_its_definition(candidates, references, data, include_self, order):
    within = references is None
    refs = candidates if within else references
    m = len(refs)
    weights = data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 0.1, 3.0]), min_size=m, max_size=m))
    weights[-1] = weights[-1] or 1.0
    include_self = include_self and within
    result = mbr_select(
        candidates,
        references,
        weights=weights,
        include_self=include_self,
        aggregate=True,
        min_len=order[0],
        max_len=order[1],
    )
    expected = brute_aggregate(candidates, refs, weights, within and not include_self, *order)
    assert result.expected_scores.tolist() == expected
    assert result.index == int(np.argmax(result.expected_scores))


def test_aggregate_with_one_pseudo_reference_is_exact_mbr():
    candidates = ["the cat sat on the mat", "the cat ate the mat", "a cat sat on the mat", "the the the cat"]
    for references in (["the cat sat on a mat"], ["the cat sat on a mat"] * 3):
        exact = mbr_select(candidates, references)
        approximate = mbr_select(candidates, references, aggregate=True)
        assert approximate.expected_scores.tolist() == exact.expected_scores.tolist()
        assert approximate.index == exact.index
    # Two candidates, each the other's only pseudo-reference: exact too.
    assert mbr_select(candidates[:2], aggregate=True).expected_scores.tolist() == (
        mbr_select(candidates[:2]).expected_scores.tolist()
    )


def test_aggregate_on_ids_tokens_and_text_agree():
    texts = ["a b c d", "a b d", "b c d e", "a b c d"]
    tokens = [t.split() for t in texts]
    vocabulary = {w: i for i, w in enumerate("abcde")}
    ids = torch.tensor([[vocabulary[w] for w in t] + [99] * (4 - len(t)) for t in tokens])
    results = [
        mbr_select(texts, aggregate=True, weights=[1, 2, 1, 1]),
        mbr_select(tokens, aggregate=True, weights=[1, 2, 1, 1]),
        mbr_select(ids, aggregate=True, weights=torch.tensor([1.0, 2.0, 1.0, 1.0]), pad_id=99),
    ]
    assert len({(r.index, tuple(r.expected_scores.tolist())) for r in results}) == 1
    # The duplicate at index 3 counts for candidate 0 (only a candidate's own index is left out).
    assert results[0].expected_scores.tolist() == brute_aggregate(tokens, tokens, [1, 2, 1, 1], True)
    # Every other weight zero: no pseudo-reference left, 0.0 as in exact MBR.
    assert mbr_select(texts, weights=[1, 0, 0, 0], aggregate=True).expected_scores[0] == 0.0
    with pytest.raises(TypeError, match="aggregate must be a bool"):
        mbr_select(texts, aggregate=1)
