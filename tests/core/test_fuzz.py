"""Differential fuzzing: our 13a against sacrebleu's, and text scoring against sacrebleu + nltk.

Text is drawn from the whole of Unicode (C0 and C1 controls, NUL, lone surrogates and
private-use characters included), and from an adversarial alphabet biased toward what
13a and the batch path treat specially: controls, every kind of whitespace, punctuation,
digits, ``.,-&;<>``, entities, ``<skipped>``, ``-\\n``, surrogates and U+E000..U+E0FF,
the characters the batch path may put between lines. Every comparison is exact (``==``).
"""

import string

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

import google_bleu
from google_bleu import fast13a as tokenizers_module
from google_bleu import get_tokenizer
from google_bleu.fast13a import token_spans_13a, tokenize_13a
from tests.helpers.oracles import nltk_corpus, nltk_sentence, span_tokens

_ORACLE = Tokenizer13a()


def tokenize_13a_batch(texts):
    """The batch path's tokens (:func:`token_spans_13a`), decoded line by line."""
    return span_tokens(token_spans_13a(texts))


def oracle(text):
    return _ORACLE(text).split()


#: Derandomized, so a run is reproducible; sized to keep this file well under a minute.
_FUZZ = settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

#: Every code point, surrogates and private use included.
_any_char = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())

#: What str.split splits at (checked against Python in test_fast13a.py), and look-alikes it
#: does not split at (zero-width space, Mongolian vowel separator, word joiner, BOM).
_WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
_WHITESPACE += "\u2028\u2029\u202f\u205f\u3000"
_NOT_WHITESPACE = "\u200b\u180e\u2060\ufeff"
_CONTROLS = "".join(map(chr, range(0x20))) + "\x7f" + "".join(map(chr, range(0x80, 0xA0)))
_PIECES = [
    "<skipped>",
    "<skip",
    "ped>",
    "-\n",
    "&quot;",
    "&amp;",
    "&lt;",
    "&gt;",
    "&amp;lt;",
    "&am",
    "p;",
    "İ",  # lowercases to two characters
    "Σ",  # lowercases by context
    "ß",
    "é",
    "日本",
    "\U0001f600",
    "\ud83d\ude00",  # a surrogate pair as two lone surrogates
    "٣",  # digits that are not [0-9]
    "１",
    "²",
    "...",
    ",,",
    "--",
]
_adversarial_char = st.one_of(
    st.sampled_from(".,-&;<>"),
    st.sampled_from(string.digits),
    st.sampled_from(string.punctuation),
    st.sampled_from(_CONTROLS),
    st.sampled_from(_WHITESPACE + _NOT_WHITESPACE),
    st.sampled_from("aZ"),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    st.characters(min_codepoint=0xE000, max_codepoint=0xE0FF),
    st.sampled_from(_PIECES),
    _any_char,
)
_adversarial_line = st.lists(_adversarial_char, max_size=40).map("".join)
_any_line = st.text(_any_char, max_size=60)
_line = st.one_of(_adversarial_line, _any_line, st.sampled_from(["", " ", "\t\n", "\x00", "-\n"]))
_batch = st.lists(_line, max_size=10)


def _check_spans(spans, expected):
    """Byte spans whose UTF-8 text is the expected tokens, line after line, and their counts."""
    assert spans.counts.dtype == np.int64 and spans.counts.tolist() == list(map(len, expected))
    assert np.all(np.diff(spans.starts) > 0) and np.all(spans.lengths > 0)
    assert span_tokens(spans) == expected


# -- the 13a tokenizer ------------------------------------------------------------


@_FUZZ
@given(_line)
@example("\x00a")
@example("a\x00")
@example("1\x00.\x00,\x00-")
@example("\x1c1\x1d.\x1e,\x1f-\x85")
@example("\ud800.\udfff,1-")
@example("\ue000 a \ue000")
def test_one_line_equals_sacrebleu(text):
    expected = oracle(text)
    assert tokenize_13a(text) == expected
    assert get_tokenizer("13a")(text) == expected
    assert get_tokenizer("13a", lowercase=True)(text) == oracle(text.lower())


@_FUZZ
@given(_batch)
@example(["\x00a", "a"])
@example(["\x00", "\x01", "\ue000"])
def test_batch_equals_sacrebleu(texts):
    expected = [oracle(text) for text in texts]
    assert tokenize_13a_batch(texts) == expected
    _check_spans(token_spans_13a(texts), expected)
    tokenize = get_tokenizer("13a")
    assert tokenize.tokenize_all(texts) == expected
    _check_spans(tokenize.spans_all(texts), expected)


@_FUZZ
@given(_batch)
def test_lowercase_batch_equals_sacrebleu_on_lowercased_text(texts):
    # sacrebleu lowercases the line, then tokenizes it.
    expected = [oracle(text.lower()) for text in texts]
    tokenize = get_tokenizer("13a", lowercase=True)
    assert tokenize.tokenize_all(texts) == expected
    _check_spans(tokenize.spans_all(texts), expected)


@_FUZZ
@given(_batch, st.integers(0, len(tokenizers_module._SEPARATORS)), st.integers(0, 10), st.data())
def test_batch_whatever_separators_the_text_holds(texts, n_taken, at, data):
    # The first n_taken candidates between lines occur in the text, in one line or spread
    # over several: the batch takes the next one, or none at all when every one is taken.
    taken = "".join(tokenizers_module._SEPARATORS[:n_taken])
    if data.draw(st.booleans()):
        texts = texts[:at] + [taken] + texts[at:]
    else:
        texts = texts + [taken[i::3] for i in range(3)]
    expected = [oracle(text) for text in texts]
    assert tokenize_13a_batch(texts) == expected
    _check_spans(token_spans_13a(texts), expected)


@_FUZZ
@given(_batch, st.integers(1, 60))
def test_batch_across_chunks_equals_sacrebleu(texts, chunk_chars):
    expected = [oracle(text) for text in texts]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tokenizers_module, "CHUNK_CHARS_13A", chunk_chars)
        assert tokenize_13a_batch(texts) == expected
        _check_spans(token_spans_13a(texts), expected)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["1", ".", ",", "-", "a", " ", "\x00", "\x85", "&amp;"]), min_size=1, max_size=6))
def test_long_runs_equal_sacrebleu(pattern):
    # Long runs of periods, commas, dashes and digits, in long lines.
    text = "".join(piece * 2000 for piece in pattern)
    expected = oracle(text)
    assert tokenize_13a(text) == expected
    assert tokenize_13a_batch([text, text[::-1]]) == [expected, oracle(text[::-1])]
    _check_spans(token_spans_13a([text, text[::-1]]), [expected, oracle(text[::-1])])


# -- text scoring -----------------------------------------------------------------

#: Few distinct words, so that n-grams match; mixed with the adversarial alphabet.
_scoring_line = st.one_of(
    st.lists(
        st.one_of(
            st.sampled_from(["a", "b", "a.", "1", ",", "-", " ", " ", "\x00", "\x00a", "b\x00"]), _adversarial_char
        ),
        max_size=14,
    ).map("".join),
    st.just(""),
)


@st.composite
def _corpora(draw):
    n_segments = draw(st.integers(0, 6))
    predictions = draw(st.lists(_scoring_line, min_size=n_segments, max_size=n_segments))
    references = draw(
        st.lists(st.lists(_scoring_line, min_size=1, max_size=4), min_size=n_segments, max_size=n_segments)
    )
    max_len = draw(st.integers(1, 5))
    min_len = draw(st.integers(1, max_len))
    return predictions, references, min_len, max_len


@_FUZZ
@given(_corpora(), st.booleans())
@example((["\x00a"], [["a"]], 1, 4), False)
@example((["a \x00"], [["a"]], 1, 4), False)
@example((["\x00a b"], [["a b", "\x00a"]], 1, 4), False)
@example((["", "a"], [[""], ["", "a"]], 1, 4), False)
@example((["A, b."], [["a , B ."]], 1, 2), True)
def test_text_scores_equal_sacrebleu_and_nltk(corpus, lowercase):
    predictions, references, min_len, max_len = corpus
    tokenize = (lambda text: oracle(text.lower())) if lowercase else oracle
    hypotheses = [tokenize(text) for text in predictions]
    list_of_references = [[tokenize(text) for text in refs] for refs in references]
    expected = nltk_corpus(list_of_references, hypotheses, min_len, max_len) if predictions else 0.0
    expected_sentences = [
        nltk_sentence(refs, hyp, min_len, max_len) for refs, hyp in zip(list_of_references, hypotheses)
    ]
    # The tokens the text path counts are sacrebleu's...
    lines = predictions + [text for refs in references for text in refs]
    spans = get_tokenizer("13a", lowercase).spans_all(lines)
    assert span_tokens(spans) == hypotheses + [
        tokens for refs in list_of_references for tokens in refs
    ]
    # ... counting those tokens gives nltk's numbers...
    stats = google_bleu.gleu_stats(hypotheses, list_of_references, min_len, max_len)
    assert stats.score() == expected
    assert stats.sentence_scores().tolist() == expected_sentences
    # ... and so does scoring the text.
    text = google_bleu.GLEU(lowercase=lowercase, min_len=min_len, max_len=max_len).stats(predictions, references)
    assert text.rows.tolist() == stats.rows.tolist()
    assert text.score() == expected
    assert text.sentence_scores().tolist() == expected_sentences


@st.composite
def _controlled_corpora(draw):
    """Few words, with NUL and other controls put inside, before and after tokens."""
    words = st.lists(st.sampled_from(["a", "b", "1", ".", "-"]), min_size=1, max_size=6).map(" ".join)
    n_segments = draw(st.integers(1, 4))
    references = draw(st.lists(st.lists(words, min_size=1, max_size=3), min_size=n_segments, max_size=n_segments))
    predictions = []
    for refs in references:
        text = draw(st.sampled_from(refs))
        for _ in range(draw(st.integers(1, 3))):
            at = draw(st.integers(0, len(text)))
            text = (
                text[:at]
                + draw(st.sampled_from(["\x00", "\x00\x00", "\x01", "\x1f", "\x7f", "\x9f", "\ue000"]))
                + text[at:]
            )
        predictions.append(text)
    return predictions, references


@_FUZZ
@given(_controlled_corpora())
@example((["\x00a"], [["a"]]))
@example((["b\x00 a"], [["b a"]]))
def test_controls_next_to_tokens_score_as_in_sacrebleu_and_nltk(corpus):
    # A control character glued to a token makes another token: it must not match the bare one.
    predictions, references = corpus
    hypotheses = [oracle(text) for text in predictions]
    list_of_references = [[oracle(text) for text in refs] for refs in references]
    assert tokenize_13a_batch(predictions) == hypotheses
    expected = nltk_corpus(list_of_references, hypotheses)
    stats = google_bleu.GLEU().stats(predictions, references)
    assert stats.score() == expected
    assert stats.sentence_scores().tolist() == [
        nltk_sentence(refs, hyp) for refs, hyp in zip(list_of_references, hypotheses)
    ]
