"""The two counting strategies give the same rows: plain Python for small inputs, numpy above.

Every input here is counted both ways through the engine's one decision point
(``engine.SMALL_TOKENS``: forced to each side), and the rows and chosen references must be
equal (``==``), row by row; nltk is the third party where the arithmetic is its own.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import google_bleu.engine as engine
from google_bleu import GLEU, gleu_stats, text_stats
from google_bleu.tokenizers import SACREBLEU_TOKENIZERS
from tests.helpers.oracles import SAMPLES, nltk_sentence, read_lines


def both_ways(monkeypatch, count):
    """``count()`` with every input counted in plain Python, then with numpy: (python, numpy)."""
    monkeypatch.setattr(engine, "SMALL_TOKENS", 1 << 62)
    python = count()
    monkeypatch.setattr(engine, "SMALL_TOKENS", -1)
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
def test_random_token_corpora_give_the_same_rows(monkeypatch, seed, vocabulary):
    rng = random.Random(seed)
    words = {"small": ["a", "b", "c"], "tricky": TOKENS, "ints": list(range(5))}[vocabulary]
    hyps, refs = random_corpus(rng, words, rng.randint(1, 30), 4, 14)
    min_len, max_len = ORDERS[seed % len(ORDERS)]
    python, vectorised = both_ways(monkeypatch, lambda: gleu_stats(hyps, refs, min_len, max_len))
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
    with pytest.MonkeyPatch.context() as patch:
        assert_same(*both_ways(patch, lambda: gleu_stats(hyps, refs, *orders)))


def test_tied_references_keep_the_first_both_ways(monkeypatch):
    hyp = ["a", "b"]
    corpus = [[["a", "x"], ["a", "y", "b"]], [["a", "y", "b"], ["a", "x"]]]
    python, vectorised = both_ways(monkeypatch, lambda: gleu_stats([hyp, hyp], corpus))
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
def test_every_named_tokenizer_gives_the_same_rows(monkeypatch, tokenizer, lowercase):
    try:
        scorer = GLEU(tokenizer, lowercase)
    except ImportError as error:
        pytest.skip(str(error))
    adversarial = ADVERSARIAL
    if tokenizer.endswith("mecab"):  # MeCab's binding refuses a lone surrogate (a TypeError)
        adversarial = [text for text in ADVERSARIAL if "\ud800" not in text]
    predictions = SYSTEM[:20] + adversarial
    references = [[r] for r in TEXT[:20]] + [[a, b] for a, b in zip(adversarial[1:] + adversarial[:1], adversarial)]
    python, vectorised = both_ways(monkeypatch, lambda: scorer.stats(predictions, references))
    assert_same(python, vectorised)


def test_real_text_with_custom_tokenizer_and_orders(monkeypatch):
    for scorer in (GLEU(str.split), GLEU(min_len=2, max_len=6), GLEU(lowercase=True, min_len=3, max_len=3)):
        python, vectorised = both_ways(monkeypatch, lambda scorer=scorer: scorer.stats(SYSTEM, TEXT))
        assert_same(python, vectorised)
        tokenize = scorer.tokenizer
        assert python.sentence_scores().tolist() == [
            nltk_sentence([tokenize(r)], tokenize(h), scorer.min_len, scorer.max_len) for h, r in zip(SYSTEM, TEXT)
        ]


def test_token_ids_give_the_same_rows(monkeypatch):
    from google_bleu.ids import batch_gleu_stats

    rng = random.Random(7)
    hyps, refs = random_corpus(rng, list(range(6)), 40, 3, 20)
    python, vectorised = both_ways(monkeypatch, lambda: batch_gleu_stats(hyps, refs))
    assert python.tolist() == vectorised.tolist() == gleu_stats(hyps, refs).rows.tolist()


# -- the crossover, pinned both ways ------------------------------------------------------


def test_the_crossover_is_the_one_decision(monkeypatch):
    monkeypatch.setattr(engine, "SMALL_TOKENS", 10)
    at = gleu_stats([["a"] * 5], [[["a"] * 5]])  # 10 tokens: plain Python
    above = gleu_stats([["a"] * 5], [[["a"] * 6]])  # 11 tokens: numpy
    assert type(at._rows) is list and type(above._rows) is np.ndarray
    assert at.rows.tolist() == [[14, 14, 14, 14]] and above.rows.tolist() == [[14, 14, 18, 18]]
    # Text is sized by characters before it is tokenized.
    monkeypatch.setattr(engine, "CHARS_PER_TOKEN", 5)
    text = "a " * 13 + "a"  # 27 characters: 54 of 55 for 11 tokens' worth
    assert type(text_stats([text], [text])._rows) is list
    assert type(text_stats([text + "b"], [text])._rows) is np.ndarray


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
        "print(type(sys.modules['numpy']).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "0.3333333333333333 [1.0, 1.0] 0.5 1.0"
    assert out[1] == "_LazyModule"  # made, never run
