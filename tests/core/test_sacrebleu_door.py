"""The sacrebleu-shaped door (issue 23): sentence_score, reference streams by an explicit
method (never guessed from shapes), and an error that names the orientation."""

from __future__ import annotations

import pytest
import sacrebleu

from google_bleu import GLEU
from tests.helpers.oracles import SAMPLES, nltk_sentence, read_lines, tokenize_13a

WMT17 = SAMPLES / "wmt17_en_de"


def test_sentence_score_equals_nltk():
    hypothesis, references = "the cat sat on the mat", ["the cat ate the mat", "a cat sat"]
    score = GLEU().sentence_score(hypothesis, references)
    assert score.score == nltk_sentence([tokenize_13a(r) for r in references], tokenize_13a(hypothesis))
    with pytest.raises(TypeError, match="hypothesis must be a str"):
        GLEU().sentence_score(["a"], ["a"])


def test_streams_equal_per_segment_references_on_real_data():
    predictions = read_lines(WMT17 / "sys_online-A.0.txt")
    streams = [read_lines(WMT17 / "ref0.txt"), read_lines(WMT17 / "sys_online-B.0.txt")]
    scorer = GLEU()
    assert scorer.corpus_score_streams(predictions, streams) == scorer.corpus_score(
        predictions, [list(refs) for refs in zip(*streams)]
    )
    # sacrebleu's own corpus call takes the same streams.
    assert sacrebleu.corpus_bleu(predictions, streams).score > 0


def test_streams_passed_as_references_get_a_message_naming_the_orientation():
    predictions = ["a b", "c d", "e f"]
    streams = [["a b", "c d", "e f"], ["x", "y", "z"]]
    with pytest.raises(ValueError, match=r"references are per segment.*corpus_score_streams"):
        GLEU().corpus_score(predictions, streams)
    with pytest.raises(ValueError, match=r"ref_streams\[1\] has 2 lines but there are 3 predictions"):
        GLEU().corpus_score_streams(predictions, [streams[0], ["x", "y"]])
    with pytest.raises(TypeError, match="ref_streams must be"):
        GLEU().corpus_score_streams(predictions, "a b")
