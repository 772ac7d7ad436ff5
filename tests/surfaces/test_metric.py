"""The evaluate module: loading offline, HF parity, outputs, add_batch and errors."""

import subprocess
import sys

import evaluate
import pytest

import google_bleu
from google_bleu import GLEU
from tests.helpers.oracles import (
    CARD_ONE_REF,
    CARD_PREDICTIONS,
    CARD_REFERENCES,
    REPO,
    SAMPLES,
    hf_google_bleu,
    nltk_sentence,
    read_lines,
    tokenize_13a,
)

PREDICTIONS, ONE_REF, THREE_REFS = CARD_PREDICTIONS, CARD_ONE_REF, CARD_REFERENCES


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(str(REPO / "google_bleu"))


@pytest.mark.parametrize(
    ("references", "options", "card_value"),
    [
        (ONE_REF, {}, 0.44),
        (THREE_REFS, {}, 0.61),
        (THREE_REFS, {"min_len": 2}, 0.53),
        (THREE_REFS, {"min_len": 2, "max_len": 6}, 0.4),
    ],
)
def test_card_examples_equal_hf(metric, references, options, card_value):
    result = metric.compute(predictions=PREDICTIONS, references=references, **options)
    assert result["google_bleu"] == hf_google_bleu(PREDICTIONS, references, **options)
    assert round(result["google_bleu"], 2) == card_value


def test_output_keys_and_sentence_scores(metric):
    result = metric.compute(predictions=["the cat sat on the mat"], references=[["the cat ate the mat"]])
    assert set(result) == {"google_bleu", "precision", "recall", "signature"}
    assert (result["google_bleu"], result["precision"], result["recall"]) == (6 / 18, 6 / 18, 6 / 14)
    assert result["signature"] == f"nrefs:1|case:mixed|tok:13a|ngram:1-4|version:{google_bleu.__version__}"
    with_scores = metric.compute(predictions=PREDICTIONS, references=THREE_REFS, return_sentence_scores=True)
    expected = [
        nltk_sentence([tokenize_13a(r) for r in refs], tokenize_13a(p)) for p, refs in zip(PREDICTIONS, THREE_REFS)
    ]
    assert with_scores["sentence_scores"] == expected
    assert with_scores["signature"].startswith("nrefs:var|")


def test_flat_string_references_as_hf(metric):
    refs = [r[0] for r in ONE_REF]
    assert metric.compute(predictions=PREDICTIONS, references=refs)["google_bleu"] == hf_google_bleu(PREDICTIONS, refs)


def test_real_sample_equals_hf(metric):
    refs = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")
    for system in sorted((SAMPLES / "wmt17_en_de").glob("sys_*.txt")):
        hyps = read_lines(system)
        result = metric.compute(predictions=hyps, references=refs, return_sentence_scores=True)
        assert result["google_bleu"] == hf_google_bleu(hyps, refs)
        assert len(result["sentence_scores"]) == len(hyps)


def test_add_batch_in_chunks_equals_one_shot(metric):
    refs = read_lines(SAMPLES / "wmt22_en_ja" / "ref0.txt")
    hyps = read_lines(SAMPLES / "wmt22_en_ja" / "sys_Online-W.txt")
    one_shot = metric.compute(predictions=hyps, references=refs, tokenizer="char", return_sentence_scores=True)
    for size in (1, 7, 64):
        for start in range(0, len(hyps), size):
            metric.add_batch(predictions=hyps[start : start + size], references=refs[start : start + size])
        assert metric.compute(tokenizer="char", return_sentence_scores=True) == one_shot
    for hyp, ref in zip(hyps, refs):
        metric.add(prediction=hyp, reference=[ref])
    assert metric.compute(tokenizer="char", return_sentence_scores=True) == one_shot


def test_add_and_add_batch_name_the_keyword_to_use(metric):
    # add() takes one example, add_batch() lists: the other spelling named, not "got NoneType".
    cases = [
        (metric.add, {"prediction": "a b", "references": ["a b"]}, "add() takes reference=, not references="),
        (metric.add, {"predictions": ["a b"], "reference": "a b"}, "add() takes prediction=, not predictions="),
        (metric.add_batch, {"prediction": "a b", "references": ["a b"]}, "add_batch() takes predictions=, not prediction="),
        (metric.add_batch, {"predictions": ["a b"], "reference": "a b"}, "add_batch() takes references=, not reference="),
    ]
    for method, kwargs, message in cases:
        with pytest.raises(TypeError) as error:
            method(**kwargs)
        other = "add_batch" if method == metric.add else "add"
        given = message.split("not ")[1].rstrip("=")
        assert str(error.value) == f"{message} ({other}() takes {given}=)"
    # The refused calls added nothing: the next compute() sees only what is added after them.
    metric.add(prediction="a b c", reference="a b d")
    assert metric.compute()["google_bleu"] == 0.5


def test_empty_predictions_are_scored_not_dropped(metric):
    result = metric.compute(predictions=["", "a b"], references=[["x"], ["a b"]], return_sentence_scores=True)
    assert result["sentence_scores"] == [0.0, 1.0]
    assert result["google_bleu"] == 3 / 4


def test_empty_corpus_scores_zero(metric):
    assert metric.compute(predictions=[], references=[])["google_bleu"] == 0.0


def test_tokenizer_options(metric):
    preds, refs = ["Hello, World!"], [["hello , world !"]]
    assert metric.compute(predictions=preds, references=refs)["google_bleu"] < 1.0
    assert metric.compute(predictions=preds, references=refs, lowercase=True)["google_bleu"] == 1.0
    split = metric.compute(predictions=preds, references=refs, tokenizer=str.split, lowercase=True)
    assert split["google_bleu"] == hf_google_bleu(["hello, world!"], refs, tokenizer=str.split)
    assert "tok:custom|" in split["signature"]
    assert "case:lc" in split["signature"]
    char = metric.compute(predictions=["abc"], references=["abd"], tokenizer="char")
    assert char["google_bleu"] == hf_google_bleu(["abc"], ["abd"], tokenizer=list)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"predictions": ["a", "b"], "references": [["a"]]}, ValueError, "predictions has 2, references has 1"),
        ({"predictions": [1], "references": [["a"]]}, TypeError, "predictions\\[0\\] must be a str"),
        ({"predictions": ["a"], "references": [[]]}, ValueError, "references\\[0\\] has no reference"),
        ({"predictions": ["a"], "references": [[3]]}, TypeError, "references\\[0\\]\\[0\\] must be a str"),
        ({"predictions": ["a"], "references": ["a"], "min_len": 0}, ValueError, "min_len must be >= 1"),
        ({"predictions": ["a"], "references": ["a"], "max_len": 10**6}, ValueError, "max_len must be <="),
        ({"predictions": ["a"], "references": ["a"], "min_len": 2.5}, TypeError, "min_len must be an integer"),
        ({"predictions": ["a"], "references": ["a"], "tokenizer": "14b"}, ValueError, "unknown tokenizer '14b'"),
        ({"predictions": ["a"], "references": ["a"], "tokenizer": str.upper}, TypeError, "must return a list of str"),
        ({"predictions": ["a"], "references": ["a"], "tokenizer": lambda s: [1]}, TypeError, "got a int token"),
    ],
)
def test_bad_input(metric, kwargs, error, message):
    with pytest.raises(error, match=message):
        metric.compute(**kwargs)


def test_missing_extra_names_what_to_install(metric):
    try:
        import MeCab  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"google-bleu\[ja\]"):
            metric.compute(predictions=["a"], references=["a"], tokenizer="ja-mecab")
    else:
        pytest.skip("MeCab is installed, so the missing-extra error cannot occur")


def _load_in_subprocess(cwd, path_expr):
    code = (
        "import evaluate, google_bleu\n"
        f"m = evaluate.load({path_expr})\n"
        "print(m.compute(predictions=['the cat sat on the mat'], references=[['the cat ate the mat']])['google_bleu'])\n"
    )
    env = {"HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    import os

    env = {**os.environ, **env, "HF_HOME": str(cwd / "hf_home")}
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return float(done.stdout.strip().splitlines()[-1])


def test_load_by_name_from_repository_root(tmp_path):
    import shutil

    # A copy of the repository layout: evaluate.load("google_bleu") resolves the local folder.
    shutil.copytree(REPO / "google_bleu", tmp_path / "google_bleu", ignore=shutil.ignore_patterns("__pycache__"))
    assert _load_in_subprocess(tmp_path, "'google_bleu'") == 1 / 3


def test_load_by_path_from_another_directory(tmp_path):
    assert _load_in_subprocess(tmp_path, repr(str(REPO / "google_bleu"))) == 1 / 3
    assert _load_in_subprocess(tmp_path, "google_bleu.METRIC_PATH") == 1 / 3


def _spy_on_evaluate(monkeypatch):
    """Records every batch that goes to evaluate's Arrow cache (the module still stores it)."""
    stored = []
    add_batch = evaluate.EvaluationModule.add_batch

    def spy(self, **kwargs):
        stored.append(len(kwargs["predictions"]))
        return add_batch(self, **kwargs)

    monkeypatch.setattr(evaluate.EvaluationModule, "add_batch", spy)
    return stored


def test_one_call_is_scored_directly_with_the_numbers_of_evaluates_path(metric, monkeypatch):
    refs = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")
    hyps = read_lines(sorted((SAMPLES / "wmt17_en_de").glob("sys_*.txt"))[0])
    stored = _spy_on_evaluate(monkeypatch)
    options = {"return_sentence_scores": True, "n_bootstrap": 200, "seed": 3}
    direct = metric.compute(predictions=hyps, references=refs, **options)
    assert stored == []  # nothing went through evaluate's cache
    assert direct["google_bleu"] == hf_google_bleu(hyps, refs)
    # Something added before: evaluate's path, which scores the added and the given rows.
    metric.add_batch(predictions=hyps[:10], references=refs[:10])
    through_cache = metric.compute(predictions=hyps[10:], references=refs[10:], **options)
    assert stored == [10, len(hyps) - 10]
    assert through_cache == direct
    assert list(through_cache) == list(direct)


def test_a_failed_direct_call_leaves_nothing_added(metric, monkeypatch):
    stored = _spy_on_evaluate(monkeypatch)

    def refuse_long_lines(text):
        if len(text) > 40:
            raise RuntimeError("this tokenizer cannot read long lines")
        return text.split()

    with pytest.raises(RuntimeError, match="cannot read long lines"):
        metric.compute(predictions=["a b", "x " * 30], references=["a b", "x"], tokenizer=refuse_long_lines)
    assert stored == []
    with pytest.raises(ValueError, match="nothing to compute"):
        metric.compute()


def test_several_processes_keep_evaluates_path(tmp_path, monkeypatch):
    metric = google_bleu.load(num_process=2, process_id=0, experiment_id="direct-path", cache_dir=str(tmp_path))
    calls = []
    monkeypatch.setattr(evaluate.EvaluationModule, "add_batch", lambda self, **kwargs: calls.append("add_batch"))
    monkeypatch.setattr(evaluate.EvaluationModule, "compute", lambda self, **kwargs: calls.append("compute"))
    assert metric.compute(predictions=["a b"], references=[["a b"]]) is None
    assert calls == ["add_batch", "compute"]


@pytest.mark.parametrize("keep_in_memory", [False, True])
def test_evaluates_writer_is_open_exactly_while_rows_are_added(keep_in_memory):
    # compute() tells "something was added" by evaluate's writer (the one attribute of
    # evaluate's cache the module reads): None until the first add, open until compute().
    # Should evaluate change that, this fails here first.
    metric = google_bleu.load(keep_in_memory=keep_in_memory)
    assert metric.writer is None
    metric.add(prediction="a b", reference="a b")
    assert metric.writer is not None
    metric.add_batch(predictions=["a c"], references=["a b"])
    assert metric.compute() == {k: v for k, v in GLEU().corpus_score(["a b", "a c"], ["a b", "a b"]).to_dict().items() if not k.startswith('n_')}
    assert metric.writer is None
