"""Differential tests: every result equals nltk's on the same tokens (==, not approx)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from google_bleu import corpus_gleu, gleu_stats, sentence_gleu
from tests.helpers.oracles import nltk_corpus, nltk_sentence

pytestmark = pytest.mark.usefixtures("both_strategies")

# Tiny vocabularies make repeats, clipping and tied references common.
tokens = st.one_of(st.sampled_from(["a", "b", "c"]), st.integers(0, 3))
sentence = st.lists(tokens, max_size=9)
segment = st.tuples(sentence, st.lists(sentence, min_size=1, max_size=4))
orders = st.integers(1, 5).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, 7)))


@settings(max_examples=400, deadline=None)
@given(st.lists(segment, max_size=12), orders)
def test_corpus_gleu_equals_nltk(segments, order):
    hyps = [h for h, _ in segments]
    refs = [r for _, r in segments]
    assert corpus_gleu(refs, hyps, *order) == nltk_corpus(refs, hyps, *order)


@settings(max_examples=400, deadline=None)
@given(segment, orders)
def test_sentence_gleu_equals_nltk(seg, order):
    hyp, refs = seg
    assert sentence_gleu(refs, hyp, *order) == nltk_sentence(refs, hyp, *order)


@settings(max_examples=150, deadline=None)
@given(st.lists(segment, min_size=1, max_size=10), orders)
def test_sentence_scores_equal_nltk_per_segment(segments, order):
    hyps = [h for h, _ in segments]
    refs = [r for _, r in segments]
    scores = gleu_stats(hyps, refs, *order).sentence_scores().tolist()
    assert scores == [nltk_sentence(r, h, *order) for h, r in segments]


def test_seeded_random_corpora_with_ties():
    rng = random.Random(20161008)
    for _ in range(300):
        vocab = rng.randint(1, 4)
        n = rng.randint(1, 20)
        hyps = [[rng.randrange(vocab) for _ in range(rng.randint(0, 15))] for _ in range(n)]
        refs = [
            [[rng.randrange(vocab) for _ in range(rng.randint(0, 15))] for _ in range(rng.randint(1, 5))]
            for _ in range(n)
        ]
        lo = rng.randint(1, 3)
        hi = rng.randint(lo, 6)
        assert corpus_gleu(refs, hyps, lo, hi) == nltk_corpus(refs, hyps, lo, hi)


def test_long_segments_and_high_orders():
    rng = random.Random(5)
    hyps = [[rng.randrange(3) for _ in range(rng.randint(50, 200))] for _ in range(20)]
    refs = [[[rng.randrange(3) for _ in range(rng.randint(50, 200))] for _ in range(2)] for _ in range(20)]
    for lo, hi in [(1, 4), (1, 12), (5, 30), (40, 100)]:
        assert corpus_gleu(refs, hyps, lo, hi) == nltk_corpus(refs, hyps, lo, hi)
