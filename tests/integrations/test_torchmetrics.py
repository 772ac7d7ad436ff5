"""GoogleBLEUScore, the torchmetrics metric: exact against the scorer and nltk, torchmetrics'
update/compute/forward/reset/merge_state contract, and a real 2-process gloo sync."""

from __future__ import annotations

import json
import pickle
import socket
import subprocess
import sys

import pytest
import torch

from google_bleu import GLEU, GleuStats
from google_bleu.integrations.torchmetrics import GoogleBLEUScore
from google_bleu.stats import COLUMNS
from tests.helpers.oracles import SAMPLES, nltk_corpus, nltk_sentence, read_lines

torchmetrics = pytest.importorskip("torchmetrics")

WMT17 = SAMPLES / "wmt17_en_de"
REFERENCES = read_lines(WMT17 / "ref0.txt")
SYSTEM = read_lines(WMT17 / "sys_online-A.0.txt")
# A second "reference" per segment (another system) gives real multi-reference input.
OTHER = read_lines(WMT17 / "sys_uedin-nmt.4722.txt")
RAGGED = [[ref, other] if i % 3 else [ref] for i, (ref, other) in enumerate(zip(REFERENCES, OTHER))]


def batches(items: list, sizes: list[int]) -> list[list]:
    out, start = [], 0
    for size in sizes:
        out.append(items[start : start + size])
        start += size
    assert start == len(items)
    return out


UNEVEN = [1, 50, 0, 99, 150]


def test_batches_equal_scorer_and_nltk_on_wmt():
    metric = GoogleBLEUScore()
    for preds, refs in zip(batches(SYSTEM, UNEVEN), batches(REFERENCES, UNEVEN)):
        metric.update(preds, [[ref] for ref in refs])
    result = GLEU().corpus_score(SYSTEM, REFERENCES)
    score = metric.compute()
    assert score.dtype == torch.float64
    assert score.item() == result.score
    assert metric.totals() == (result.n_match, result.n_hyp, result.n_ref, result.n_all)
    tokenize = GLEU().tokenizer
    assert score.item() == nltk_corpus([[tokenize(ref)] for ref in REFERENCES], [tokenize(hyp) for hyp in SYSTEM])


@pytest.mark.parametrize("settings", [{"lowercase": True}, {"min_len": 2, "max_len": 6}, {"tokenizer": "char"}])
def test_settings_reach_the_scorer_as_a_scorer_or_as_keywords(settings):
    # torchmetrics' metrics take their settings in the constructor (BLEUScore(n_gram=4,
    # smooth=True)), and its MetricTester builds them as metric_class(**metric_args): both
    # that and scorer=GLEU(...) work, beside torchmetrics' own keywords.
    expected = GLEU(**settings).corpus_score(SYSTEM, RAGGED).score
    for metric in (GoogleBLEUScore(GLEU(**settings)), GoogleBLEUScore(**settings, sync_on_compute=False)):
        metric.update(SYSTEM[:80], RAGGED[:80])
        metric.update(SYSTEM[80:], RAGGED[80:])
        assert metric.compute().item() == expected
        assert metric.scorer == GLEU(**settings)
    assert expected != GoogleBLEUScore()(SYSTEM, RAGGED).item()
    with pytest.raises(TypeError, match="not both"):
        GoogleBLEUScore(GLEU(), **settings)


def test_sentence_scores_equal_scorer_and_nltk():
    metric = GoogleBLEUScore(return_sentence_scores=True)
    for preds, refs in zip(batches(SYSTEM, UNEVEN), batches(RAGGED, UNEVEN)):
        metric.update(preds, refs)
    score, sentences = metric.compute()
    scorer = GLEU()
    assert score.item() == scorer.corpus_score(SYSTEM, RAGGED).score
    assert sentences.dtype == torch.float64
    assert sentences.tolist() == scorer.sentence_scores(SYSTEM, RAGGED)
    tokenize = scorer.tokenizer
    nltk = [nltk_sentence([tokenize(r) for r in refs], tokenize(hyp)) for hyp, refs in zip(SYSTEM, RAGGED)]
    assert sentences.tolist() == nltk
    # The per-sentence state holds integer rows, never floats.
    assert all(rows.dtype == torch.int64 and rows.shape[1] == 4 for rows in metric.sentence_rows)


def test_target_conventions_follow_bleuscore():
    # One prediction: a flat list of strings is its list of references.
    single = GoogleBLEUScore()
    single.update("a b c d", ["x y", "a b c d"])
    assert single.compute().item() == 1.0
    # Several predictions: a flat list of strings is one reference each.
    flat, nested = GoogleBLEUScore(), GoogleBLEUScore()
    flat.update(SYSTEM[:20], REFERENCES[:20])
    nested.update(tuple(SYSTEM[:20]), [(ref,) for ref in REFERENCES[:20]])
    assert flat.totals() == nested.totals()
    assert flat.compute().item() == GLEU().corpus_score(SYSTEM[:20], REFERENCES[:20]).score
    # The shapes are read as torchmetrics' shared text check (CHRFScore, TERScore) reads them.
    from torchmetrics.functional.text.helper import _validate_inputs

    from google_bleu.integrations.torchmetrics import _as_text_batch

    for preds, target in [
        ("a b", ["a b", "c"]),
        (["a b"], ["a b", "c"]),
        (["a b", "c"], ["a b", "c"]),
        (["a b", "c"], [["a b", "d"], ["c"]]),
        (["a b"], [["a b"]]),
    ]:
        references, predictions = _validate_inputs(target, preds)
        assert _as_text_batch(preds, target) == (list(predictions), [list(refs) for refs in references])


def test_forward_returns_batch_score_and_accumulates():
    metric = GoogleBLEUScore()
    first = metric(SYSTEM[:100], REFERENCES[:100])
    second = metric(SYSTEM[100:], REFERENCES[100:])
    scorer = GLEU()
    assert first.item() == scorer.corpus_score(SYSTEM[:100], REFERENCES[:100]).score
    assert second.item() == scorer.corpus_score(SYSTEM[100:], REFERENCES[100:]).score
    assert metric.compute().item() == scorer.corpus_score(SYSTEM, REFERENCES).score


def test_forward_with_sentence_scores():
    metric = GoogleBLEUScore(return_sentence_scores=True)
    batch_score, batch_sentences = metric(SYSTEM[:10], REFERENCES[:10])
    assert batch_sentences.tolist() == GLEU().sentence_scores(SYSTEM[:10], REFERENCES[:10])
    metric(SYSTEM[10:30], REFERENCES[10:30])
    score, sentences = metric.compute()
    assert score.item() == GLEU().corpus_score(SYSTEM[:30], REFERENCES[:30]).score
    assert sentences.tolist() == GLEU().sentence_scores(SYSTEM[:30], REFERENCES[:30])


def test_reset_forgets_everything():
    metric = GoogleBLEUScore(return_sentence_scores=True)
    metric.update(SYSTEM[:10], REFERENCES[:10])
    metric.reset()
    assert metric.totals() == (0, 0, 0, 0)
    with pytest.warns(UserWarning, match="compute"):
        score, sentences = metric.compute()
    assert score.item() == 0.0 and sentences.shape == (0,)
    metric.update(SYSTEM[10:20], REFERENCES[10:20])
    assert metric.compute()[1].tolist() == GLEU().sentence_scores(SYSTEM[10:20], REFERENCES[10:20])


@pytest.mark.parametrize("as_dict", [False, True])
def test_merge_state_equals_one_metric(as_dict):
    left, right = GoogleBLEUScore(return_sentence_scores=True), GoogleBLEUScore(return_sentence_scores=True)
    left.update(SYSTEM[:120], RAGGED[:120])
    right.update(SYSTEM[120:200], RAGGED[120:200])
    right.update(SYSTEM[200:], RAGGED[200:])
    left.merge_state(right.metric_state if as_dict else right)
    score, sentences = left.compute()
    assert score.item() == GLEU().corpus_score(SYSTEM, RAGGED).score
    # torchmetrics concatenates "cat" states incoming first, then local.
    expected = GLEU().sentence_scores(SYSTEM[120:] + SYSTEM[:120], RAGGED[120:] + RAGGED[:120])
    assert sentences.tolist() == expected


def test_merge_state_rejects_other_settings_and_missing_states():
    metric = GoogleBLEUScore(return_sentence_scores=True)
    metric.update(SYSTEM[:5], REFERENCES[:5])
    before = metric.totals()
    other = GoogleBLEUScore(GLEU(min_len=2), return_sentence_scores=True)
    other.update(SYSTEM[5:10], REFERENCES[5:10])
    with pytest.raises(ValueError, match=r"cannot merge a metric counted with GLEU\(.*min_len=2"):
        metric.merge_state(other)
    without_sentences = GoogleBLEUScore()
    without_sentences.update(SYSTEM[5:10], REFERENCES[5:10])
    with pytest.raises(ValueError, match=r"Expected state variable sentence_rows to be present in incoming state"):
        metric.merge_state(without_sentences)
    with pytest.raises(ValueError, match="Expected state variable n_hyp to be present"):
        metric.merge_state({"n_match": torch.tensor(1)})
    assert metric.totals() == before
    # A metric without sentence scores takes the totals of one with them.
    without_sentences.merge_state(metric)
    assert without_sentences.compute().item() == GLEU().corpus_score(SYSTEM[:10], REFERENCES[:10]).score


def test_merge_state_refuses_what_torchmetrics_refuses_in_its_words():
    # torchmetrics' own test of merge_state's errors (tests/unittests/bases/test_metric.py,
    # test_merge_state_feature_raises_errors), on this metric.
    from torchmetrics.aggregation import MeanMetric

    class TempMetric(GoogleBLEUScore):
        full_state_update = True

    metric, metric2, metric3 = TempMetric(), GoogleBLEUScore(), MeanMetric()
    with pytest.raises(ValueError, match="Expected incoming state to be a.*"):
        metric.merge_state(2)
    with pytest.raises(RuntimeError, match="``merge_state`` is not supported.*"):
        metric.merge_state(dict.fromkeys(COLUMNS, torch.tensor(2)))
    with pytest.raises(ValueError, match="Expected incoming state to be an.*"):
        metric2.merge_state(metric3)
    with pytest.raises(RuntimeError, match="``merge_state`` is not supported"):
        GoogleBLEUScore(dist_sync_on_step=True).merge_state(GoogleBLEUScore())


def _without_sentence_rows(how: str) -> GoogleBLEUScore:
    metric = GoogleBLEUScore(return_sentence_scores=True)
    if how == "empty batches":
        metric.update([], [])
        metric([], [])
    elif how == "after reset":
        metric.update(SYSTEM[:3], REFERENCES[:3])
        metric.reset()
    return metric


@pytest.mark.parametrize("how", ["never updated", "empty batches", "after reset"])
@pytest.mark.parametrize("as_dict", [False, True])
def test_merge_state_of_a_metric_without_sentence_rows(how, as_dict):
    # It raised "rows must have shape (n_segments, 4), got shape (0,)".
    metric = GoogleBLEUScore(return_sentence_scores=True)
    metric.update(SYSTEM[:4], REFERENCES[:4])
    empty = _without_sentence_rows(how)
    metric.merge_state(empty.metric_state if as_dict else empty)
    score, sentences = metric.compute()
    assert score.item() == GLEU().corpus_score(SYSTEM[:4], REFERENCES[:4]).score
    assert sentences.tolist() == GLEU().sentence_scores(SYSTEM[:4], REFERENCES[:4])
    # And the other way: an empty metric takes another's states.
    empty = _without_sentence_rows(how)
    empty.merge_state(metric)
    assert [value.tolist() for value in empty.compute()] == [value.tolist() for value in metric.compute()]


def test_states_are_summed_int64_totals():
    metric = GoogleBLEUScore()
    assert GoogleBLEUScore.full_state_update is False
    assert set(metric.metric_state) == {"n_match", "n_hyp", "n_ref", "n_all"}
    for name in metric.metric_state:
        assert getattr(metric, name).dtype == torch.int64
        assert metric._reductions[name].__name__ == "dim_zero_sum"
    with_sentences = GoogleBLEUScore(return_sentence_scores=True)
    assert with_sentences._reductions["sentence_rows"].__name__ == "dim_zero_cat"
    # Large totals stay exact: beyond float32's 2**24 and float64's 2**53 (no float ever holds them).
    metric.n_match += 2**60
    metric.n_hyp += 2**60
    metric.n_ref += 2**61
    metric.n_all += 2**61
    with pytest.warns(UserWarning, match="compute"):
        assert metric.totals()[0] == 2**60 and metric.compute().item() == 2**60 / 2**61


def test_dtype_changes_keep_integer_states():
    metric = GoogleBLEUScore(return_sentence_scores=True)
    metric.update(SYSTEM[:10], REFERENCES[:10])
    metric.set_dtype(torch.float16)
    metric.half()
    metric.to(torch.float64)
    metric.update(SYSTEM[10:], REFERENCES[10:])
    assert {getattr(metric, name).dtype for name in ("n_match", "n_hyp", "n_ref", "n_all")} == {torch.int64}
    assert {rows.dtype for rows in metric.sentence_rows} == {torch.int64}
    score, sentences = metric.compute()
    assert score.item() == GLEU().corpus_score(SYSTEM, REFERENCES).score
    assert sentences.tolist() == GLEU().sentence_scores(SYSTEM, REFERENCES)
    metric.reset()  # the defaults stayed int64 too
    assert metric.n_match.dtype == torch.int64


def test_pickle_and_clone_keep_state():
    metric = GoogleBLEUScore(GLEU(lowercase=True), return_sentence_scores=True)
    metric.update(SYSTEM[:10], REFERENCES[:10])
    for copy in (pickle.loads(pickle.dumps(metric)), metric.clone()):
        assert copy.totals() == metric.totals()
        copy.update(SYSTEM[10:20], REFERENCES[10:20])
        assert copy.compute()[0].item() == GLEU(lowercase=True).corpus_score(SYSTEM[:20], REFERENCES[:20]).score
    # The copies are independent: the original still holds its first ten sentences only.
    assert metric.totals() == GLEU(lowercase=True).stats(SYSTEM[:10], REFERENCES[:10]).totals()


BAD_UPDATES = [
    (None, ["a"], TypeError, "preds must be a str or a list of str, got NoneType"),
    ([1], ["a"], TypeError, r"preds\[0\] must be a str, got int 1"),
    (b"a b", ["a"], TypeError, "preds must be"),
    (["a"], "a b", TypeError, "target must be a list of str or a list of lists of str, got str"),
    (["a"], None, TypeError, "target must be"),
    (["a", "b"], ["a", "b", "c"], ValueError, "preds has 2, target has 3"),
    (["a", "b"], [["a"]], ValueError, "preds has 2, target has 1"),
    (["a", "b"], [["a"], []], ValueError, r"target\[1\] has no reference"),
    (["a", "b"], [["a"], 3], TypeError, r"target\[1\] must be a str or a list of str, got int 3"),
    (["a", "b"], [["a"], ["b", None]], TypeError, r"target\[1\]\[1\] must be a str, got NoneType"),
    ("a", [], ValueError, r"target\[0\] has no reference"),
]


@pytest.mark.parametrize(("preds", "target", "error", "message"), BAD_UPDATES)
def test_bad_update_is_rejected_and_leaves_state(preds, target, error, message):
    metric = GoogleBLEUScore(return_sentence_scores=True)
    metric.update(SYSTEM[:5], REFERENCES[:5])
    before = (metric.totals(), [rows.clone() for rows in metric.sentence_rows])
    count = metric.update_count
    with pytest.raises(error, match=message):
        metric.update(preds, target)
    # torchmetrics counts an update call before it runs it; forward checks the batch first.
    assert metric.update_count == count + 1
    with pytest.raises(error, match=message):
        metric(preds, target)
    assert metric.update_count == count + 1
    assert metric.totals() == before[0]
    assert len(metric.sentence_rows) == len(before[1])
    assert all(torch.equal(a, b) for a, b in zip(metric.sentence_rows, before[1]))
    assert metric.compute()[0].item() == GLEU().corpus_score(SYSTEM[:5], REFERENCES[:5]).score


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        ({"scorer": "13a"}, TypeError, "scorer must be a google_bleu.GLEU .*got str"),
        ({"min_len": 0}, ValueError, r"min_len must be >= 1"),
        ({"lowercase": "yes"}, TypeError, "lowercase must be a bool, got str 'yes'"),
        ({"max_len": 2, "scorer": GLEU()}, TypeError, r"as scorer=GLEU\(\.\.\.\) or as keywords, not both"),
        ({"return_sentence_scores": 1}, TypeError, "return_sentence_scores must be a bool"),
    ],
)
def test_bad_settings_rejected_at_construction(settings, error, message):
    with pytest.raises(error, match=message):
        GoogleBLEUScore(**settings)


def test_empty_update_adds_nothing():
    metric = GoogleBLEUScore()
    metric.update([], [])
    metric.update(SYSTEM[:3], REFERENCES[:3])
    metric.update([], [])
    assert metric.compute().item() == GLEU().corpus_score(SYSTEM[:3], REFERENCES[:3]).score


def test_metric_collection_and_torchmetrics_functional_style():
    from torchmetrics import MetricCollection
    from torchmetrics.text import SacreBLEUScore

    collection = MetricCollection({"gleu": GoogleBLEUScore(), "bleu": SacreBLEUScore()})
    collection.update(SYSTEM[:50], [[ref] for ref in REFERENCES[:50]])
    collection.update(SYSTEM[50:], [[ref] for ref in REFERENCES[50:]])
    out = collection.compute()
    assert out["gleu"].item() == GLEU().corpus_score(SYSTEM, REFERENCES).score
    assert set(out) == {"gleu", "bleu"}


def test_import_is_lazy():
    code = (
        "import sys, google_bleu\n"
        "print(sorted(m for m in ('torch', 'torchmetrics') if m in sys.modules))\n"
        "import google_bleu.integrations.torchmetrics\n"
        "print(sorted(m for m in ('torch', 'torchmetrics') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["[]", "['torch', 'torchmetrics']"]


# -- distributed: two real processes over gloo -------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _gloo_worker(rank: int, world_size: int, port: int, scenarios: list, out_dir: str) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world_size)
    try:
        reports = []
        for shards in scenarios:
            report = {}
            for name, sentences in (("totals", False), ("sentences", True)):
                metric = GoogleBLEUScore(return_sentence_scores=sentences)
                for preds, target in shards[rank]:
                    metric.update(preds, target)
                result = metric.compute()  # syncs across ranks (sync_on_compute=True)
                if sentences:
                    report[name] = [result[0].item(), result[1].tolist()]
                else:
                    report[name] = [result.item(), metric.totals()]  # totals: local again after compute
            reports.append(report)
        with open(f"{out_dir}/rank{rank}.json", "w", encoding="utf-8") as file:
            json.dump(reports, file)
    finally:
        dist.destroy_process_group()


@pytest.mark.slow
def test_two_process_gloo_sync_is_exact(tmp_path):
    import torch.multiprocessing as mp

    # Rank 0 counts SYSTEM[:split] in two batches, rank 1 the rest; split 0 leaves rank 0 without data.
    splits = [117, 0]
    scenarios = [
        [
            [(SYSTEM[:split][:50], RAGGED[:split][:50]), (SYSTEM[50:split], RAGGED[50:split])] if split else [],
            [(SYSTEM[split:], RAGGED[split:])],
        ]
        for split in splits
    ]
    mp.spawn(_gloo_worker, args=(2, _free_port(), scenarios, str(tmp_path)), nprocs=2, join=True)
    reports = [json.loads((tmp_path / f"rank{rank}.json").read_text(encoding="utf-8")) for rank in range(2)]
    scorer = GLEU()
    expected = scorer.corpus_score(SYSTEM, RAGGED).score
    assert 0 < expected < 1
    for scenario, split in enumerate(splits):
        for rank in range(2):
            report = reports[rank][scenario]
            assert report["totals"][0] == expected
            # Syncing is undone after compute: each rank keeps its own totals.
            own = slice(0, split) if rank == 0 else slice(split, None)
            assert tuple(report["totals"][1]) == scorer.stats(SYSTEM[own], RAGGED[own]).totals()
            assert report["sentences"][0] == expected
            # Gathered sentence rows: rank 0's, then rank 1's, i.e. corpus order here.
            assert report["sentences"][1] == scorer.sentence_scores(SYSTEM, RAGGED)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_states_follow_the_metric_to_cuda():
    metric = GoogleBLEUScore(return_sentence_scores=True).to("cuda")
    metric.update(SYSTEM[:100], RAGGED[:100])
    metric(SYSTEM[100:], RAGGED[100:])
    assert metric.n_match.device.type == "cuda" and metric.n_match.dtype == torch.int64
    assert all(rows.device.type == "cuda" for rows in metric.sentence_rows)
    score, sentences = metric.compute()
    assert score.item() == GLEU().corpus_score(SYSTEM, RAGGED).score
    assert sentences.tolist() == GLEU().sentence_scores(SYSTEM, RAGGED)


def _counts(**values):
    base = {"n_match": 1, "n_hyp": 2, "n_ref": 2, "n_all": 2}
    return {name: torch.tensor(base[name], dtype=torch.int64) for name in COLUMNS} | values


@pytest.mark.parametrize(
    "bad",
    [
        _counts(n_match=torch.tensor(30, dtype=torch.int64)),  # each a count, the merged row impossible
        _counts(n_all=torch.tensor(-1, dtype=torch.int64)),  # the first states valid, the last one not
        _counts(n_all=torch.tensor(0.5)),
        _counts(n_all=torch.tensor([1, 2], dtype=torch.int64)),
        _counts(n_all=True),
    ],
)
def test_a_rejected_merge_state_changes_nothing_and_compute_is_fresh(bad):
    metric = GoogleBLEUScore()
    metric.update(["the cat sat on the mat"], [["the cat ate the mat"]])
    before = metric.compute()
    totals = [int(getattr(metric, name)) for name in COLUMNS]
    with pytest.raises(ValueError):
        metric.merge_state(bad)
    assert [int(getattr(metric, name)) for name in COLUMNS] == totals
    assert all(getattr(metric, name).dtype == torch.int64 for name in COLUMNS)
    assert metric.compute() == before
    # A valid merge is counted, and compute() no longer returns the value cached before it.
    good = _counts()
    metric.merge_state(good)
    merged = GleuStats([[total + int(good[name]) for total, name in zip(totals, COLUMNS)]])
    assert metric.compute().item() == merged.score() != before.item()


def _interrupted_on(marker: str):
    def tokenize(text: str) -> list[str]:
        if marker in text:
            raise KeyboardInterrupt  # Ctrl-C while this batch is scored
        return text.split()

    return tokenize


def test_ctrl_c_in_update_forward_or_merge_changes_nothing(monkeypatch):
    # A batch is counted whole or not at all: the states are touched only after it is scored,
    # so an interrupt while it is scored (Ctrl-C, not only an Exception) leaves them as they were.
    metric = GoogleBLEUScore(scorer=GLEU(_interrupted_on("STOP")), return_sentence_scores=True)
    metric.update(SYSTEM[:5], REFERENCES[:5])
    first = metric.compute()
    state = (metric.totals(), [rows.clone() for rows in metric.sentence_rows])

    def unchanged() -> bool:
        rows = metric.sentence_rows
        return metric.totals() == state[0] and len(rows) == len(state[1]) and all(map(torch.equal, rows, state[1]))

    for call in (metric.update, metric):
        with pytest.raises(KeyboardInterrupt):
            call(["a b", "STOP here"], [["a b"], ["x"]])
        assert unchanged()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # while merge_state checks the merged statistics

    other = GoogleBLEUScore(scorer=metric.scorer, return_sentence_scores=True)
    other.update(SYSTEM[5:9], REFERENCES[5:9])
    with monkeypatch.context() as patch:
        patch.setattr(GleuStats, "summed", interrupted)
        with pytest.raises(KeyboardInterrupt):
            metric.merge_state(other)
    assert unchanged()
    assert metric.compute()[0].item() == first[0].item()


@pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")  # torch deprecates jit.script itself
@pytest.mark.filterwarnings("ignore::DeprecationWarning:torchmetrics")  # its properties, read by the scripting
@pytest.mark.filterwarnings("ignore::UserWarning:torchmetrics")
def test_scripts_with_torch_jit_as_torchmetrics_own_text_metrics_do():
    # torchmetrics' text-metric harness scripts every metric; its BLEUScore passes.
    from torchmetrics.text import BLEUScore

    torch.jit.script(BLEUScore())
    scripted = torch.jit.script(GoogleBLEUScore())
    assert {name: int(getattr(scripted, name)) for name in COLUMNS} == dict.fromkeys(COLUMNS, 0)


def test_evaluate_common_metric_wording_for_a_length_mismatch():
    # evaluate's common metric tests expect "Mismatch in the number" for this ValueError; a
    # wrong type stays a TypeError (our rule), where those tests would accept a ValueError.
    import google_bleu

    metric = google_bleu.load()
    with pytest.raises(ValueError, match="^Mismatch in the number of predictions and references: predictions has 2"):
        metric.compute(predictions=["a", "b"], references=[["a"]])
    with pytest.raises(TypeError, match="predictions\\[0\\] must be a str, got int 1"):
        metric.compute(predictions=[1, 2], references=[["a"], ["b"]])
