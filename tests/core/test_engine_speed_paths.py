"""The fast paths (type-level validation, chunking, batch tokenization, line dedupe) change no number
and no message: each is compared with nltk or with the per-item path it short-cuts."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import google_bleu.engine as engine
import google_bleu.gleu as gleu
import google_bleu.keys as keys
from google_bleu import corpus_gleu, get_tokenizer, gleu_stats, text_stats
from google_bleu.validation import check_texts, check_tokens, check_utf8
from tests.helpers.oracles import SAMPLES, nltk_corpus, nltk_sentence, read_lines, tokenize_13a

# The vectorised engine's own paths, whatever the inputs' size.
pytestmark = pytest.mark.usefixtures("numpy_strategy")

tokens = st.one_of(st.sampled_from(["a", "b", "c"]), st.integers(0, 2))
sentence = st.lists(tokens, max_size=12)
segment = st.tuples(sentence, st.lists(sentence, min_size=1, max_size=4))


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


class Text(str):
    """A str subclass: takes the per-item path of check_texts."""


@pytest.mark.parametrize(
    ("predictions", "references", "expected"),
    [
        (["a", "b"], ["x", "y"], [["x"], ["y"]]),
        (["a", "b"], [["x"], ("y", "z")], [["x"], ["y", "z"]]),
        (["a", "b"], ["x", ["y"]], [["x"], ["y"]]),
        ([Text("a")], [[Text("x")]], [["x"]]),
        (("a",), (["x", "w"],), [["x", "w"]]),
    ],
)
def test_check_texts_normalises_the_same_on_both_paths(predictions, references, expected):
    got_predictions, got_references = check_texts(predictions, references)
    assert got_predictions == list(predictions)
    assert got_references == expected
    assert all(type(refs) is list for refs in got_references)


@pytest.mark.parametrize(
    ("predictions", "references", "error", "message"),
    [
        (["a", 3], ["x", "y"], TypeError, "prediction 1 must be a str, got int 3"),
        (["a"], [[]], ValueError, "prediction 0 has no reference"),
        (["a"], [["x", None]], TypeError, "reference 1 of prediction 0 must be a str, got NoneType None"),
        (["a"], [5], TypeError, "references of prediction 0 must be a str or a list of str, got int 5"),
    ],
)
def test_check_texts_messages(predictions, references, error, message):
    with pytest.raises(error, match=message):
        check_texts(predictions, references)


@pytest.mark.parametrize("at", [0, 255, 256, 700])
def test_utf8_check_in_batches_finds_a_surrogate_anywhere(at):
    # Empty texts too: a batch of them is no end of the input.
    predictions = [""] * 701
    predictions[at] = "ok \udfff"
    with pytest.raises(ValueError, match=f"prediction {at} holds a lone surrogate U\\+DFFF at character 3"):
        check_utf8(predictions, [["r"]] * 701)
    check_utf8([""] * 701, [[""]] * 700 + [["\U0001f600"]])
    with pytest.raises(ValueError, match="reference 1 of prediction 700 holds a lone surrogate U\\+D83D"):
        check_utf8([""] * 701, [[""]] * 700 + [["", "\ud83d\ude00"]])


def test_text_chunks_and_dedupe_change_nothing(monkeypatch):
    refs = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")
    systems = sorted((SAMPLES / "wmt17_en_de").glob("sys_*.txt"))
    hyps = [line for path in systems for line in read_lines(path)]
    references = [[ref, refs[(i + 1) % len(refs)]] for i, ref in enumerate(refs)] * len(systems)
    tok_refs = [[tokenize_13a(r) for r in rs] for rs in references]
    tok_hyps = [tokenize_13a(h) for h in hyps]
    expected = gleu_stats(tok_hyps, tok_refs)
    assert expected.score() == nltk_corpus(tok_refs, tok_hyps)
    assert text_stats(hyps, references) == expected
    monkeypatch.setattr(gleu, "TEXT_CHUNK_CHARS", 1000)
    assert text_stats(hyps, references) == expected
    # Lines tokenized in earlier chunks are reused; the kept lines are forgotten past the bound.
    monkeypatch.setattr(gleu, "SEEN_LINES", 50)
    assert text_stats(hyps, references) == expected


def test_custom_tokenizer_runs_once_per_distinct_line_and_sees_every_line():
    seen = []

    def tokenize(text):
        seen.append(text)
        return text.split()

    predictions = ["a b", "a b", "c"]
    references = [["a b", "x"], ["a b"], ["c d"]]
    stats = text_stats(predictions, references, tokenizer=tokenize)
    assert sorted(seen) == ["a b", "c", "c d", "x"]
    tok_refs = [[r.split() for r in rs] for rs in references]
    assert stats.score() == nltk_corpus(tok_refs, [p.split() for p in predictions])


def test_lowercase_batch_path_equals_per_line():
    tokenize = get_tokenizer("13a", lowercase=True)
    predictions = ["The Cat, SAT.", "ΣΟΦΟΣ ΛΟΓΟΣ"]
    references = [["the cat sat."], ["σοφος λογος"]]
    stats = text_stats(predictions, references, lowercase=True)
    tok_refs = [[tokenize(r) for r in rs] for rs in references]
    assert stats.score() == nltk_corpus(tok_refs, [tokenize(p) for p in predictions])


# -- the str path of the engine: tokens as UTF-8 bytes in numpy ----------------------
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


def _str_words(sentences):
    non_empty = [s for s in sentences if s]
    spans = keys._nul_spans("\0".join(map("\0".join, non_empty)), sum(map(len, sentences)))
    return None if spans is None else keys._token_words(*spans)


def _no_dictionary(monkeypatch):
    def refuse(tokens, n_tokens):
        raise AssertionError("the dictionary path was taken")

    monkeypatch.setattr(keys, "token_ids", refuse)


def _same_partition(rep, flat):
    for i, a in enumerate(flat):
        for j, b in enumerate(flat):
            assert (rep[i] == rep[j]) == (a == b), (a, b)


def test_str_path_groups_equal_tokens_only(monkeypatch):
    sentences = [TRICKY, TRICKY[::-1], ["abcdefghi", "abcdefgh", "abcdefghi"]]
    _no_dictionary(monkeypatch)
    rep = _groups(sentences)
    flat = [t for s in sentences for t in s]
    assert (np.take(rep, rep) == rep).all()  # a representative represents itself
    _same_partition(rep.tolist(), flat)


def test_equal_tokens_in_other_segments_are_other_groups(monkeypatch):
    _no_dictionary(monkeypatch)
    rep = _groups([["a", "abcdefghij"], ["abcdefghij", "a"], ["a"]], segments=np.array([0, 0, 1]))
    assert rep[0] == rep[3] != rep[1] == rep[2]
    assert rep[4] == 4  # "a" of segment 1 is alone in its group


def test_stored_lines_give_the_groups_of_their_tokens(monkeypatch):
    tokens = [[t for t in TRICKY if t], ["abcdefghi", "x"], [], ["日本語のテキスト", "a"]]
    lines = ["  ".join(tokens[0]) + " ", " abcdefghi x", "", "日本語のテキスト a"]
    store = keys.LineStore()
    ids = store.ids(lines, _whitespace_spans)
    lengths = np.take(store.counts, ids)
    assert lengths.tolist() == list(map(len, tokens))
    _no_dictionary(monkeypatch)
    assert np.array_equal(store.groups(ids, lengths, np.zeros(int(lengths.sum()), np.int64)), _groups(tokens))


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


def test_long_token_hash_collisions_fall_back_to_the_dictionary(monkeypatch):
    # Every long token hashed alike: the byte check finds the collision, and the chunk is
    # counted with exact ids from the dictionary instead.
    monkeypatch.setattr(keys, "_hash_long", lambda aligned, starts, lengths, first: np.zeros(starts.size, np.uint64))
    calls = []
    token_ids = keys.token_ids
    monkeypatch.setattr(keys, "token_ids", lambda *args: calls.append(1) or token_ids(*args))
    flat = ["abcdefghijk", "abcdefghijl", "abcdefghijk", "a", "abcdefghijkl"]
    _same_partition(_groups([flat]).tolist(), flat)
    assert calls
    calls.clear()
    # Equal long tokens pass the check: no fallback.
    _groups([["abcdefghijk", "a", "abcdefghijk"]])
    assert not calls
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


def test_lines_with_equal_hashes_are_told_apart(monkeypatch):
    # Every line hashed alike: the == check finds the unequal ones, which are matched by a
    # dictionary; the store keeps every line it holds.
    predictions, references = _span_corpus()
    expected = _token_lists_stats(predictions, references)
    monkeypatch.setattr(keys, "hash", lambda text: 7, raising=False)
    assert text_stats(predictions, references) == expected
    store = keys.LineStore()
    spans = get_tokenizer("13a").spans_all
    assert store.ids(["a", "b", "a"], spans).tolist() == [0, 1, 0]
    assert store.ids(["b", "c", "b", "a"], spans).tolist() == [1, 2, 1, 0] and store.texts == ["a", "b", "c"]


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
    assert text_stats(predictions, references) == _token_lists_stats(predictions, references)


def test_stored_long_token_hash_collisions_fall_back_to_exact_ids(monkeypatch):
    predictions, references = _span_corpus()
    expected = _token_lists_stats(predictions, references)
    calls = []
    token_ids = keys.token_ids
    monkeypatch.setattr(keys, "token_ids", lambda *args: calls.append(1) or token_ids(*args))
    assert text_stats(predictions, references) == expected
    assert not calls
    monkeypatch.setattr(keys, "_hash_long", lambda aligned, starts, lengths, first: np.zeros(starts.size, np.uint64))
    assert text_stats(predictions, references) == expected
    assert calls


def test_stored_tokens_holding_nul_are_exact():
    # "a\x00" zero-padded would read as "a": such tokens are hashed from their bytes and length.
    predictions, references = ["a\x00 a b\x00\x00"], [["a a b\x00 b\x00\x00\x00"]]
    expected = _token_lists_stats(predictions, references)
    assert expected.rows[0, 0] == 1  # only "a" matches: NUL is part of a token
    assert text_stats(predictions, references) == expected


def test_text_path_with_every_chunk_and_store_bound_equals_token_lists(monkeypatch):
    predictions, references = _span_corpus()
    expected = _token_lists_stats(predictions, references)
    for chunk_chars, seen_lines, seen_tokens in ((1, 0, 1 << 18), (40, 2, 1 << 18), (40, 1 << 16, 3), (1 << 21, 1 << 16, 1 << 18)):
        monkeypatch.setattr(gleu, "TEXT_CHUNK_CHARS", chunk_chars)
        monkeypatch.setattr(gleu, "SEEN_LINES", seen_lines)
        monkeypatch.setattr(gleu, "SEEN_TOKENS", seen_tokens)
        assert text_stats(predictions, references) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), max_size=60), st.integers(1, 4))
def test_group_is_exact_whatever_the_hash(pairs, buckets):
    # Hashes with only a few distinct values (many collisions, and equal hashes that
    # rehash alike): the rounds still give equal elements one representative, unequal never.
    a = np.array([x for x, _ in pairs], np.int64)
    b = np.array([y for _, y in pairs], np.int64)
    hashed = ((a + b) % buckets).astype(np.uint64) << np.uint64(60)
    rep = keys._group(hashed, (a, b))
    assert (np.take(rep, rep) == rep).all() if pairs else rep.size == 0
    _same_partition(rep.tolist(), pairs)


def test_forced_collisions_give_the_same_scores(monkeypatch):
    # A zero multiplier hashes every key alike, at every order: every element starts in
    # one slot and the rounds sort them out, with equal results.
    hyps = [["a", "b", "abcdefghij", "é"], ["x", "y"], []]
    refs = [[["a", "abcdefghij", "b"], ["é"]], [["y", "x", "y"]], [["z"]]]
    expected = gleu_stats(hyps, refs)
    monkeypatch.setattr(keys, "_GOLDEN", np.uint64(0))
    assert gleu_stats(hyps, refs) == expected
    assert expected.score() == nltk_corpus(refs, hyps)
