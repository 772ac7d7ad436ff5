"""Text to counts: the texts' checks, chunks of text, each distinct line tokenized once, and
characters 13a keeps inside tokens; compared with nltk on sacrebleu's tokens or with the
per-item path each short-cuts."""

import re

import pytest

import google_bleu.text as gleu
from google_bleu import GLEU, get_tokenizer, gleu_stats
from google_bleu.validation import check_texts, check_utf8
from tests.helpers.oracles import SAMPLES, nltk_corpus, nltk_sentence, read_lines, tokenize_13a

pytestmark = pytest.mark.usefixtures("both_strategies")


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
        (["a", 3], ["x", "y"], TypeError, "predictions[1] must be a str, got int 3"),
        (["a"], [[]], ValueError, "references[0] has no reference"),
        (["a"], [["x", None]], TypeError, "references[0][1] must be a str, got NoneType None"),
        (["a"], [5], TypeError, "references[0] must be a str or a list of str, got int 5"),
    ],
)
def test_check_texts_messages(predictions, references, error, message):
    with pytest.raises(error, match=re.escape(message)):
        check_texts(predictions, references)


@pytest.mark.parametrize("at", [0, 255, 256, 700])
def test_utf8_check_in_batches_finds_a_surrogate_anywhere(at):
    # Empty texts too: a batch of them is no end of the input.
    predictions = [""] * 701
    predictions[at] = "ok \udfff"
    with pytest.raises(ValueError, match=f"predictions\\[{at}\\] holds a lone surrogate U\\+DFFF at character 3"):
        check_utf8(predictions, [["r"]] * 701)
    check_utf8([""] * 701, [[""]] * 700 + [["\U0001f600"]])
    with pytest.raises(ValueError, match="references\\[700\\]\\[1\\] holds a lone surrogate U\\+D83D"):
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
    assert GLEU().stats(hyps, references) == expected
    monkeypatch.setattr(gleu, "TEXT_CHUNK_CHARS", 1000)
    assert GLEU().stats(hyps, references) == expected
    # Lines tokenized in earlier chunks are reused; the kept lines are forgotten past the bound.
    monkeypatch.setattr(gleu, "SEEN_LINES", 50)
    assert GLEU().stats(hyps, references) == expected


def test_custom_tokenizer_runs_once_per_distinct_line_and_sees_every_line():
    seen = []

    def tokenize(text):
        seen.append(text)
        return text.split()

    predictions = ["a b", "a b", "c"]
    references = [["a b", "x"], ["a b"], ["c d"]]
    stats = GLEU(tokenizer=tokenize).stats(predictions, references)
    assert sorted(seen) == ["a b", "c", "c d", "x"]
    tok_refs = [[r.split() for r in rs] for rs in references]
    assert stats.score() == nltk_corpus(tok_refs, [p.split() for p in predictions])


def test_lowercase_batch_path_equals_per_line():
    tokenize = get_tokenizer("13a", lowercase=True)
    predictions = ["The Cat, SAT.", "ΣΟΦΟΣ ΛΟΓΟΣ"]
    references = [["the cat sat."], ["σοφος λογος"]]
    stats = GLEU(lowercase=True).stats(predictions, references)
    tok_refs = [[tokenize(r) for r in rs] for rs in references]
    assert stats.score() == nltk_corpus(tok_refs, [tokenize(p) for p in predictions])


def test_nul_characters_in_text_are_token_characters():
    # sacrebleu's 13a keeps NUL inside tokens (it is not whitespace for str.split).
    for prediction, reference in [("\x00a", "a"), ("a \x00 b", "a b"), ("a\x00", "a\x00 b"), ("\x00", "\x00")]:
        hyp, ref = tokenize_13a(prediction), tokenize_13a(reference)
        got = GLEU().stats([prediction], [reference])
        assert got.score() == nltk_corpus([[ref]], [hyp]), (prediction, reference)
        assert got.sentence_scores().tolist() == [nltk_sentence([ref], hyp)]
