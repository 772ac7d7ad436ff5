"""lm-evaluation-harness and LightEval adapters: exact corpus GLEU through the harnesses'
own calls, their rejection of bad input, and the runnable snippets of
docs/metrics-harnesses.md (LightEval's run in tests/frameworks/lighteval)."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys

import pytest

from google_bleu import GLEU
from google_bleu.integrations.lm_eval import LmEvalGleu
from tests.helpers.oracles import REPO, SAMPLES, nltk_corpus, read_lines
from tests.helpers.readme_snippets import readme_snippet

WMT17 = SAMPLES / "wmt17_en_de"
REFERENCES = read_lines(WMT17 / "ref0.txt")
SYSTEM = read_lines(WMT17 / "sys_online-A.0.txt")
OTHER = read_lines(WMT17 / "sys_uedin-nmt.4722.txt")
# Ragged references: a second one (another system's output) on two segments of three.
RAGGED = [[ref, other] if i % 3 else [ref] for i, (ref, other) in enumerate(zip(REFERENCES, OTHER))]
GUIDE = REPO / "docs" / "metrics-harnesses.md"
HAS_LIGHTEVAL = importlib.util.find_spec("lighteval") is not None


def guide_snippet(name: str) -> str:
    """The code of the block of docs/metrics-harnesses.md marked ``<!-- test: name -->``."""
    blocks = re.findall(r"<!-- test: ([\w-]+) -->\n```python\n(.*?)\n```", GUIDE.read_text("utf-8"), re.DOTALL)
    return dict(blocks)[name]


# -- lm-evaluation-harness: process_results and aggregation ------------------------------
def test_lm_eval_rows_sum_to_scorer_and_nltk():
    gleu = LmEvalGleu(references="references")
    docs = [{"references": refs, "source": f"segment {i}"} for i, refs in enumerate(RAGGED)]
    rows = [gleu.process_results(doc, [text])["google_bleu"] for doc, text in zip(docs, SYSTEM)]
    assert rows == [tuple(row) for row in GLEU().stats(SYSTEM, RAGGED).rows.tolist()]
    result = GLEU().corpus_score(SYSTEM, RAGGED)
    assert gleu.aggregation(rows) == result.score
    tokenize = GLEU().tokenizer
    assert result.score == nltk_corpus([[tokenize(r) for r in refs] for refs in RAGGED], [tokenize(s) for s in SYSTEM])
    # Rows as the logged samples hold them (JSON lists) aggregate the same.
    assert gleu.aggregation(json.loads(json.dumps(rows))) == result.score
    # Not the mean of sentence scores, which the harness's default "mean" would give.
    assert result.score != sum(GLEU().sentence_scores(SYSTEM, RAGGED)) / len(SYSTEM)


def test_lm_eval_settings_and_reference_callable():
    settings = {"lowercase": True, "min_len": 2, "max_len": 3, "tokenizer": "intl"}
    gleu = LmEvalGleu(references=lambda doc: doc["refs"].split(" ||| "), metric="gleu", scorer=GLEU(**settings))
    docs = [{"refs": " ||| ".join(refs)} for refs in RAGGED]
    rows = [gleu.process_results(doc, [text])["gleu"] for doc, text in zip(docs, SYSTEM)]
    assert gleu.aggregation(rows) == GLEU(**settings).corpus_score(SYSTEM, RAGGED).score
    assert gleu.stats(rows) == GLEU(**settings).stats(SYSTEM, RAGGED)
    assert gleu.aggregation([]) == 0.0


@pytest.mark.parametrize(
    ("doc", "results", "error", "message"),
    [
        ({"references": ["a"]}, ["a", "b"], ValueError, "results must hold exactly one generation per document"),
        ({"references": ["a"]}, [], ValueError, "results must hold exactly one generation"),
        ({"references": ["a"]}, "a b", ValueError, "results must hold exactly one generation"),
        ({"references": ["a"]}, [["a", "b"]], TypeError, r"results\[0\] \(the generation\) must be a str, got list"),
        ({"references": ["a"]}, [None], TypeError, r"results\[0\] \(the generation\) must be a str"),
        (
            {"target": "a"},
            ["a"],
            ValueError,
            r"doc has no field 'references' \(references=\); its fields: \['target'\]",
        ),
        ({"references": []}, ["a"], ValueError, r"doc\['references'\] has no reference; every document"),
        ({"references": 3}, ["a"], TypeError, r"doc\['references'\] must be a str or a list of str, got int 3"),
        ({"references": ["a", 1]}, ["a"], TypeError, r"doc\['references'\]\[1\] must be a str"),
        ("a doc", ["a"], TypeError, "doc must be a mapping of fields"),
    ],
)
def test_lm_eval_bad_document_or_results(doc, results, error, message):
    with pytest.raises(error, match=message):
        LmEvalGleu().process_results(doc, results)


@pytest.mark.parametrize(
    ("items", "error", "message"),
    [
        ([(1, 2, 3)], TypeError, r"rows\[0\] must be a row of 4 integers \(n_match, n_hyp, n_ref, n_all\)"),
        ([(1, 2, 3, 0.5)], TypeError, r"rows\[0\] must be a row of 4 integers"),
        ([(1, 1, 1, 1), "1111"], TypeError, r"rows\[1\] must be a row of 4 integers"),
        ([(1, 1, 1, True)], TypeError, r"rows\[0\] must be a row of 4 integers"),
        ([(1, -1, 1, 1)], ValueError, r"rows must hold counts from 0 to 2\*\*63 - 1, got values from -1"),
        (0.5, TypeError, "rows must be a sequence of statistics rows .*, got float"),
        ({"google_bleu": 1}, TypeError, "rows must be a sequence of statistics rows"),
    ],
)
def test_lm_eval_bad_aggregation_items(items, error, message):
    with pytest.raises(error, match=message):
        LmEvalGleu().aggregation(items)


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        ({"references": 3}, TypeError, "references must be a document field name or a callable"),
        ({"metric": ""}, TypeError, "metric must be a non-empty str"),
        ({"scorer": {"max_len": 3}}, TypeError, "scorer must be a google_bleu.GLEU .*got dict"),
    ],
)
def test_lm_eval_bad_settings(settings, error, message):
    with pytest.raises(error, match=message):
        LmEvalGleu(**settings)


# -- lm-evaluation-harness: the real harness on a local task -----------------------------
def _write_task_data(directory) -> list[dict]:
    # The bundled sample has no source side: a placeholder source line per document.
    docs = [
        {"source": f"newstest2017 segment {i}", "references": refs, "hypothesis": hyp}
        for i, (refs, hyp) in enumerate(zip(RAGGED, SYSTEM))
    ]
    lines = "".join(json.dumps(doc, ensure_ascii=False) + "\n" for doc in docs)
    (directory / "google_bleu_translation.jsonl").write_text(lines, encoding="utf-8")
    return docs


@pytest.fixture
def lm_eval_workdir(tmp_path, monkeypatch):
    """A directory with the example task folder and its data file, as the working directory."""
    pytest.importorskip("lm_eval")
    shutil.copytree(REPO / "examples" / "lm_eval", tmp_path / "examples" / "lm_eval")
    docs = _write_task_data(tmp_path)
    monkeypatch.chdir(tmp_path)
    for flag in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.setenv(flag, "1")
    return docs


def _check_harness_run(score: float, samples: list[dict]) -> None:
    """The harness's score equals scoring the logged generations directly."""
    samples = sorted(samples, key=lambda sample: sample["doc_id"])
    predictions = [sample["filtered_resps"][0] for sample in samples]
    references = [sample["doc"]["references"] for sample in samples]
    assert len(samples) == len(SYSTEM) and references == RAGGED
    result = GLEU().corpus_score(predictions, references)
    assert score == result.score
    stats = GLEU().stats(predictions, references)
    assert [tuple(sample["google_bleu"]) for sample in samples] == [tuple(row) for row in stats.rows.tolist()]


@pytest.mark.slow
def test_lm_eval_dummy_model_runs_guide_snippet(lm_eval_workdir):
    namespace: dict = {}
    exec(guide_snippet("lm-eval"), namespace)
    _check_harness_run(namespace["score"], namespace["results"]["samples"]["google_bleu_translation"])
    assert {sample["filtered_resps"][0] for sample in namespace["results"]["samples"]["google_bleu_translation"]} == {
        "lol"
    }
    # Every document counted: one hypothesis unigram each ("lol"), the chosen references' n-grams.
    assert sum(row[1] for row in namespace["rows"]) == len(SYSTEM)


@pytest.mark.slow
def test_lm_eval_harness_score_of_real_translations(lm_eval_workdir):
    import lm_eval
    from lm_eval.api.model import LM
    from lm_eval.tasks import TaskManager

    class ReplayLM(LM):
        """Answers each prompt with the WMT system translation stored in its document."""

        def generate_until(self, requests, disable_tqdm: bool = False):
            return [request.doc["hypothesis"] for request in requests]

        def loglikelihood(self, requests, disable_tqdm: bool = False):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
            raise NotImplementedError

    results = lm_eval.simple_evaluate(
        model=ReplayLM(),
        tasks=["google_bleu_translation"],
        task_manager=TaskManager(include_path="examples/lm_eval"),
        log_samples=True,
        bootstrap_iters=0,
    )
    score = results["results"]["google_bleu_translation"]["google_bleu,none"]
    _check_harness_run(score, results["samples"]["google_bleu_translation"])
    assert score == GLEU().corpus_score(SYSTEM, RAGGED).score
    assert 0.2 < score < 0.6


def test_example_task_files_match_the_guide():
    yaml = (REPO / "examples" / "lm_eval" / "google_bleu_translation.yaml").read_text("utf-8")
    utils = (REPO / "examples" / "lm_eval" / "utils.py").read_text("utf-8")
    assert "process_results: !function utils.process_results" in yaml
    assert "aggregation: !function utils.google_bleu" in yaml
    assert "process_results = gleu.process_results" in utils and "google_bleu = gleu.aggregation" in utils


# -- LightEval -----------------------------------------------------------------------------
# LightEval 0.13 pins nltk==3.9.1 (the test extra pins 3.10.4): the metric is tested against the
# real LightEval in its own environment (tests/frameworks/lighteval, make framework-lighteval).
# Here: without it, the adapter says how to install it, in one error.
@pytest.mark.skipif(HAS_LIGHTEVAL, reason="LightEval is installed")
def test_make_lighteval_metric_without_lighteval_says_how_to_install():
    import importlib

    with pytest.raises(ImportError, match=r"pip install 'google-bleu\[lighteval\]'") as raised:
        importlib.import_module("google_bleu.integrations.lighteval")
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    # As a user sees it: one error, one line.
    done = subprocess.run(
        [sys.executable, "-c", "from google_bleu.integrations.lighteval import make_lighteval_metric"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    errors = [line for line in done.stderr.splitlines() if re.match(r"\w*(Error|Exception)\b", line)]
    assert done.returncode == 1 and errors == [
        "ImportError: google_bleu.integrations.lighteval needs lighteval: pip install 'google-bleu[lighteval]' "
        "(from a clone: pip install '.[lighteval]')"
    ]


# -- the guide and the lazy imports --------------------------------------------------------
def test_guide_torchmetrics_snippet():
    pytest.importorskip("torchmetrics")
    namespace: dict = {}
    exec(guide_snippet("torchmetrics"), namespace)
    assert namespace["score"].item() == namespace["everything"].score
    comment = re.search(r"print\(score\)  # (tensor\(.*\))", guide_snippet("torchmetrics"))[1]
    assert comment == repr(namespace["score"])


def test_adapters_import_nothing_heavy_until_used():
    heavy = ("torch", "torchmetrics", "lm_eval", "lighteval", "evaluate", "datasets")
    code = (
        "import sys, google_bleu\n"
        f"heavy = {heavy!r}\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "import google_bleu.integrations.lm_eval\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.split("\n")[:2] == ["[]", "[]"]


def test_the_guides_task_files_are_the_shipped_example():
    # The guide shows the example's utils.py and the metric part of its YAML as they are.
    example = REPO / "examples" / "lm_eval"
    code = readme_snippet("lm-eval-utils")
    shipped = (example / "utils.py").read_text("utf-8")
    statements = [line.split("  #")[0] for line in code.splitlines() if line.strip() and not line.startswith("#")]
    assert all(statement in shipped for statement in statements), statements
    namespace: dict = {}
    exec(compile(code, "metrics-harnesses.md", "exec"), namespace)
    assert namespace["google_bleu"]([(1, 2, 2, 2), (0, 1, 1, 1)]) == 1 / 3
    yaml_block = re.search(r"```text\n(process_results: !function.*?)\n```", GUIDE.read_text("utf-8"), re.DOTALL)[1]
    assert yaml_block in (example / "google_bleu_translation.yaml").read_text("utf-8")
