"""sacrebleu's reference streams passed where references per segment are expected.

With as many streams as segments (a tiny corpus), the references read two ways and the two
readings score apart (2 segments, 2 streams: 0.525 as segments, 1.0 as streams). Every surface
that takes references for a list of segments in one call says so with a
``ReferenceLayoutWarning`` that names ``corpus_score_streams``; a layout that reads one way,
or whose readings agree, is scored without a word (docs/porting.md, "From sacrebleu").
"""

from __future__ import annotations

import asyncio
import warnings
from types import SimpleNamespace

import pytest

import google_bleu
from google_bleu import GLEU, ReferenceLayoutWarning
from google_bleu.integrations import columns, gather, slime, trl, verl
from google_bleu.scale import parallel_stats

HYPOTHESES = ["the cat sat on the mat", "a dog ran in the park"]
# Two reference streams: the first reference of each segment, then the second.
STREAMS = [["the cat sat on the mat", "a dog ran in the park"], ["a cat sat on a mat", "the dog ran off"]]


def _evaluate_compute(metric):
    return metric.compute(predictions=HYPOTHESES, references=STREAMS)["google_bleu"]


def _evaluate_add_batch(metric):
    metric.add_batch(predictions=HYPOTHESES, references=STREAMS)
    return metric.compute()["google_bleu"]


def _torchmetrics(metric):
    from google_bleu.integrations.torchmetrics import GoogleBLEUScore

    scorer = GoogleBLEUScore()
    scorer.update(HYPOTHESES, STREAMS)
    return float(scorer.compute())


def _openrlhf(metric):
    from google_bleu.integrations.openrlhf import OpenRLHFReward

    out = OpenRLHFReward([])(["Q " + text for text in HYPOTHESES], ["Q "] * 2, STREAMS)
    return out["rewards"].tolist()


#: Each surface scores HYPOTHESES against STREAMS given as references per segment.
SURFACES = {
    "GLEU.corpus_score": lambda metric: GLEU().corpus_score(HYPOTHESES, STREAMS).score,
    "GLEU.stats": lambda metric: GLEU().stats(HYPOTHESES, STREAMS).score(),
    "GLEU.sentence_scores": lambda metric: GLEU().sentence_scores(HYPOTHESES, STREAMS),
    "parallel_stats": lambda metric: parallel_stats(GLEU(), HYPOTHESES, STREAMS).score(),
    "evaluate.compute": _evaluate_compute,
    "evaluate.add_batch": _evaluate_add_batch,
    "torchmetrics": _torchmetrics,
    "trl.GleuReward": lambda metric: trl.GleuReward()(HYPOTHESES, reference=STREAMS),
    "trl.AsyncGleuReward": lambda metric: asyncio.run(trl.AsyncGleuReward()(HYPOTHESES, reference=STREAMS)),
    "verl.compute_score (batch)": lambda metric: verl.compute_score(solution_strs=HYPOTHESES, ground_truths=STREAMS),
    "openrlhf": _openrlhf,
    "slime (group)": lambda metric: asyncio.run(
        slime.GleuReward()(None, [SimpleNamespace(response=h, label=r) for h, r in zip(HYPOTHESES, STREAMS)])
    ),
    "GleuColumns": lambda metric: columns.GleuColumns()({"predictions": HYPOTHESES, "references": STREAMS}),
}


@pytest.fixture(scope="module")
def metric():
    return google_bleu.load()


def test_the_two_readings_score_apart():
    with pytest.warns(ReferenceLayoutWarning):
        as_segments = GLEU().corpus_score(HYPOTHESES, STREAMS).score
    as_streams = GLEU().corpus_score_streams(HYPOTHESES, STREAMS).score
    assert as_streams == 1.0 and as_segments < as_streams


@pytest.mark.parametrize("surface", SURFACES)
def test_streams_given_as_segments_are_said_on_every_surface(surface, metric):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SURFACES[surface](metric)
    said = [w for w in caught if issubclass(w.category, UserWarning) and "corpus_score_streams" in str(w.message)]
    assert len(said) == 1, [str(w.message) for w in caught]
    assert said[0].category.__name__ == "ReferenceLayoutWarning"
    assert "2 references for each of the 2 segments" in str(said[0].message)
    # The warning points at the caller, not at a line of the package.
    assert "google_bleu" not in said[0].filename.replace("test_reference_layout", "")


@pytest.mark.parametrize(
    "references",
    [
        [["the cat sat on the mat"], ["a dog ran in the park"]],  # one reference a segment
        [["a b", "c"], ["d e", "f"], ["g", "h"]],  # 3 segments, 2 references each
        [["x", "y"], ["y", "z"]],  # symmetric: both readings give the same references
        [["x", "y"], ["x", "y"]],  # every segment the same references (a group of one prompt)
    ],
    ids=["one-each", "not-square", "symmetric", "same-rows"],
)
def test_layouts_that_read_one_way_are_scored_without_a_word(references):
    hypotheses = ["a b c"] * len(references)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GLEU().corpus_score(hypotheses, references)


def test_streams_and_calls_of_one_segment_each_are_scored_without_a_word():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert GLEU().corpus_score_streams(HYPOTHESES, STREAMS).score == 1.0
        # Two calls of one segment each, gathered into one batch: no layout to misread.
        gatherer = gather.GleuGatherer(max_wait=0.05)

        async def two_calls():
            return await asyncio.gather(*(gatherer.score(h, list(r)) for h, r in zip(HYPOTHESES, STREAMS)))

        alone = [GLEU().sentence_score(h, r).score for h, r in zip(HYPOTHESES, STREAMS)]
        assert asyncio.run(two_calls()) == alone
        assert gatherer.counts()["batches"] == 1


def test_the_warning_can_be_silenced_by_its_category():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ReferenceLayoutWarning)
        assert GLEU().corpus_score(HYPOTHESES, STREAMS).score < 1.0
