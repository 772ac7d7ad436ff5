"""Our 13a gives exactly sacrebleu's Tokenizer13a tokens: real data, edge cases, fuzz."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from google_bleu import fast13a as tokenizers_module
from google_bleu import get_tokenizer
from google_bleu.fast13a import token_spans_13a, tokenize_13a
from tests.helpers.oracles import SAMPLES, read_lines, span_tokens

_ORACLE = Tokenizer13a()


def tokenize_13a_batch(texts):
    """The batch path's tokens (:func:`token_spans_13a`), decoded line by line."""
    return span_tokens(token_spans_13a(texts))


def oracle(text):
    return _ORACLE(text).split()


# Characters 13a treats specially, mixed with letters, digits, whitespace of every kind,
# non-ASCII, lone surrogates and the characters the batch uses between lines.
_SPECIAL = list(".,-&;<>\"'!?()[]{}/:@#$%*+=^_`|~\\") + ["\n", "-\n", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x85"]
_PIECES = _SPECIAL + [
    "<skipped>",
    "&quot;",
    "&amp;",
    "&lt;",
    "&gt;",
    "&amp;quot;",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\x00",
    "\x01",
    "\ue000",
    "\ud800",
    "é",
    "ß",
    "日本",
    "–",
    "—",
    "…",
]
_piece = st.one_of(
    st.sampled_from(_PIECES),
    st.sampled_from(list("0123456789")),
    st.sampled_from(list("abcXYZ ")),
    st.text(max_size=3),
)
_line = st.lists(_piece, max_size=30).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_line)
@example("1.,.a")
@example("a..,1")
@example(",,,1,,,")
@example("9-\n-1")
@example("&amp;lt;")
@example("<skip<skipped>ped>")
def test_fuzz_one_line_equals_sacrebleu(text):
    assert tokenize_13a(text) == oracle(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(_line, max_size=12))
def test_fuzz_batch_equals_sacrebleu(texts):
    expected = [oracle(text) for text in texts]
    assert tokenize_13a_batch(texts) == expected
    assert token_spans_13a(texts).counts.tolist() == list(map(len, expected))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_fuzz_arbitrary_unicode(text):
    assert tokenize_13a(text) == oracle(text)


def test_a_line_holding_every_separator_is_done_on_its_own():
    crowded = "".join(tokenizers_module._SEPARATORS) + " a.b, 1.5 x-1-\t\u3000y"
    texts = [crowded, "plain, text.", "3-4"]
    expected = [oracle(text) for text in texts]
    assert tokenize_13a_batch(texts) == expected
    assert token_spans_13a(texts).counts.tolist() == list(map(len, expected))


def test_small_chunks_give_the_same_tokens(monkeypatch):
    texts = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")[:300]
    expected = tokenize_13a_batch(texts)
    monkeypatch.setattr(tokenizers_module, "CHUNK_CHARS_13A", 500)
    assert tokenize_13a_batch(texts) == expected == [oracle(text) for text in texts]


def test_lowercase_batch_equals_lowercase_one_by_one():
    tokenize = get_tokenizer("13a", lowercase=True)
    texts = ["ÄB, C.", "ΟΔΟΣ. ΟΔΟΣ", "İstanbul 3,5"]
    assert tokenize.tokenize_all(texts) == [tokenize(text) for text in texts] == [oracle(t.lower()) for t in texts]


def _all_shared_lines(shared):
    for path in sorted(shared.glob("*/*.txt")):
        if path.name.startswith(("PROVENANCE", "README")):
            continue
        yield path, read_lines(path)


def test_every_line_of_shared_data_equals_sacrebleu(shared_data):
    n_lines = 0
    for path, lines in _all_shared_lines(shared_data):
        got = tokenize_13a_batch(lines)
        expected = [oracle(line) for line in lines]
        assert got == expected, path
        n_lines += len(lines)
    assert n_lines > 50_000


@pytest.mark.parametrize("pair", ["wmt17_en_de", "wmt22_en_ja"])
def test_bundled_samples_equal_sacrebleu(pair):
    for path in sorted((SAMPLES / pair).glob("*.txt")):
        lines = read_lines(path)
        assert tokenize_13a_batch(lines) == [oracle(line) for line in lines]


def test_byte_classes_match_the_13a_definitions():
    # The split ranges are 13a's regex-1 punctuation without the space; the whitespace
    # blanked is exactly what str.split splits at, besides the space.
    ranges = tokenizers_module._13A_RANGES
    split = "".join(chr(b) for first, last in ranges for b in range(first, last + 1))
    assert sorted(split) == sorted(tokenizers_module._13A_PUNCTUATION.replace(" ", ""))
    whitespace = [chr(c) for c in range(0x110000) if len(f"a{chr(c)}b".split()) == 2 and c != 0x20]
    assert sorted(tokenizers_module._OTHER_WHITESPACE_CHARS) == whitespace


def test_every_code_point_in_every_13a_context_equals_sacrebleu():
    # Each code point after a digit, before and after a comma, and before a dash: the
    # contexts of 13a's rules. 256 code points a line, so some lines hold every candidate
    # the batch could put between lines (U+0000..U+0008, U+E000..U+E0FF).
    lines = ["1".join(f"{c},{c}-" for c in map(chr, range(block, block + 256))) for block in range(0, 0x110000, 256)]
    expected = [oracle(line) for line in lines]
    assert tokenize_13a_batch(lines) == expected
    assert [tokenize_13a(line) for line in lines] == expected


@pytest.mark.parametrize("where", [0, 1, 500, 998, 999])
def test_a_line_holding_every_separator_among_ordinary_lines(where):
    texts = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")[:999]
    texts.insert(where, "".join(tokenizers_module._SEPARATORS) + " 1.5-2, a.b")
    expected = [oracle(text) for text in texts]
    assert tokenize_13a_batch(texts) == expected
    assert token_spans_13a(texts).counts.tolist() == list(map(len, expected))


def test_empty_and_blank_batches():
    assert tokenize_13a_batch([]) == []
    spans = token_spans_13a([])
    assert spans.counts.dtype == np.int64 and spans.counts.size == 0 and spans.starts.size == 0
    texts = ["", " ", "\t\x1c\u3000", "<skipped>", "-\n", "\n\n"]
    assert tokenize_13a_batch(texts) == [tokenize_13a(text) for text in texts] == [oracle(text) for text in texts] == [[]] * len(texts)
    assert token_spans_13a(texts).counts.tolist() == [0] * len(texts)


@pytest.mark.parametrize("n_parts", [2, 3, 7])
def test_lines_sharing_out_every_separator_equal_sacrebleu(n_parts):
    # No candidate is free for the batch, nor for any n_parts consecutive lines.
    separators = tokenizers_module._SEPARATORS
    texts = [f"{i}.5-{i}, a." + "".join(separators[i % n_parts :: n_parts]) for i in range(40)]
    texts[17:17] = ["", "".join(separators), "-\n", "".join(separators) + " x"]
    expected = [oracle(text) for text in texts]
    assert tokenize_13a_batch(texts) == expected
    assert token_spans_13a(texts).counts.tolist() == list(map(len, expected))
