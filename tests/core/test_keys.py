"""Token keys and their grouping (``google_bleu.keys``): str tokens by their UTF-8 bytes, long
tokens by a hash checked byte for byte, other tokens by exact ids, and lines kept once in the
line store. Hash collisions are made by giving two tokens one word, not by replacing the hash."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import google_bleu.keys as keys
import google_bleu.text as gleu
from google_bleu import GLEU, corpus_gleu, get_tokenizer, gleu_stats
from tests.helpers.oracles import nltk_corpus, nltk_sentence

# The vectorised engine's own paths, whatever the inputs' size.
pytestmark = pytest.mark.usefixtures("numpy_strategy")


class Word(str):
    """A str subclass: compared by its text on the str path, as by str.__eq__."""

# Short and long tokens (8 bytes is the exact-word limit) sharing prefixes, empty tokens,
# non-ASCII, lone surrogates and a subclass instance equal to a plain token.
TRICKY = [
    "",
    "a",
    "ab",
    "abcdefg",
    "abcdefgh",
    "abcdefghi",
    "abcdefghij",
    "abcdefghabcdefgh",
    "abcdefghabcdefghX",
    "é",
    "ée",
    "日本語のテキスト",
    "日本語のテキストだ",
    "\ud800",
    "\ud83d\ude00",
    "😀",
    Word("ab"),
    Word("abcdefghi"),
]

str_tokens = st.sampled_from(TRICKY)

str_sentence = st.lists(str_tokens, max_size=10)

str_segment = st.tuples(str_sentence, st.lists(str_sentence, min_size=1, max_size=3))


@settings(max_examples=300, deadline=None)
@given(st.lists(str_segment, max_size=10), st.integers(1, 3), st.integers(0, 3))
def test_str_path_equals_nltk_on_tricky_tokens(segments, min_len, extra):
    hyps = [h for h, _ in segments]
    refs = [r for _, r in segments]
    assert corpus_gleu(refs, hyps, min_len, min_len + extra) == nltk_corpus(refs, hyps, min_len, min_len + extra)
    stats = gleu_stats(hyps, refs, min_len, min_len + extra)
    assert stats.sentence_scores().tolist() == [nltk_sentence(r, h, min_len, min_len + extra) for h, r in segments]

def _groups(sentences, segments=None):
    """The engine's order-1 groups of one chunk: a representative position per token."""
    lengths = np.array([len(s) for s in sentences], np.int64)
    segment_of = np.zeros(int(lengths.sum()), np.int64) if segments is None else np.repeat(segments, lengths)
    return keys.token_groups(sentences, lengths, segment_of)


def _str_groups(sentences, segments=None):
    """The str path's groups of one chunk (the tokens' words), or None where it declines."""
    lengths = np.array([len(s) for s in sentences], np.int64)
    segment_of = np.zeros(int(lengths.sum()), np.int64) if segments is None else np.repeat(segments, lengths)
    spans = keys._nul_spans("\0".join(map("\0".join, [s for s in sentences if s])), int(lengths.sum()))
    return None if spans is None else keys._word_groups(*spans, keys._token_words(*spans), segment_of)


def _str_words(sentences):
    non_empty = [s for s in sentences if s]
    spans = keys._nul_spans("\0".join(map("\0".join, non_empty)), sum(map(len, sentences)))
    return None if spans is None else keys._token_words(*spans)


def _same_partition(rep, flat):
    for i, a in enumerate(flat):
        for j, b in enumerate(flat):
            assert (rep[i] == rep[j]) == (a == b), (a, b)


def test_str_path_groups_equal_tokens_only():
    sentences = [TRICKY, TRICKY[::-1], ["abcdefghi", "abcdefgh", "abcdefghi"]]
    rep = _str_groups(sentences)
    assert rep is not None and np.array_equal(rep, _groups(sentences))  # the path token_groups takes
    flat = [t for s in sentences for t in s]
    assert (np.take(rep, rep) == rep).all()  # a representative represents itself
    _same_partition(rep.tolist(), flat)


def test_equal_tokens_in_other_segments_are_other_groups():
    sentences, segments = [["a", "abcdefghij"], ["abcdefghij", "a"], ["a"]], np.array([0, 0, 1])
    rep = _str_groups(sentences, segments)
    assert np.array_equal(rep, _groups(sentences, segments))
    assert rep[0] == rep[3] != rep[1] == rep[2]
    assert rep[4] == 4  # "a" of segment 1 is alone in its group


def test_stored_lines_give_the_groups_of_their_tokens():
    tokens = [[t for t in TRICKY if t], ["abcdefghi", "x"], [], ["日本語のテキスト", "a"]]
    lines = ["  ".join(tokens[0]) + " ", " abcdefghi x", "", "日本語のテキスト a"]
    store = keys.LineStore()
    ids = store.ids(lines, _whitespace_spans)
    lengths = np.take(store.counts, ids)
    assert lengths.tolist() == list(map(len, tokens))
    assert np.array_equal(store.groups(ids, lengths, np.zeros(int(lengths.sum()), np.int64)), _str_groups(tokens))


def _whitespace_spans(texts):
    """Spans of the tokens of ``text.split(" ")`` (no other whitespace in these texts)."""
    codes, starts, lengths, counts = bytearray(), [], [], []
    for text in texts:
        tokens = [token.encode("utf-8", "surrogatepass") for token in text.split(" ") if token]
        for token in tokens:
            starts.append(len(codes) + 1)
            lengths.append(len(token))
            codes += b" " + token
        counts.append(len(tokens))
    from google_bleu.fast13a import TokenSpans

    as_array = lambda values: np.array(values, np.int64)  # noqa: E731
    return TokenSpans(np.frombuffer(bytes(codes + b" "), np.uint8), as_array(starts), as_array(lengths), as_array(counts))


def test_long_token_words_never_equal_short_ones():
    words = _str_words([["abcdefghi", "abcdefghij", "a", "abcdefgh", ""]])
    assert (words[:2] & 0xFF == 0).all() and (words[:2] != 0).all()
    assert (words[2:4] & 0xFF != 0).all() and words[4] == 0


def test_str_path_declines_tokens_holding_nul():
    # A NUL inside a token would split it: the dictionary path counts such chunks.
    assert _str_words([["a", "b\x00c"]]) is None
    hyps, refs = [["a", "b\x00c"]], [[["b\x00c", "a"]]]
    assert corpus_gleu(refs, hyps) == nltk_corpus(refs, hyps)


def test_a_long_token_hash_collision_is_found_by_the_byte_check():
    # Two long tokens given one word, as a hash collision would: the byte check refuses the
    # grouping (None), and token_groups counts such a chunk with exact ids from a dict.
    flat = ["abcdefghijk", "abcdefghijl", "abcdefghijk", "a", "abcdefghijkl"]
    spans = keys._nul_spans("\0".join(flat), len(flat))
    words = keys._token_words(*spans)
    segment_of = np.zeros(len(flat), np.int64)
    _same_partition(keys._word_groups(*spans, words, segment_of).tolist(), flat)
    collided = words.copy()
    collided[1] = collided[0]
    assert keys._word_groups(*spans, collided, segment_of) is None
    collided[4] = collided[0]  # a different length: refused as well
    collided[1] = words[1]
    assert keys._word_groups(*spans, collided, segment_of) is None
    _same_partition(_groups([flat]).tolist(), flat)
    hyps, refs = [["abcdefghijk", "abcdefghijl", "x"]], [[["abcdefghijl", "x", "abcdefghijm"]]]
    assert corpus_gleu(refs, hyps) == nltk_corpus(refs, hyps)


# -- text kept as UTF-8 byte spans: the line store ------------------------------------
SPAN_LINES = [
    "the cat sat on the mat",
    "abcdefghij abcdefghik abcdefghij 日本語のテキスト",
    "a\x00 a",  # a token holding NUL, the other not: different tokens
    "a a\x00b",
    "",
    "the cat sat on the mat",
]


def _token_lists_stats(predictions, references):
    tokenize = get_tokenizer("13a")
    return gleu_stats(tokenize.tokenize_all(predictions), [tokenize.tokenize_all(refs) for refs in references])


def _span_corpus():
    predictions = SPAN_LINES + SPAN_LINES[::-1]
    references = [[SPAN_LINES[(i + 1) % 6], SPAN_LINES[i % 6]] for i in range(12)]
    return predictions, references


def test_line_store_tokenizes_each_distinct_line_once_and_keeps_them_across_calls():
    store = keys.LineStore()
    calls = []

    def spans(texts):
        calls.append(list(texts))
        return get_tokenizer("13a").spans_all(texts)

    first = store.ids(["b c", "a", "b c"], spans)
    again = store.ids(["a", "d", "d", "b c"], spans)
    assert calls == [["b c", "a"], ["d"]]
    assert first.tolist() == [0, 1, 0] and again.tolist() == [1, 2, 2, 0]
    assert store.texts == ["b c", "a", "d"] and store.counts[:3].tolist() == [2, 1, 1]


def test_strings_that_collide_for_every_salt_keep_the_store(monkeypatch):
    # CPython hashes a string's buffer: ", " (1 byte a character) and "\u202c" (2 bytes)
    # share their hash whatever the salt, as "ab" and "\u6261" do. Such a pair neither
    # empties the store nor sends a chunk to the dictionary.
    assert hash(", ") == hash("\u202c") and hash("ab") == hash("\u6261")
    calls = []

    def spans(texts):
        calls.append(list(texts))
        return get_tokenizer("13a").spans_all(texts)

    store = keys.LineStore()
    assert store.ids(["one line", "ab", ", "], spans).tolist() == [0, 1, 2]
    assert store.ids(["\u6261", "one line", "\u202c", ", ", "ab", "\u6261"], spans).tolist() == [3, 0, 4, 2, 1, 3]
    assert calls == [["one line", "ab", ", "], ["\u6261", "\u202c"]]
    assert store.texts == ["one line", "ab", ", ", "\u6261", "\u202c"]
    predictions = ["ab , x", ", ", "\u202c", "one line"] * 3
    references = [[", "], ["\u202c"], [", ", "ab"], ["one line"]] * 3
    assert GLEU().stats(predictions, references) == _token_lists_stats(predictions, references)


def test_a_stored_long_token_hash_collision_falls_back_to_exact_ids():
    store = keys.LineStore()
    ids = store.ids(["abcdefghij abcdefghik abcdefghij", "abcdefghik x"], get_tokenizer("13a").spans_all)
    lengths = np.take(store.counts, ids)
    segment_of = np.zeros(int(lengths.sum()), np.int64)
    exact = store.groups(ids, lengths, segment_of)
    _same_partition(exact.tolist(), ["abcdefghij", "abcdefghik", "abcdefghij", "abcdefghik", "x"])
    store.words[1] = store.words[0]  # "abcdefghik" given the word of "abcdefghij", as a collision would
    _same_partition(store.groups(ids, lengths, segment_of).tolist(), ["abcdefghij", "abcdefghik", "abcdefghij", "abcdefghik", "x"])


def test_stored_tokens_holding_nul_are_exact():
    # "a\x00" zero-padded would read as "a": such tokens are hashed from their bytes and length.
    predictions, references = ["a\x00 a b\x00\x00"], [["a a b\x00 b\x00\x00\x00"]]
    expected = _token_lists_stats(predictions, references)
    assert expected.rows[0, 0] == 1  # only "a" matches: NUL is part of a token
    assert GLEU().stats(predictions, references) == expected


def test_text_path_with_every_chunk_and_store_bound_equals_token_lists(monkeypatch):
    predictions, references = _span_corpus()
    expected = _token_lists_stats(predictions, references)
    for chunk_chars, seen_lines, seen_tokens in ((1, 0, 1 << 18), (40, 2, 1 << 18), (40, 1 << 16, 3), (1 << 21, 1 << 16, 1 << 18)):
        monkeypatch.setattr(gleu, "TEXT_CHUNK_CHARS", chunk_chars)
        monkeypatch.setattr(gleu, "SEEN_LINES", seen_lines)
        monkeypatch.setattr(gleu, "SEEN_TOKENS", seen_tokens)
        assert GLEU().stats(predictions, references) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), max_size=60), st.integers(1, 4))
@example([(0, 0), (1, 0), (0, 1), (1, 1), (0, 0), (5, 3)], 1)  # every element hashed alike
def test_group_is_exact_whatever_the_hash(pairs, buckets):
    # Hashes with only a few distinct values (many collisions, and equal hashes that
    # rehash alike): the rounds still give equal elements one representative, unequal never.
    a = np.array([x for x, _ in pairs], np.int64)
    b = np.array([y for _, y in pairs], np.int64)
    hashed = ((a + b) % buckets).astype(np.uint64) << np.uint64(60)
    rep = keys._group(hashed, (a, b))
    assert (np.take(rep, rep) == rep).all() if pairs else rep.size == 0
    _same_partition(rep.tolist(), pairs)
