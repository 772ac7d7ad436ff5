"""The counting engine: its two strategies (plain Python for small inputs, numpy above) give
``==`` rows, switched with :func:`google_bleu.counting.strategy`; the size rule that chooses
(:func:`~google_bleu.counting.small_input`); the walk over orders (:func:`~google_bleu.counting.walk`),
per-order figures from one walk, and chunks. nltk is the third party where the arithmetic is its own.
"""

from __future__ import annotations

import collections
import random

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import google_bleu.counting as engine
import google_bleu.text as gleu
from google_bleu import GLEU, gleu_stats
from google_bleu.counting import SMALL_TOKENS, segment_rows, strategy, walk
from google_bleu.tokenizers import SACREBLEU_TOKENIZERS
from tests.helpers.oracles import SAMPLES, nltk_corpus, nltk_sentence, read_lines


def both_ways(count):
    """``count()`` with every input counted in plain Python, then with numpy: (python, numpy)."""
    with strategy("python"):
        python = count()
    with strategy("numpy"):
        vectorised = count()
    return python, vectorised


def assert_same(python, vectorised):
    assert type(python._rows) is list and type(vectorised._rows) is np.ndarray  # each strategy ran
    assert python.rows.tolist() == vectorised.rows.tolist()
    assert python.reference_index.tolist() == vectorised.reference_index.tolist()


# Tokens that stress each strategy's idea of equality: short and long strings (one, two and
# more 8-byte words, NUL inside), str subclasses, ints equal to floats and bools, tuples
# (an order-1 tuple token must not meet an order-2 n-gram), unicode and surrogates.
TOKENS = [
    "a",
    "b",
    "the",
    "a\0",
    "\0",
    "\0a",
    "abcdefgh",
    "abcdefghi",
    "abcdefghijklmnopq",
    "x" * 40,
    "x" * 40 + "\0",
    np.str_("the"),
    "é",
    "\ud800",
    1,
    1.0,
    True,
    2,
    ("a", "b"),
    ("a",),
]


def random_corpus(rng: random.Random, vocabulary: list, n_segments: int, max_refs: int, max_len: int):
    def sentence():
        return [rng.choice(vocabulary) for _ in range(rng.choice([0, 1, 2, 3, rng.randint(0, max_len)]))]

    hyps = [sentence() for _ in range(n_segments)]
    refs = [[sentence() for _ in range(rng.randint(1, max_refs))] for _ in range(n_segments)]
    return hyps, refs


ORDERS = [(1, 1), (1, 2), (1, 4), (2, 4), (3, 3), (2, 6), (1, 9), (4, 4)]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("vocabulary", ["small", "tricky", "ints"])
def test_random_token_corpora_give_the_same_rows(seed, vocabulary):
    rng = random.Random(seed)
    words = {"small": ["a", "b", "c"], "tricky": TOKENS, "ints": list(range(5))}[vocabulary]
    hyps, refs = random_corpus(rng, words, rng.randint(1, 30), 4, 14)
    min_len, max_len = ORDERS[seed % len(ORDERS)]
    python, vectorised = both_ways(lambda: gleu_stats(hyps, refs, min_len, max_len))
    assert_same(python, vectorised)
    if vocabulary != "tricky":  # nltk's everygrams would unpack tuple tokens
        assert python.sentence_scores().tolist() == [
            nltk_sentence(r, h, min_len, max_len) for h, r in zip(hyps, refs)
        ]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(TOKENS[:14]), max_size=10),
            st.lists(st.lists(st.sampled_from(TOKENS[:14]), max_size=10), min_size=1, max_size=4),
        ),
        max_size=8,
    ),
    st.sampled_from(ORDERS),
)
@example([(["a", "b"], [["a", "x"], ["a", "y", "b"]])], (1, 4))  # a tie of ratios with different n_all
@example([([], [[], []]), (["a"], [[], ["a"]])], (1, 4))  # no candidate; a candidate after none
def test_property_same_rows(segments, orders):
    hyps = [h for h, _ in segments]
    refs = [r for _, r in segments]
    assert_same(*both_ways(lambda: gleu_stats(hyps, refs, *orders)))


def test_tied_references_keep_the_first_both_ways():
    hyp = ["a", "b"]
    corpus = [[["a", "x"], ["a", "y", "b"]], [["a", "y", "b"], ["a", "x"]]]
    python, vectorised = both_ways(lambda: gleu_stats([hyp, hyp], corpus))
    assert_same(python, vectorised)
    assert python.rows.tolist() == [[1, 3, 3, 3], [2, 3, 6, 6]] and python.reference_index.tolist() == [0, 0]


TEXT = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")[:60]


SYSTEM = read_lines(SAMPLES / "wmt17_en_de" / "sys_online-A.0.txt")[:60]


ADVERSARIAL = [
    "",
    " ",
    "1.5-2, a.b 3,,4 x-1-\t\u3000y",
    "e.g. &amp; &lt;b&gt; <skipped> 3.5-4",
    "ÄÖÜ ß, İstanbul… “quoted” — 1..2",
    "a\0b \0 \x85c\xa0d",
    "\ud800 lone, surrogate.",
]


@pytest.mark.parametrize("tokenizer", sorted(SACREBLEU_TOKENIZERS))
@pytest.mark.parametrize("lowercase", [False, True])
def test_every_named_tokenizer_gives_the_same_rows(tokenizer, lowercase):
    try:
        scorer = GLEU(tokenizer, lowercase)
    except ImportError as error:
        pytest.skip(str(error))
    adversarial = ADVERSARIAL
    if tokenizer.endswith("mecab"):  # MeCab's binding refuses a lone surrogate (a TypeError)
        adversarial = [text for text in ADVERSARIAL if "\ud800" not in text]
    predictions = SYSTEM[:20] + adversarial
    references = [[r] for r in TEXT[:20]] + [[a, b] for a, b in zip(adversarial[1:] + adversarial[:1], adversarial)]
    python, vectorised = both_ways(lambda: scorer.stats(predictions, references))
    assert_same(python, vectorised)


def test_real_text_with_custom_tokenizer_and_orders():
    for scorer in (GLEU(str.split), GLEU(min_len=2, max_len=6), GLEU(lowercase=True, min_len=3, max_len=3)):
        python, vectorised = both_ways(lambda scorer=scorer: scorer.stats(SYSTEM, TEXT))
        assert_same(python, vectorised)
        tokenize = scorer.tokenizer
        assert python.sentence_scores().tolist() == [
            nltk_sentence([tokenize(r)], tokenize(h), scorer.min_len, scorer.max_len) for h, r in zip(SYSTEM, TEXT)
        ]


def test_token_ids_give_the_same_rows():
    from google_bleu.ids import batch_gleu_stats

    rng = random.Random(7)
    hyps, refs = random_corpus(rng, list(range(6)), 40, 3, 20)
    python, vectorised = both_ways(lambda: batch_gleu_stats(hyps, refs))
    assert python.tolist() == vectorised.tolist() == gleu_stats(hyps, refs).rows.tolist()


# -- the switch and the size rule -----------------------------------------------------------


def test_the_switch_forces_a_strategy_for_its_block_only():
    with strategy("numpy"):
        assert type(gleu_stats([["a"]], [[["a"]]])._rows) is np.ndarray
        with strategy("python"):
            assert type(gleu_stats([["a"] * 5000], [[["a"]]])._rows) is list
        assert not engine.small_input(n_tokens=1)
    assert engine.small_input(n_tokens=1) and not engine.small_input(n_tokens=SMALL_TOKENS + 1)
    with pytest.raises(ValueError, match="strategy must be one of auto, python, numpy, got 'fast'"):
        with strategy("fast"):
            pass


def test_the_crossover_is_the_one_size_rule():
    # Tokens of all sides together; text by its characters (CHARS_PER_TOKEN to a token)
    # before it is tokenized.
    half = SMALL_TOKENS // 2
    at = gleu_stats([["a"] * half], [[["a"] * (SMALL_TOKENS - half)]])
    above = gleu_stats([["a"] * half], [[["a"] * (SMALL_TOKENS - half + 1)]])
    assert type(at._rows) is list and type(above._rows) is np.ndarray
    longest = ((SMALL_TOKENS + 1) * engine.CHARS_PER_TOKEN - 1) // 2  # characters of each side
    assert type(GLEU().stats(["a" * longest], ["a" * longest])._rows) is list
    assert type(GLEU().stats(["a" * (longest + 1)], ["a" * (longest + 1)])._rows) is np.ndarray


def test_a_short_input_never_imports_numpy():
    # numpy takes tens of milliseconds to import; a process that scores short text (a CLI call,
    # a reward in a fresh worker) never needs it.
    import subprocess
    import sys

    code = (
        "import sys, google_bleu\n"
        "scorer = google_bleu.GLEU()\n"
        "print(scorer.sentence_score('the cat sat on the mat', ['the cat ate the mat']).score,\n"
        "      scorer.sentence_scores(['a b c', 'x'], [['a b c'], ['y', 'x']]),\n"
        "      scorer.corpus_score(['a b'] * 3, ['a c'] * 3, by_order=True).orders[0][1].score,\n"
        "      google_bleu.sentence_gleu([['a', 'b']], ['a', 'b']))\n"
        "print('numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "0.3333333333333333 [1.0, 1.0] 0.5 1.0"
    assert out[1] == "False"


def test_counters_own_counting_loop_is_what_the_engine_reads():
    # engine._clipped counts with collections._count_elements (Counter's C loop without a
    # Counter): if a Python release renames or changes it, this fails here, not as wrong numbers.
    counts: dict = {}
    collections._count_elements(counts, ["a", "b", "a", ("a", "b")])
    assert counts == {"a": 2, "b": 1, ("a", "b"): 1}
    assert engine._count_elements is collections._count_elements


# -- the walk --------------------------------------------------------------------------------


def test_the_walk_gates_extends_and_stops():
    group = np.array([0, 1, 0, 1, 4, 0, 1, 4])  # "a b a b c a b c": one sentence
    seen = []
    for step in walk(group, np.ones(7, bool), 2, 5):
        counts = np.bincount(step.group, minlength=step.n)
        seen.append((step.order, step.counted, step.position.tolist()))
        step.live = counts > 1  # n-grams that occur twice extend
    # Order 2: the seven bigrams; "ab" (3 times) and "bc" (2) extend. Order 3: "abc" at 2 and 5,
    # which are not adjacent, so no 4-gram: the walk stops before order 4.
    assert seen == [(1, False, list(range(8))), (2, True, list(range(7))), (3, True, [2, 5])]
    stopped = list(walk(group, np.ones(7, bool), 1, 4))  # live never set: one order
    assert len(stopped) == 1
    assert list(walk(np.zeros(0, np.int64), np.ones(0, bool), 1, 4)) == []


def test_one_long_token_costs_linear_passes():
    # A token of a million characters is hashed and checked in a few numpy passes.
    long = "x" * 1_000_000
    stats = gleu_stats([[long, "a"], [long + "y"]], [[[long]], [[long + "z"]]])
    assert stats.rows.tolist() == [[1, 3, 1, 3], [0, 1, 1, 1]]


# -- per-order figures from one walk ---------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_each_orders_figures_equal_rescoring_that_order_alone(seed):
    # Each order keeps its own best reference (nltk's tie rule per order), both ways, from one walk.
    rng = random.Random(seed)
    hyps, refs = random_corpus(rng, ["a", "b", "c", 1, "abcdefghij"], rng.randint(1, 25), 4, 12)
    min_len, max_len = ORDERS[seed % len(ORDERS)]
    for how in ("python", "numpy"):
        with strategy(how):
            by_order = segment_rows(hyps, refs, min_len, max_len, by_order=True)
            assert len(by_order) == max_len - min_len + 2
            spans = [(min_len, max_len), *((n, n) for n in range(min_len, max_len + 1))]
            for (low, high), (rows, chosen) in zip(spans, by_order):
                alone = gleu_stats(hyps, refs, low, high)
                n = (low, high)
                assert np.asarray(rows).tolist() == alone.rows.tolist(), (how, n)
                assert np.asarray(chosen).tolist() == alone.reference_index.tolist(), (how, n)


def test_text_figures_by_order_equal_rescoring_across_chunks(monkeypatch):
    scorer = GLEU(max_len=6)
    references = [[r, s] for r, s in zip(TEXT, TEXT[1:] + TEXT[:1])]
    monkeypatch.setattr(gleu, "TEXT_CHUNK_CHARS", 2000)
    for how in ("python", "numpy"):
        with strategy(how):
            spans = gleu.order_text_stats(SYSTEM, references, scorer.tokenizer, 1, 6, True)
            for (low, high), stats in zip([(1, 6), *((n, n) for n in range(1, 7))], spans, strict=True):
                assert (stats.min_len, stats.max_len) == (low, high)
                alone = gleu.checked_text_stats(SYSTEM, references, scorer.tokenizer, low, high)
                assert stats == alone and stats.reference_index.tolist() == alone.reference_index.tolist()
    assert [s.max_len for s in gleu.order_text_stats([], [], scorer.tokenizer, 2, 3, True)] == [3, 2, 3]


# -- chunks ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("numpy_strategy")
def test_chunked_engine_equals_one_chunk(monkeypatch):
    rng = np.random.default_rng(3)
    hyps = [list(rng.integers(0, 6, rng.integers(0, 12))) for _ in range(300)]
    refs = [[list(rng.integers(0, 6, rng.integers(0, 12))) for _ in range(rng.integers(1, 4))] for _ in range(300)]
    whole = gleu_stats(hyps, refs)
    monkeypatch.setattr(engine, "CHUNK_TOKENS", 37)
    assert gleu_stats(hyps, refs) == whole


@pytest.mark.usefixtures("numpy_strategy")
@pytest.mark.parametrize("chunk", [1, 3, 8, 50])
def test_tiny_chunks_equal_nltk_with_tied_references(monkeypatch, chunk):
    monkeypatch.setattr(engine, "CHUNK_TOKENS", chunk)
    rng = random.Random(chunk)
    for _ in range(60):
        n = rng.randint(1, 15)
        hyps = [[rng.randrange(3) for _ in range(rng.randint(0, 12))] for _ in range(n)]
        refs = [
            [[rng.randrange(3) for _ in range(rng.randint(0, 12))] for _ in range(rng.randint(1, 4))] for _ in range(n)
        ]
        stats = gleu_stats(hyps, refs)
        assert stats.score() == nltk_corpus(refs, hyps)
        assert stats.sentence_scores().tolist() == [nltk_sentence(r, h) for h, r in zip(hyps, refs)]


@pytest.mark.usefixtures("numpy_strategy")
def test_tie_with_different_totals_keeps_the_first_reference(monkeypatch):
    # Both references score 1/3 with different n_all (3 and 6): nltk keeps the first, and the
    # corpus score depends on which; so must every chunking.
    hyp = ["a", "b"]
    refs = [["a", "x"], ["a", "y", "b"]]
    corpus = [refs, refs[::-1]]
    assert nltk_corpus(corpus, [hyp, hyp]) == 3 / 9
    for chunk in (1, 2, 1 << 16):
        monkeypatch.setattr(engine, "CHUNK_TOKENS", chunk)
        assert gleu_stats([hyp, hyp], corpus).rows.tolist() == [[1, 3, 3, 3], [2, 3, 6, 6]]
