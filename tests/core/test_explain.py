"""explain(): the highlighted matches of one segment agree with the engine's statistics."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from google_bleu import GLEU, explain, get_tokenizer, gleu_stats
from tests.helpers.oracles import SAMPLES, read_lines

pytestmark = pytest.mark.usefixtures("both_strategies")


def _check(hypothesis, references, min_len, max_len, engine_row=None):
    e = explain(hypothesis, references, min_len, max_len)
    if engine_row is None:
        engine_row = tuple(gleu_stats([hypothesis], [references], min_len, max_len).rows[0].tolist())
    assert e.row == engine_row
    assert len(e.hyp_matches) == len(e.ref_matches) == e.n_match
    # The matched occurrences are the same n-grams on both sides, and really are n-grams
    # of the requested orders.
    hyp_grams = Counter(tuple(e.hypothesis[s : s + n]) for s, n in e.hyp_matches)
    ref_grams = Counter(tuple(e.reference[s : s + n]) for s, n in e.ref_matches)
    assert hyp_grams == ref_grams
    assert all(min_len <= n <= max_len for _, n in e.hyp_matches + e.ref_matches)
    assert len(set(e.hyp_matches)) == len(e.hyp_matches) and len(set(e.ref_matches)) == len(e.ref_matches)
    if e.reference_index is None:
        assert e.row == (0, 0, 0, 0)
        return e
    assert e.reference == tuple(references[e.reference_index])
    # The reference choice: the engine's single-reference rows give the best ratio first at
    # the chosen index (nltk's max keeps the first on a tie; n_all == 0 is no candidate).
    ratios = []
    for reference in references:
        n_match, _, _, n_all = gleu_stats([hypothesis], [[reference]], min_len, max_len).rows[0].tolist()
        ratios.append(n_match / n_all if n_all else -1.0)
    assert ratios.index(max(ratios)) == e.reference_index
    assert e.score() == (e.n_match / e.n_all if e.n_all else 0.0)
    orders = e.hypothesis_orders()
    assert len(orders) == len(hypothesis)
    assert all(order == 0 or min_len <= order <= max_len for order in orders)
    return e


def test_example_by_hand():
    e = _check("the cat sat on the mat".split(), ["a dog".split(), "the cat ate the mat".split()], 1, 4)
    assert e.reference_index == 1
    assert e.hypothesis_orders() == [2, 2, 0, 0, 2, 2]
    assert e.reference_orders() == [2, 2, 0, 2, 2]


def test_repeated_ngrams_are_clipped_to_the_first_occurrences():
    e = _check("the the the the".split(), ["the cat the".split()], 1, 2)
    assert e.n_match == 2
    assert e.hyp_matches == ((0, 1), (1, 1))
    assert e.hypothesis_orders() == [1, 1, 0, 0]


def test_empty_sides():
    assert _check([], [[]], 1, 4).reference_index is None
    e = _check([], [["a", "b"]], 1, 4)
    assert e.row == (0, 0, 3, 3) and e.reference_index == 0 and e.hypothesis_orders() == []
    # A first reference with n_all == 0 is no candidate; the second is chosen.
    assert _check([], [[], ["a"]], 1, 1).reference_index == 1


def test_tie_keeps_the_first_reference():
    # Same ratio 1/1 for both references; the first wins even though the second is longer.
    e = _check(["a"], [["a"], ["a"]], 1, 1)
    assert e.reference_index == 0


def test_bad_input_is_refused():
    with pytest.raises(TypeError, match="hypothesis 0 is a str"):
        explain("a b", [["a"]])
    with pytest.raises(ValueError, match="no reference"):
        explain(["a"], [])
    with pytest.raises(ValueError, match="min_len must be >= 1"):
        explain(["a"], [["a"]], 0, 4)


@pytest.mark.parametrize(("pair", "tokenizer"), [("wmt17_en_de", "13a"), ("wmt22_en_ja", "char")])
def test_real_sample_rows_equal_the_engine(pair, tokenizer):
    """Every segment of the bundled sample, several references (other systems as extra ones)."""
    folder = SAMPLES / pair
    systems = sorted(folder.glob("sys_*.txt"))
    hyps = read_lines(systems[0])
    refs = [list(group) for group in zip(read_lines(folder / "ref0.txt"), *map(read_lines, systems[1:]))]
    tokenize = get_tokenizer(tokenizer)
    for min_len, max_len in ((1, 4), (2, 3)):
        stats = GLEU(tokenizer, False, min_len, max_len).stats(hyps, refs)
        chosen = Counter()
        for i, (hyp, segment_refs) in enumerate(zip(hyps, refs)):
            e = _check(
                tokenize(hyp), tokenize.tokenize_all(segment_refs), min_len, max_len, tuple(stats.rows[i].tolist())
            )
            chosen[e.reference_index] += 1
        assert len(chosen) > 1  # the choice is exercised, not always reference 0


tokens = st.lists(st.sampled_from("abc"), max_size=9)


@settings(max_examples=300, deadline=None)
@given(
    hypothesis=tokens,
    references=st.lists(tokens, min_size=1, max_size=4),
    orders=st.tuples(st.integers(1, 4), st.integers(0, 3)),
)
def test_random_segments_equal_the_engine(hypothesis, references, orders):
    min_len = orders[0]
    _check(hypothesis, references, min_len, min_len + orders[1])


def _matches_by_tuples(hypothesis, reference, min_len, max_len):
    """The plain-Python rule: every n-gram as a tuple, the first min(counts) occurrences a side."""

    def occurrences(tokens):
        found = {}
        for order in range(min_len, min(max_len, len(tokens)) + 1):
            for start in range(len(tokens) - order + 1):
                found.setdefault(tuple(tokens[start : start + order]), []).append(start)
        return found

    hyp, ref = occurrences(hypothesis), occurrences(reference)
    hyp_matches, ref_matches = [], []
    for gram, starts in hyp.items():
        count = min(len(starts), len(ref.get(gram, ())))
        hyp_matches += [(start, len(gram)) for start in starts[:count]]
        ref_matches += [(start, len(gram)) for start in ref.get(gram, [])[:count]]
    return tuple(sorted(hyp_matches)), tuple(sorted(ref_matches))


@settings(max_examples=200, deadline=None)
@given(
    hypothesis=tokens,
    references=st.lists(tokens, min_size=1, max_size=3),
    orders=st.tuples(st.integers(1, 4), st.integers(0, 4)),
    limit=st.one_of(st.none(), st.integers(0, 10)),
)
def test_matches_equal_the_plain_python_rule(hypothesis, references, orders, limit):
    min_len, max_len = orders[0], orders[0] + orders[1]
    e = explain(hypothesis, references, min_len, max_len, limit=limit)
    if e.reference_index is None:
        assert e.hyp_matches == e.ref_matches == ()
        return
    hyp_matches, ref_matches = _matches_by_tuples(hypothesis, e.reference, min_len, max_len)
    if limit is not None:  # a limit keeps the matches that start before it, nothing else changes
        hyp_matches = tuple(m for m in hyp_matches if m[0] < limit)
        ref_matches = tuple(m for m in ref_matches if m[0] < limit)
    assert (e.hyp_matches, e.ref_matches) == (hyp_matches, ref_matches)
    assert e.row == tuple(gleu_stats([hypothesis], [references], min_len, max_len).rows[0].tolist())
    cut = None if limit is None else limit
    assert e.hypothesis_orders(cut) == e.hypothesis_orders()[:cut]


def test_long_segment_with_high_orders():
    # 6,000 tokens with every n-gram repeated, orders up to 100: the case the old
    # tuple-per-n-gram explanation could not afford; the row and the matches still agree.
    line = ["a", "b", "c"] * 2000
    reference = line[1:] + ["a"]
    e = _check(line, [["x"], reference], 1, 100)
    assert e.reference_index == 1 and e.n_match == len(e.hyp_match_array) > 500_000
    limited = explain(line, [["x"], reference], 1, 100, limit=50)
    assert limited.row == e.row
    assert limited.hyp_matches == tuple(m for m in e.hyp_matches if m[0] < 50)
    assert limited.hypothesis_orders(50) == e.hypothesis_orders()[:50]


def test_bad_limit_and_unhashable_tokens():
    with pytest.raises(ValueError, match="limit must be None or an integer >= 0, got -1"):
        explain(["a"], [["a"]], limit=-1)
    with pytest.raises(TypeError, match=r"tokens must be hashable \(e.g. str or int\): hypotheses\[0\], token 0 is a list"):
        explain([["a"]], [[["a"]]])
    with pytest.raises(TypeError, match=r"list_of_references\[0\]\[1\], token 1 is a dict"):
        explain(["a"], [["a"], ["b", {}]])
