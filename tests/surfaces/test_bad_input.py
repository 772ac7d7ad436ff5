"""Bad input through every public surface: the shared case table of tests/helpers/bad_inputs.py.

Each case list is crossed with the surfaces that take that kind of input; every pair must
raise the case's exception type with a message that names the argument. The evaluate
module is the real one (``google_bleu.load()``), the CLI runs in-process through ``main``
and, for the stream cases, as a subprocess.
"""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any, Callable

import numpy as np
import pytest

import google_bleu
import google_bleu.integrations.columns
import google_bleu.integrations.lm_eval
import google_bleu.integrations.openrlhf
import google_bleu.integrations.trl
import google_bleu.integrations.verifiers
import google_bleu.scale.parallel
import google_bleu.scale.plan
from google_bleu import GLEU, corpus_gleu, gleu_stats, sentence_gleu
from google_bleu.cli.main import main
from google_bleu.integrations.transformers import ComputeMetrics
from google_bleu.settings import scorer_from_options
from google_bleu.significance import bootstrap_ci
from tests.helpers.bad_inputs import (
    RESAMPLING_CASES,
    SETTING_CASES,
    TEXT_CASES,
    TOKEN_CASES,
    TOKENIZER_OUTPUT_CASES,
    Case,
)
from tests.helpers.oracles import SAMPLES, read_lines

SAMPLE = SAMPLES / "wmt17_en_de"
GOOD_PREDICTIONS = ["the cat sat", "a dog ran"]
GOOD_REFERENCES = [["the cat sat on the mat"], ["a dog ran off", "the dog ran"]]


@pytest.fixture(scope="module")
def metric():
    return google_bleu.load()


def assert_raises(call: Callable[[], Any], error: type[Exception], names: tuple[str, ...]) -> str:
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    for name in names:
        assert name in message, f"{name!r} not in {message!r}"
    assert "\n" not in message, message
    return message


class Words:
    """A transformers-like tokenizer: batch_decode and pad_token_id."""

    pad_token_id = 0
    vocab = ["<pad>", "the", "cat", "sat", "on", "mat", "ate"]

    def batch_decode(self, rows, skip_special_tokens=False):
        return [" ".join(self.vocab[i] for i in row if i or not skip_special_tokens) for row in rows]


EVAL_PRED = (np.array([[1, 2, 3, 4, 1, 5]]), np.array([[1, 2, 6, 1, 5]]))


# -- the surfaces, by the kind of input they take ----------------------------------------
# A surface is (case, metric) -> None. Register new surfaces (the batched functions, the
# app's API, the reward and distributed adapters) in the dict of the input kind they take.


def _add(case: Case, metric: Any) -> None:
    predictions, references = case.text()
    metric.add(prediction=predictions[0], reference=references[0])


TEXT_SURFACES: dict[str, Callable[[Case, Any], Any]] = {
    "GLEU.stats": lambda case, metric: GLEU().stats(*case.text()),
    "GLEU.corpus_score": lambda case, metric: GLEU().corpus_score(*case.text()),
    "GLEU.sentence_scores": lambda case, metric: GLEU().sentence_scores(*case.text()),
    "evaluate.compute": lambda case, metric: metric.compute(predictions=case.text()[0], references=case.text()[1]),
    "evaluate.add_batch": lambda case, metric: metric.add_batch(predictions=case.text()[0], references=case.text()[1]),
}
#: Surfaces that take one segment: only the cases whose problem sits in a segment.
TEXT_ITEM_SURFACES: dict[str, Callable[[Case, Any], Any]] = {"evaluate.add": _add}

TOKEN_SURFACES: dict[str, Callable[[Case, Any], Any]] = {
    "gleu_stats": lambda case, metric: gleu_stats(*case.tokens()),
    "corpus_gleu": lambda case, metric: corpus_gleu(case.tokens()[1], case.tokens()[0]),
}
TOKEN_ITEM_SURFACES: dict[str, Callable[[Case, Any], Any]] = {
    "sentence_gleu": lambda case, metric: sentence_gleu(case.tokens()[1][0], case.tokens()[0][0]),
}

SETTING_SURFACES: dict[str, Callable[[Case, Any], Any]] = {
    "GLEU": lambda case, metric: GLEU(**case.options),
    "GLEU.stats": lambda case, metric: GLEU(**case.options).stats(GOOD_PREDICTIONS, GOOD_REFERENCES),
    "evaluate.compute": lambda case, metric: metric.compute(
        predictions=GOOD_PREDICTIONS, references=GOOD_REFERENCES, **case.options
    ),
    "scorer_from_options": lambda case, metric: scorer_from_options(None, case.options).stats(
        GOOD_PREDICTIONS, GOOD_REFERENCES
    ),
    "ComputeMetrics": lambda case, metric: ComputeMetrics(Words(), GLEU(**case.options))(EVAL_PRED),
}



def _reward_call(case: Case, metric: Any) -> Any:
    from google_bleu.integrations.trl import GleuReward

    return GleuReward("reference", GLEU(**case.options))(GOOD_PREDICTIONS, reference=GOOD_REFERENCES)


def _columns_call(case: Case, metric: Any) -> Any:
    columns = google_bleu.integrations.columns.GleuColumns(predictions="p", references="r", scorer=GLEU(**case.options))
    return columns({"p": GOOD_PREDICTIONS, "r": GOOD_REFERENCES})


def _torchmetrics_call(case: Case, metric: Any) -> Any:
    from google_bleu.integrations.torchmetrics import GoogleBLEUScore

    return GoogleBLEUScore(GLEU(**case.options))(GOOD_PREDICTIONS, GOOD_REFERENCES)


def _pairwise_call(case: Case, metric: Any) -> Any:
    return google_bleu.ids.pairwise_gleu(GOOD_PREDICTIONS, **case.options)


def _verl_call(case: Case, metric: Any) -> Any:
    from google_bleu.integrations.verl import compute_score

    return compute_score("wmt", GOOD_PREDICTIONS[0], GOOD_REFERENCES[0], **case.options)


#: The adapters take the same settings, validated once when they are built (a tokenizer's
#: output when it first runs): each must refuse every setting case the same way. These run
#: text, so a tokenizer that breaks its contract is refused too.
SETTING_SURFACES.update(
    {
        "GleuReward (TRL)": _reward_call,
        "verl compute_score": _verl_call,
        "GleuColumns (datasets, Ray)": _columns_call,
        "GoogleBLEUScore (torchmetrics)": _torchmetrics_call,
        "pairwise_gleu": _pairwise_call,
    }
)
#: Adapters checked when built (they run text only inside a framework). LightEval's module
#: imports LightEval, which runs in its own environment (tests/frameworks/lighteval).
BUILT_SURFACES: dict[str, Callable[..., Any]] = {
    "OpenRLHFReward": lambda **options: google_bleu.integrations.openrlhf.OpenRLHFReward([], GLEU(**options)),
    "make_gleu_reward (verifiers)": lambda **options: google_bleu.integrations.verifiers.make_gleu_reward(GLEU(**options)),
    "LmEvalGleu (lm-eval)": lambda **options: google_bleu.integrations.lm_eval.LmEvalGleu(references="refs", scorer=GLEU(**options)),
}
#: Adapters of token ids: only the n-gram orders are theirs to take.
ID_SURFACES: dict[str, Callable[..., Any]] = {
    "GleuIdReward (TRL ids)": lambda **options: google_bleu.integrations.trl.GleuIdReward("ids", **options),
    "BatchScorer": google_bleu.ids.BatchScorer,
}
ORDER_CASES = [case for case in SETTING_CASES if set(case.options) <= {"min_len", "max_len"}]


# name of the count argument, call
RESAMPLING_SURFACES: dict[str, tuple[str, Callable[[int, int | None, Any], Any]]] = {
    "GLEU.corpus_score": (
        "n_bootstrap",
        lambda n, seed, metric: GLEU().corpus_score(GOOD_PREDICTIONS, GOOD_REFERENCES, n_bootstrap=n, seed=seed),
    ),
    "GLEU.score_stats": (
        "n_bootstrap",
        lambda n, seed, metric: GLEU().score_stats(
            GLEU().stats(GOOD_PREDICTIONS, GOOD_REFERENCES), n_bootstrap=n, seed=seed
        ),
    ),
    "GLEU.paired_scores": (
        "n_samples",
        lambda n, seed, metric: GLEU().paired_scores(
            [GLEU().stats(GOOD_PREDICTIONS, GOOD_REFERENCES)] * 2, n_samples=n, seed=seed
        ),
    ),
    "evaluate.compute": (
        "n_bootstrap",
        lambda n, seed, metric: metric.compute(
            predictions=GOOD_PREDICTIONS, references=GOOD_REFERENCES, n_bootstrap=n, seed=seed
        ),
    ),
    "bootstrap_ci": (
        "n_bootstrap",
        lambda n, seed, metric: bootstrap_ci(GLEU().stats(GOOD_PREDICTIONS, GOOD_REFERENCES), n, seed),
    ),
}


def _cross(cases: list[Case], surfaces: dict[str, Any], items_only: bool = False) -> list[Any]:
    return [
        pytest.param(case, name, id=f"{name}-{case.id}")
        for case in cases
        for name in surfaces
        if case.item or not items_only
    ]


@pytest.mark.parametrize(
    ("case", "surface"), _cross(TEXT_CASES, TEXT_SURFACES) + _cross(TEXT_CASES, TEXT_ITEM_SURFACES, True)
)
def test_text_inputs(metric, case, surface):
    call = {**TEXT_SURFACES, **TEXT_ITEM_SURFACES}[surface]
    assert_raises(lambda: call(case, metric), case.error, case.names)


@pytest.mark.parametrize(
    ("case", "surface"), _cross(TOKEN_CASES, TOKEN_SURFACES) + _cross(TOKEN_CASES, TOKEN_ITEM_SURFACES, True)
)
def test_token_inputs(case, surface):
    call = {**TOKEN_SURFACES, **TOKEN_ITEM_SURFACES}[surface]
    assert_raises(lambda: call(case, None), case.error, case.names)


@pytest.mark.parametrize(("case", "surface"), _cross(SETTING_CASES + TOKENIZER_OUTPUT_CASES, SETTING_SURFACES))
def test_settings(metric, case, surface):
    if surface == "GLEU" and case in TOKENIZER_OUTPUT_CASES:
        # The constructor accepts any callable; its output is refused when it runs.
        GLEU(**case.options)
        call = SETTING_SURFACES["GLEU.stats"]
    else:
        call = SETTING_SURFACES[surface]
    assert_raises(lambda: call(case, metric), case.error, case.names)


@pytest.mark.parametrize(("case", "surface"), _cross(RESAMPLING_CASES, RESAMPLING_SURFACES))
def test_resampling(metric, case, surface):
    name, call = RESAMPLING_SURFACES[surface]
    n, seed = case.options.get("n", 50), case.options.get("seed", 1)
    names = tuple(fragment.format(n=name) for fragment in case.names)
    assert_raises(lambda: call(n, seed, metric), case.error, names)


def test_huge_resampling_is_refused_before_any_work():
    # 10**10 resamples used to raise MemoryError after trying to allocate 320 GB.
    stats = GLEU().stats(GOOD_PREDICTIONS, GOOD_REFERENCES)
    with pytest.raises(ValueError, match=r"n_bootstrap must be at most 1000000 \(MAX_SAMPLES\)"):
        bootstrap_ci(stats, 10**10)
    assert google_bleu.validation.MAX_SAMPLES == 10**6
    # The bound itself is accepted (checked without running a million resamples).
    assert google_bleu.validation.check_n_samples(10**6, "n_bootstrap") == 10**6


# -- accepted containers: the same numbers as lists ---------------------------------------


def _containers():
    import datasets
    import pandas as pd

    predictions = read_lines(SAMPLE / "sys_online-B.0.txt")[:50]
    references = read_lines(SAMPLE / "ref0.txt")[:50]
    dataset = datasets.Dataset.from_dict({"prediction": predictions, "reference": references})
    return (
        predictions,
        references,
        [
            (tuple(predictions), tuple(references)),
            (np.array(predictions), np.array(references)),
            (np.array(predictions), np.array(references)[:, None]),  # 2-d: one column of references
            (pd.Series(predictions), pd.Series(references)),
            (dataset["prediction"], dataset["reference"]),
        ],
    )


def test_accepted_containers_score_as_lists(metric):
    predictions, references, variants = _containers()
    expected = GLEU().corpus_score(predictions, references)
    one_shot = metric.compute(predictions=predictions, references=references)
    for variant_predictions, variant_references in variants:
        kind = type(variant_predictions).__name__
        assert GLEU().corpus_score(variant_predictions, variant_references) == expected, kind
        assert GLEU().stats(variant_predictions, variant_references) == GLEU().stats(predictions, references), kind
        assert metric.compute(predictions=variant_predictions, references=variant_references) == one_shot, kind


def test_tokenizer_returning_str_subclasses_works(metric):
    # numpy.str_ tokens used to raise a bare StopIteration.
    def numpy_split(text):
        return [np.str_(token) for token in text.split()]

    expected = GLEU(tokenizer=str.split).corpus_score(GOOD_PREDICTIONS, GOOD_REFERENCES).score
    assert GLEU(tokenizer=numpy_split).corpus_score(GOOD_PREDICTIONS, GOOD_REFERENCES).score == expected
    result = metric.compute(predictions=GOOD_PREDICTIONS, references=GOOD_REFERENCES, tokenizer=numpy_split)
    assert result["google_bleu"] == expected
    tokens = google_bleu.get_tokenizer(numpy_split)("a b")
    assert tokens == ["a", "b"] and {type(token) for token in tokens} == {str}


# -- the evaluate module: lone surrogates, and a rejected compute keeps the data --------------


@pytest.mark.parametrize(
    ("predictions", "references", "names"),
    [
        (["fine", "bad \ud800"], ["a", "b"], ("predictions[1]", "U+D800", "character 4")),
        (["fine"], [["ok", "x\udfff"]], ("references[0][1]", "U+DFFF")),
    ],
)
def test_lone_surrogate_names_the_segment(metric, predictions, references, names):
    for call in (
        lambda: metric.compute(predictions=predictions, references=references),
        lambda: metric.add_batch(predictions=predictions, references=references),
    ):
        assert_raises(call, ValueError, names)
    # The core scores such text (it never encodes it).
    assert 0.0 <= GLEU().corpus_score(predictions, references).score <= 1.0


REJECTED_COMPUTE = [
    *(pytest.param(case.options, case.error, case.names, id=case.id) for case in SETTING_CASES),
    *(pytest.param(case.options, case.error, case.names, id=case.id) for case in TOKENIZER_OUTPUT_CASES),
    pytest.param({"n_bootstrap": 10**10}, ValueError, ("n_bootstrap",), id="n_bootstrap-huge"),
    pytest.param({"n_bootstrap": 0}, ValueError, ("n_bootstrap",), id="n_bootstrap-zero"),
    pytest.param({"seed": -1}, ValueError, ("seed",), id="seed-negative"),
    pytest.param({"return_sentence_scores": "yes"}, TypeError, ("return_sentence_scores",), id="flag-str"),
    pytest.param({"max_len4": 4}, TypeError, ("unknown arguments", "max_len4"), id="unknown-argument"),
]


@pytest.mark.parametrize(("options", "error", "names"), REJECTED_COMPUTE)
def test_rejected_compute_keeps_the_added_data(metric, options, error, names):
    predictions = read_lines(SAMPLE / "sys_uedin-nmt.4722.txt")
    references = read_lines(SAMPLE / "ref0.txt")
    expected = metric.compute(predictions=predictions, references=references)
    metric.add_batch(predictions=predictions[:100], references=references[:100])
    metric.add_batch(predictions=predictions[100:], references=references[100:])
    assert_raises(lambda: metric.compute(**options), error, names)
    # Rejected inputs given to compute() itself leave the added data in place too.
    assert_raises(lambda: metric.compute(predictions=["a"], references=[{"b": 1}]), TypeError, ("references",))
    assert metric.compute() == expected


def test_compute_with_nothing_added_says_so(metric):
    with pytest.raises(ValueError, match="nothing to compute: no prediction was added"):
        metric.compute()
    # An explicitly empty corpus is a corpus: 0.0, as nltk's corpus_gleu([], []).
    assert metric.compute(predictions=[], references=[])["google_bleu"] == 0.0
    # After a successful compute the added data is used up: nothing is left to score.
    metric.add_batch(predictions=GOOD_PREDICTIONS, references=GOOD_REFERENCES)
    assert metric.compute()["google_bleu"] == GLEU().corpus_score(GOOD_PREDICTIONS, GOOD_REFERENCES).score
    with pytest.raises(ValueError, match="nothing to compute"):
        metric.compute()


# -- ComputeMetrics: what the Trainer hands it -----------------------------------------


@pytest.mark.parametrize(
    ("build", "eval_pred", "error", "names"),
    [
        (lambda: ComputeMetrics(Words(), {"max_len": 4}), None, TypeError, ("scorer must be a google_bleu.GLEU", "dict")),
        (lambda: ComputeMetrics(object()), None, TypeError, ("tokenizer", "batch_decode", "object")),
        (lambda: ComputeMetrics(Words()), (np.array([1, 2]), EVAL_PRED[1]), ValueError, ("predictions",)),
        (lambda: ComputeMetrics(Words()), (np.array([[1, -5]]), EVAL_PRED[1]), ValueError, ("token ids", "-5")),
        (lambda: ComputeMetrics(Words()), (np.array([[1.5, 2.0]]), EVAL_PRED[1]), TypeError, ("integers",)),
        (lambda: ComputeMetrics(Words()), (EVAL_PRED[0], np.array([1, 2])), ValueError, ("labels",)),
        (
            lambda: ComputeMetrics(Words()),
            (EVAL_PRED[0], np.vstack([EVAL_PRED[1]] * 2)),
            ValueError,
            ("1 predictions", "2 labels"),
        ),
    ],
)
def test_compute_metrics_inputs(build, eval_pred, error, names):
    if eval_pred is None:
        assert_raises(build, error, names)
    else:
        compute_metrics = build()
        assert_raises(lambda: compute_metrics(eval_pred), error, names)


# -- the CLI: one line, exit 2, naming the option -------------------------------------------


CLI_CASES = [
    (["--min-len", "0"], ["min_len"]),
    (["--max-len", "101"], ["max_len", "101"]),
    (["--confidence", "--confidence-n", "10000000000"], ["--confidence-n", "at most 1000000"]),
    (["--confidence", "--confidence-n", "0"], ["--confidence-n", "positive integer"]),
    (["--paired-bs", "--paired-n", "10000000000"], ["--paired-n", "at most 1000000"]),
    (["--paired-ar", "--paired-n", "-1"], ["--paired-n", "positive integer"]),
    (["--seed", "-1"], ["--seed", "non-negative"]),
    (["--tokenize", "moses"], ["--tokenize", "moses"]),
    (["--width", "18"], ["--width", "18"]),
]


@pytest.mark.parametrize(("options", "fragments"), CLI_CASES, ids=[" ".join(c[0]) for c in CLI_CASES])
def test_cli_options(options, fragments, capsys):
    system = str(SAMPLE / "sys_online-B.0.txt")
    status = main([str(SAMPLE / "ref0.txt"), "-i", system, system, *options])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("google-bleu: error: "), captured.err
    for fragment in fragments:
        assert fragment in lines[0]


def test_cli_internal_error_keeps_its_traceback(monkeypatch):
    # A bug (here: a ValueError from inside the scoring) is not an input error.
    def broken(*args):
        raise ValueError("an internal bug")

    monkeypatch.setattr(google_bleu.scale.plan, "order_text_stats", broken)
    with pytest.raises(ValueError, match="an internal bug"):
        main([str(SAMPLE / "ref0.txt"), "-i", str(SAMPLE / "sys_online-B.0.txt")])


def _run(args, stdout):
    return subprocess.run(
        [sys.executable, "-m", "google_bleu", *map(str, args)], stdout=stdout, stderr=subprocess.PIPE, timeout=120
    )


def _one_line(done, status, *fragments):
    message = done.stderr.decode()
    assert done.returncode == status, message
    assert "Traceback" not in message and "Exception ignored" not in message, message
    assert len(message.strip().splitlines()) == 1, message
    for fragment in fragments:
        assert re.search(fragment, message), message


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/full is Linux's")
@pytest.mark.parametrize("extra", [[], ["--sentence-level"], ["-f", "text"]])
def test_cli_full_device_is_one_line(extra):
    with open("/dev/full", "w") as full:
        done = _run([SAMPLE / "ref0.txt", "-i", SAMPLE / "sys_online-B.0.txt", *extra], stdout=full)
    _one_line(done, 1, "cannot write the output: No space left on device")


def test_cli_closed_streams_are_one_line():
    ref, system = SAMPLE / "ref0.txt", SAMPLE / "sys_online-B.0.txt"
    # Standard input closed (as `<&-`): the system was meant to come from it.
    done = subprocess.run(
        f'exec 0<&-; exec "{sys.executable}" -m google_bleu "{ref}"', shell=True, capture_output=True, timeout=120
    )
    _one_line(done, 2, "standard input is closed")
    # Standard output closed (as `>&-`).
    done = subprocess.run(
        f'exec "{sys.executable}" -m google_bleu "{ref}" -i "{system}" >&-',
        shell=True,
        stderr=subprocess.PIPE,
        timeout=120,
    )
    _one_line(done, 1, "cannot write the output")


@pytest.mark.parametrize(
    ("case", "surface"), _cross(SETTING_CASES, BUILT_SURFACES) + _cross(ORDER_CASES, ID_SURFACES)
)
def test_adapter_settings(case, surface):
    build = {**BUILT_SURFACES, **ID_SURFACES}[surface]
    assert_raises(lambda: build(**case.options), case.error, case.names)


def _tokenizer_failing_on_long_lines(text):
    # Passes compute()'s probe on "a b"; returns tuples (a broken contract) on longer lines.
    tokens = text.split()
    return tuple(tokens) if len(tokens) > 3 else tokens


def _tokenizer_raising_on_long_lines(text):
    if len(text) > 40:
        raise RuntimeError("this tokenizer cannot read long lines")
    return text.split()


def _tokenizer_interrupted_on_long_lines(text):
    # Ctrl-C while scoring: the interrupt surfaces inside the tokenizer.
    if len(text) > 40:
        raise KeyboardInterrupt
    return text.split()


@pytest.mark.parametrize("keep_in_memory", [False, True])
@pytest.mark.parametrize(
    "tokenizer, error",
    [
        (_tokenizer_failing_on_long_lines, TypeError),
        (_tokenizer_raising_on_long_lines, RuntimeError),
        (_tokenizer_interrupted_on_long_lines, KeyboardInterrupt),
    ],
)
def test_a_compute_failing_while_scoring_leaves_a_metric_that_scores_what_comes_next(keep_in_memory, tokenizer, error):
    # Scoring consumes evaluate's cache, as in every evaluate metric: the rows of a compute()
    # that fails while scoring (a tokenizer failing on a stored line, Ctrl-C) are gone, and
    # the metric scores what is added next, alone.
    metric = google_bleu.load(keep_in_memory=keep_in_memory)
    predictions = read_lines(SAMPLE / "sys_uedin-nmt.4722.txt")[:200]
    references = read_lines(SAMPLE / "ref0.txt")[:200]
    metric.add_batch(predictions=predictions[:100], references=references[:100])
    with pytest.raises(error):
        metric.compute(predictions=predictions[100:], references=references[100:], tokenizer=tokenizer)
    with pytest.raises(ValueError, match="nothing to compute"):
        metric.compute()
    metric.add_batch(predictions=predictions[:50], references=references[:50])
    assert metric.compute() == {k: v for k, v in GLEU().corpus_score(predictions[:50], references[:50]).to_dict().items() if not k.startswith('n_')}
