"""The LightEval metric against the real LightEval 0.13.0.

LightEval runs it as it runs any task's metric: its own command line (``lighteval custom``,
the guide's command) and its Python API (``Pipeline(...).evaluate()``, the guide's block) load
the shipped task file (examples/lighteval/google_bleu_task.py: the bundled WMT17 sample, read
from local files) and a custom model (wmt17_model.py) that answers each prompt with a real WMT17
system's translation of that segment. Per system, the reported ``google_bleu`` ``==``
``GLEU().corpus_score(system, reference).score`` and ``google_bleu_sentence`` ``==`` the exact
mean (in Fractions, rounded once) of ``GLEU().sentence_score``; each sample's details hold its row and its
sentence score.
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib.metadata
import io
import json
import math
import pickle
import random
import statistics
import types
from contextlib import redirect_stdout
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from lighteval.logging.evaluation_tracker import EvaluationTracker
from lighteval.metrics import apply_metric
from lighteval.metrics.utils.metric_utils import CorpusLevelMetricGrouping
from lighteval.models.custom.custom_model import CustomModelConfig
from lighteval.models.model_output import ModelResponse
from lighteval.pipeline import ParallelismManager, Pipeline, PipelineParameters
from lighteval.tasks.registry import Registry
from lighteval.tasks.requests import Doc, SamplingMethod

from conftest import GUIDE, MODEL_FILE, REPO, TASK, TASK_FILE, guide_block, guide_command
from google_bleu import GLEU
from google_bleu.integrations import lighteval as adapter
from google_bleu.integrations.lighteval import GleuCorpus, GleuPreparator, make_lighteval_metric, mean_sentence_gleu
from tests.helpers.wmt17 import SYSTEMS


def test_versions():
    # The pins of requirements.txt that LightEval 0.13 needs (see there).
    versions = {name: importlib.metadata.version(name) for name in ("lighteval", "huggingface_hub", "xxhash")}
    assert versions == {"lighteval": "0.13.0", "huggingface_hub": "0.36.0", "xxhash": "3.6.0"}


def expected(scorer: GLEU, system: list[str], reference: list[str]) -> tuple[float, float]:
    """Corpus GLEU, and the mean of the sentence scores, of a system against the reference."""
    refs = [[line] for line in reference]
    sentences = [scorer.sentence_score(hyp, ref).score for hyp, ref in zip(system, refs)]
    return scorer.corpus_score(system, refs).score, float(sum(map(Fraction, sentences)) / len(sentences))


# -- the command line: lighteval custom ------------------------------------------------------
def lighteval_custom(system: str, output_dir: Path, monkeypatch) -> dict:
    """The guide's ``lighteval custom`` command for one system, through LightEval's own command
    line (its typer app, in this process), from the repository root; the results file it saved."""
    from lighteval.__main__ import app
    from typer.testing import CliRunner

    args = guide_command("lighteval")
    assert args[:4] == ["custom", "MODEL_NAME", "my_model.py", TASK]
    assert args[4:] == ["--custom-tasks", str(TASK_FILE.relative_to(REPO))]
    args[1:3] = [system, str(MODEL_FILE)]
    monkeypatch.chdir(REPO)
    done = CliRunner().invoke(app, [*args, "--output-dir", str(output_dir), "--save-details"])
    assert done.exit_code == 0, f"{done.output[-3000:]}\n{done.exception!r}"
    (results,) = (output_dir / "results" / system).glob("results_*.json")
    return json.loads(results.read_text("utf-8"))


@pytest.mark.parametrize("system", SYSTEMS)
def test_lighteval_custom_reports_each_systems_corpus_and_mean_sentence_gleu(system, wmt17, tmp_path, monkeypatch):
    saved = lighteval_custom(system, tmp_path, monkeypatch)
    translations, reference = wmt17["systems"][system], wmt17["reference"]
    corpus, mean = expected(GLEU(), translations, reference)
    scores = saved["results"][TASK]
    assert scores["google_bleu"] == corpus
    assert scores["google_bleu_sentence"] == mean
    assert corpus != mean  # corpus GLEU is not the mean of sentence scores
    # LightEval's standard errors: a bootstrap over the rows (in worker processes) for the
    # corpus score, the standard error of a mean for the mean.
    assert scores["google_bleu_stderr"] > 0 and scores["google_bleu_sentence_stderr"] > 0

    # Every segment was asked for once, answered with the system's translation, and scored alone.
    (details_file,) = (tmp_path / "details" / system).glob("*/details_*.parquet")
    details = pd.read_parquet(details_file)
    assert len(details) == 300
    segments = []
    for doc, response, metric in zip(details["doc"], details["model_response"], details["metric"]):
        segment = doc["specific"]["segment"]
        assert doc["query"] == f"Translate segment {segment} of newstest2017 into German."
        assert list(doc["choices"]) == [reference[segment]]
        assert list(response["text"]) == [translations[segment]]
        row = GLEU().stats([translations[segment]], [[reference[segment]]])
        assert metric["google_bleu"].tolist() == list(row.totals())
        assert metric["google_bleu_sentence"] == GLEU().sentence_score(translations[segment], reference[segment]).score
        segments.append(segment)
    assert sorted(segments) == list(range(300))


# -- the Python API: Pipeline --------------------------------------------------------------
def run_pipeline(tasks: str, custom_tasks, system: str, tmp_path: Path, bootstrap_iters: int = 1000) -> Pipeline:
    pipeline = Pipeline(
        tasks=tasks,
        pipeline_parameters=PipelineParameters(
            launcher_type=ParallelismManager.CUSTOM, custom_tasks_directory=custom_tasks, bootstrap_iters=bootstrap_iters
        ),
        evaluation_tracker=EvaluationTracker(output_dir=str(tmp_path / "results")),
        model_config=CustomModelConfig(model_name=system, model_definition_file_path=str(MODEL_FILE)),
    )
    pipeline.evaluate()
    return pipeline


def test_pipeline_with_other_settings_and_name_reports_them_exactly(wmt17, tmp_path):
    # The shipped task with another scorer and name, as a custom task module of one's own.
    shipped = Registry.create_custom_tasks_module(str(TASK_FILE)).wmt17_en_de_gleu
    scorer = GLEU(lowercase=True, max_len=2)
    task = dataclasses.replace(
        shipped, name="wmt17_en_de_gleu_lc2", metrics=[make_lighteval_metric(scorer, metric_name="gleu_lc2")]
    )
    module = types.ModuleType("my_tasks")
    module.TASKS_TABLE = [task]
    system = "uedin-nmt.4722"
    pipeline = run_pipeline("wmt17_en_de_gleu_lc2|0", module, system, tmp_path)

    scores = pipeline.get_results()["results"]["wmt17_en_de_gleu_lc2:0"]
    assert sorted(scores) == ["gleu_lc2", "gleu_lc2_sentence", "gleu_lc2_sentence_stderr", "gleu_lc2_stderr"]
    translations, reference = wmt17["systems"][system], wmt17["reference"]
    corpus, mean = expected(scorer, translations, reference)
    assert (scores["gleu_lc2"], scores["gleu_lc2_sentence"]) == (corpus, mean)
    assert (corpus, mean) != expected(GLEU(), translations, reference)
    # The model was asked for each segment once.
    assert sorted(pipeline.model.prompts) == sorted(
        f"Translate segment {i} of newstest2017 into German." for i in range(300)
    )


def test_bootstrap_stderr_resamples_the_rows_in_worker_processes(wmt17, tmp_path):
    pipeline = run_pipeline(TASK, str(TASK_FILE), "online-A.0", tmp_path, bootstrap_iters=200)
    scores = pipeline.get_results()["results"]["wmt17_en_de_gleu:0"]
    logged = pipeline.evaluation_tracker.metrics_logger.metrics_values[TASK]
    rows, sentences = logged["google_bleu"], logged["google_bleu_sentence"]
    assert len(rows) == len(sentences) == 300

    # LightEval (metrics/utils/stderr.py) sends the corpus function to a process pool with
    # each resample: it must pickle, and its name must not say "mean".
    aggregation = pipeline.tasks_dict[TASK].aggregation()["google_bleu"]
    assert "mean" not in aggregation.__name__
    assert pickle.loads(pickle.dumps(aggregation))(rows) == aggregation(rows) == scores["google_bleu"]
    # Its bootstrap, redone here from the logged rows: resamples drawn by random.Random(0),
    # and (as LightEval 0.13 computes it) their standard deviation divided by the square root
    # of the number of resamples.
    draw = random.Random(0)
    resampled = [GleuCorpus().stats(draw.choices(rows, k=len(rows))).score() for _ in range(200)]
    assert scores["google_bleu_stderr"] == pytest.approx(statistics.stdev(resampled) / math.sqrt(200), rel=1e-9)
    # What the guide says to do for an interval: rescore the rows.
    interval = GLEU().score_stats(GleuCorpus().stats(rows), n_bootstrap=1000)
    assert interval.ci_low < interval.score == scores["google_bleu"] < interval.ci_high
    # "mean" in the name: the standard error of a mean, no bootstrap.
    assert scores["google_bleu_sentence_stderr"] == pytest.approx(
        statistics.stdev(sentences) / math.sqrt(300), rel=1e-9
    )


def test_the_guides_task_line_is_the_shipped_example():
    line = "metrics=[make_lighteval_metric(GLEU())],  # reports google_bleu and google_bleu_sentence"
    assert f"```text\n{line}\n```" in GUIDE.read_text("utf-8")
    assert f"    {line}\n" in TASK_FILE.read_text("utf-8")


def test_the_guides_pipeline_block(wmt17, tmp_path, monkeypatch):
    # Run from the repository root, as the block's relative path to the task file says.
    monkeypatch.chdir(REPO)
    before = set(REPO.iterdir())
    namespace: dict = {}
    printed = io.StringIO()
    with redirect_stdout(printed):
        exec(guide_block("lighteval"), namespace)
    assert set(REPO.iterdir()) == before  # the block writes nothing
    system = namespace["model_name"]
    corpus, mean = expected(GLEU(), wmt17["systems"][system], wmt17["reference"])
    assert (namespace["scores"]["google_bleu"], namespace["scores"]["google_bleu_sentence"]) == (corpus, mean)
    assert printed.getvalue().split("\n")[-2] == f"{corpus} {mean}"


# -- the metric's contract, through LightEval's own classes ---------------------------------
def test_the_metric_is_a_generative_corpus_level_grouping():
    metric = make_lighteval_metric()
    assert type(metric) is CorpusLevelMetricGrouping
    assert metric.metric_name == ["google_bleu", "google_bleu_sentence"]
    assert metric.category is SamplingMethod.GENERATIVE
    assert metric.higher_is_better == {"google_bleu": True, "google_bleu_sentence": True}
    assert not metric.batched_compute
    aggregations = metric.get_corpus_aggregations()
    assert aggregations["google_bleu_sentence"] is mean_sentence_gleu
    assert aggregations["google_bleu"].__self__.scorer == GLEU()
    # google_bleu.integrations imports the module when first used.
    import google_bleu

    assert google_bleu.integrations.lighteval is adapter


def doc(golds) -> Doc:
    return Doc(query="Translate segment 0 of newstest2017 into German.", choices=golds, gold_index=list(range(len(golds))))


def test_rows_and_sentence_scores_of_samples_with_several_references(wmt17):
    reference, system = wmt17["reference"], wmt17["systems"]["online-B.0"]
    other = wmt17["systems"]["PROMT-Rule-based.4735"]
    refs = [[ref, alt] if i % 3 else [ref] for i, (ref, alt) in enumerate(zip(reference, other))]
    metric = make_lighteval_metric()
    outputs = apply_metric(
        responses=[ModelResponse(text=[hyp]) for hyp in system], docs=[doc(r) for r in refs], metrics=[metric]
    )
    stats = GLEU().stats(system, refs)
    assert [output["google_bleu"] for output in outputs] == [tuple(row) for row in stats.rows.tolist()]
    assert [output["google_bleu_sentence"] for output in outputs] == stats.sentence_scores().tolist()
    aggregations = metric.get_corpus_aggregations()
    assert aggregations["google_bleu"]([output["google_bleu"] for output in outputs]) == stats.score()


def test_the_final_text_is_scored():
    # LightEval's post-processing (reasoning tags removed) is what the metric reads.
    response = ModelResponse(text=["<think>hmm</think>the cat sat on the mat"])
    response.text_post_processed = ["the cat sat on the mat"]
    prepared = GleuPreparator().prepare(doc=doc(["the cat ate the mat"]), model_response=response)
    assert prepared == {"google_bleu": (6, 18, 14, 18), "google_bleu_sentence": 1 / 3}
    # One generation given as a plain string is that generation.
    plain = ModelResponse(text="the cat sat on the mat")
    assert GleuPreparator().prepare(doc=doc(["the cat ate the mat"]), model_response=plain) == prepared


@pytest.mark.parametrize(
    ("golds", "texts", "message"),
    [
        (["a b"], ["a b", "a c"], "model_response.final_text must hold exactly one generated str per sample"),
        (["a b"], [], r"model_response.final_text must hold exactly one .*got list \[\]"),
        (["a b"], [None], "model_response.final_text must hold exactly one .*None"),
        ([], ["a b"], r"doc.choices must hold the reference strings, got list \[\]"),
        (["a b", 2], ["a b"], r"doc.get_golds\(\) must give one or more reference strings"),
    ],
)
def test_bad_samples_are_refused_naming_the_field(golds, texts, message):
    with pytest.raises(ValueError, match=message):
        apply_metric(responses=[ModelResponse(text=texts)], docs=[doc(golds)], metrics=[make_lighteval_metric()])


@pytest.mark.parametrize(
    ("choices", "gold_index", "message"),
    [
        (["a b"], 1, r"doc.gold_index must index doc.choices \(0 to 0\), got 1 for 1 choice$"),
        (["a b", "a c"], [0, 2], r"doc.gold_index must index doc.choices \(0 to 1\), got 2 for 2 choices$"),
        (["a b", "a c"], -1, r"doc.gold_index must index doc.choices \(0 to 1\), got -1 for 2 choices$"),
        ([], 0, r"doc.choices must hold the reference strings, got list \[\]"),
        (["a b"], [], r"doc.gold_index must name at least one of doc.choices, got \[\]"),
        (["a b"], "0", r"doc.gold_index must be an index of doc.choices or a list of them, got str '0'"),
        (["a b"], True, r"doc.gold_index must be an index of doc.choices or a list of them, got bool True"),
    ],
)
def test_a_gold_index_outside_the_choices_is_refused_naming_it(choices, gold_index, message):
    # LightEval's Doc.get_golds indexes the choices as given: past the end it raised an
    # IndexError from inside LightEval, and -1 silently took the last choice.
    sample = Doc(query="Translate.", choices=choices, gold_index=gold_index)
    with pytest.raises(ValueError, match=message):
        apply_metric(responses=[ModelResponse(text=["a b"])], docs=[sample], metrics=[make_lighteval_metric()])


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([0.5, math.nan], r"scores\[1\] must be a sentence score in \[0, 1\], got nan"),
        ([5.0], r"scores\[0\] must be a sentence score in \[0, 1\], got 5.0"),
        ([0.25, -1], r"scores\[1\] must be a sentence score in \[0, 1\], got -1"),
        ([1e308, 1e308], r"scores\[0\] must be a sentence score in \[0, 1\], got 1e\+308"),
        ([0.5, math.inf], r"scores\[1\] must be a sentence score in \[0, 1\], got inf"),
    ],
)
def test_mean_sentence_gleu_refuses_what_is_no_sentence_score(scores, message):
    # It returned nan, 5.0 and -0.4 for these, and an OverflowError for two 1e308.
    aggregation = make_lighteval_metric().get_corpus_aggregations()["google_bleu_sentence"]
    with pytest.raises(ValueError, match=message):
        aggregation(scores)


def test_mean_sentence_gleu_is_the_exact_mean_rounded_once():
    # fsum then divide rounds twice: 0.4349206349206349 here, where the mean is 0.43492063492063493.
    scores = [2 / 3, 5 / 9, 2 / 3, 1 / 7, 1 / 7]
    exact = sum(map(Fraction, scores)) / len(scores)
    assert mean_sentence_gleu(scores) == float(exact) == 0.43492063492063493
    rng = random.Random(7)
    for _ in range(200):
        sample = [rng.random() for _ in range(rng.randrange(1, 40))]
        assert mean_sentence_gleu(sample) == float(sum(map(Fraction, sample)) / len(sample))
        assert mean_sentence_gleu(sample[::-1]) == mean_sentence_gleu(sample)


def test_settings_are_one_scorer():
    with pytest.raises(TypeError, match=r"scorer must be a google_bleu.GLEU .*got str '13a'"):
        make_lighteval_metric("13a")
    with pytest.raises(TypeError, match="unexpected keyword argument 'lowercase'"):
        make_lighteval_metric(lowercase=True)
    with pytest.raises(TypeError, match="metric_name must be a non-empty str"):
        make_lighteval_metric(metric_name="")
    with pytest.raises(TypeError, match=r"rows\[0\] must be a row of 4 integers"):
        GleuCorpus().compute_corpus([0.5])
    with pytest.raises(TypeError, match="scores must be a list of sentence GLEU floats"):
        mean_sentence_gleu([(6, 18, 14, 18)])
    assert mean_sentence_gleu([]) == GleuCorpus().compute_corpus([]) == 0.0


def test_the_modules_examples():
    # The adapter's doctests run only here, where LightEval is installed.
    result = doctest.testmod(adapter, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0
