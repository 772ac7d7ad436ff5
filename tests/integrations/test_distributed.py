"""Exact corpus GLEU across real processes: evaluate's distributed mode, torch.distributed
(gloo on 127.0.0.1), and datasets' map with num_proc; each equals one process over the corpus."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import google_bleu
from google_bleu import GLEU, GleuStats
from google_bleu.integrations.columns import GleuColumns
from google_bleu.integrations.torch_distributed import all_reduce_stats
from tests.helpers.oracles import REPO, SAMPLES, hf_google_bleu, read_lines

WMT17 = SAMPLES / "wmt17_en_de"
REFERENCES = read_lines(WMT17 / "ref0.txt")
SYSTEM_A = read_lines(WMT17 / "sys_online-A.0.txt")
SYSTEM_B = read_lines(WMT17 / "sys_uedin-nmt.4722.txt")
# Processes of an evaluate experiment and ranks of the torch group.
EVALUATIONS = {"system-a": (SYSTEM_A, 2), "system-b": (SYSTEM_B, 3)}
TORCH_RANKS = 3


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def shards(items: list, count: int) -> list[list]:
    # Uneven contiguous shards, as a sampler would give.
    bounds = np.linspace(0, len(items), count + 1).astype(int)
    return [items[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]


def launch(tmp_path, name: str, spec: dict, env: dict | None = None) -> tuple[subprocess.Popen, str, str]:
    out = str(tmp_path / f"{name}.out.json")
    spec_path = tmp_path / f"{name}.spec.json"
    spec_path.write_text(json.dumps({**spec, "out": out}), encoding="utf-8")
    log = open(tmp_path / f"{name}.log", "w")  # noqa: SIM115 - closed when the process is collected
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.distributed_worker", str(spec_path)],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    return process, out, log.name


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Starts every worker at once (startup is the slow part), then collects their reports."""
    tmp_path = tmp_path_factory.mktemp("distributed")
    cache_dir = str(tmp_path / "shared_cache")
    google_bleu.load()  # evaluate copies the module once here, not in every worker at once
    jobs = {}
    for experiment_id, (predictions, world_size) in EVALUATIONS.items():
        parts = zip(shards(predictions, world_size), shards(REFERENCES, world_size))
        for rank, (my_predictions, my_references) in enumerate(parts):
            namespace = {
                "world_size": world_size,
                "rank": rank,
                "experiment_id": experiment_id,
                "cache_dir": cache_dir,
                "my_predictions": my_predictions,
                "my_references": [[ref] for ref in my_references],
            }
            spec = {
                "snippet": "evaluate-distributed",
                "namespace": namespace,
                "report": ["result"],
                "block_transformers": True,
            }
            jobs[(experiment_id, rank)] = launch(tmp_path, f"{experiment_id}-{rank}", spec)
    env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()), "WORLD_SIZE": str(TORCH_RANKS)}
    mismatch_port = free_port()
    # Rank 1 gets no segment at all: its zero totals must still take part.
    predictions = [SYSTEM_A[:100], [], SYSTEM_A[100:]]
    references = [REFERENCES[:100], [], REFERENCES[100:]]
    for rank in range(TORCH_RANKS):
        namespace = {
            "my_predictions": predictions[rank],
            "my_references": references[rank],
            "rank": rank,
            "world_size": TORCH_RANKS,
        }
        spec = {
            "snippet": "torch-distributed",
            "namespace": namespace,
            "report": ["corpus_score"],
            "mismatch_port": mismatch_port,
        }
        jobs[("torch", rank)] = launch(tmp_path, f"torch-{rank}", spec, {**env, "RANK": str(rank)})
    deadline = time.monotonic() + 240
    reports = {}
    for key, (process, out, log) in jobs.items():
        try:
            process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for other, _, _ in jobs.values():
                if other.poll() is None:
                    other.kill()
            pytest.fail(f"worker {key} did not finish; its log:\n{open(log).read()[-3000:]}")
        if process.returncode != 0:
            pytest.fail(f"worker {key} exited with {process.returncode}; its log:\n{open(log).read()[-3000:]}")
        with open(out, encoding="utf-8") as file:
            reports[key] = json.load(file)
    return reports, cache_dir


@pytest.mark.parametrize("experiment_id", sorted(EVALUATIONS))
def test_evaluate_distributed_mode_equals_one_process(runs, experiment_id):
    reports, _ = runs
    predictions, world_size = EVALUATIONS[experiment_id]
    expected = google_bleu.load().compute(predictions=predictions, references=[[r] for r in REFERENCES])
    assert expected["google_bleu"] == hf_google_bleu(predictions, REFERENCES)
    # Process 0 gets the corpus result, the others None; the other experiment running
    # at the same time in the same cache directory changed nothing.
    assert reports[(experiment_id, 0)]["result"] == expected
    assert [reports[(experiment_id, rank)]["result"] for rank in range(1, world_size)] == [None] * (world_size - 1)


def test_concurrent_evaluations_differ(runs):
    reports, cache_dir = runs
    scores = {reports[(experiment_id, 0)]["result"]["google_bleu"] for experiment_id in EVALUATIONS}
    assert len(scores) == len(EVALUATIONS)
    # Process 0 removed the shards' cache files after computing.
    leftover = [name for root, _, names in os.walk(cache_dir) for name in names if name.endswith(".arrow")]
    assert leftover == []


def test_torch_distributed_every_rank_gets_the_exact_corpus_score(runs):
    reports, _ = runs
    expected = GLEU().stats(SYSTEM_A, REFERENCES).score()
    assert expected == hf_google_bleu(SYSTEM_A, REFERENCES)
    assert [reports[("torch", rank)]["corpus_score"] for rank in range(TORCH_RANKS)] == [expected] * TORCH_RANKS


def test_torch_distributed_rejects_mixed_orders_on_every_rank(runs):
    reports, _ = runs
    errors = [reports[("torch", rank)]["mismatch_error"] for rank in range(TORCH_RANKS)]
    assert errors == [errors[0]] * TORCH_RANKS
    assert "different n-gram orders" in errors[0] and "max_len from 3 to 4" in errors[0]


def test_all_reduce_without_process_group_is_the_total():
    stats = GLEU(min_len=2).stats(SYSTEM_B[:50], REFERENCES[:50])
    reduced = all_reduce_stats(stats)
    assert reduced == stats.total()
    assert reduced.score() == stats.score()
    with pytest.raises(TypeError, match="GleuStats"):
        all_reduce_stats(stats.totals())


@pytest.fixture(scope="module")
def dataset():
    datasets = pytest.importorskip("datasets")
    return datasets.Dataset.from_dict({"hyp": SYSTEM_B, "refs": [[ref] for ref in REFERENCES]})


def test_datasets_map_num_proc_reduces_to_the_exact_corpus_score(dataset):
    columns = GleuColumns(predictions="hyp", references="refs", scorer=GLEU(min_len=1, max_len=3))
    scored = dataset.map(columns, batched=True, batch_size=64, num_proc=2)
    whole = GLEU(max_len=3).stats(SYSTEM_B, REFERENCES)
    assert scored.column_names == ["hyp", "refs", "n_match", "n_hyp", "n_ref", "n_all", "google_bleu"]
    assert columns.reduce(scored) == whole.total()
    assert columns.reduce(scored).score() == hf_google_bleu(SYSTEM_B, REFERENCES, max_len=3)
    assert scored["google_bleu"][:] == whole.sentence_scores().tolist()
    # Shards reduce separately and add up (a map-reduce over machines).
    parts = [columns.reduce(scored.shard(4, i, contiguous=False)) for i in range(4)]
    assert GleuStats.concatenate(parts).score() == whole.score()
    # The same per row (batched=False), and from plain column dicts.
    rows = dataset.select(range(40)).map(columns)
    assert rows["google_bleu"][:] == whole[:40].sentence_scores().tolist()
    assert GleuColumns(scorer=GLEU(max_len=3)).reduce(rows.to_dict()) == whole[:40].total()


def test_gleu_columns_bad_input(dataset):
    columns = GleuColumns(predictions="prediction")
    with pytest.raises(ValueError, match=r"column 'prediction' not found"):
        columns({"hyp": ["a"], "refs": [["a"]]})
    with pytest.raises(ValueError, match=r"missing statistics columns \['n_match', 'n_hyp', 'n_ref', 'n_all'\]"):
        columns.reduce(dataset)
    with pytest.raises(ValueError, match=r"missing statistics columns \['n_all'\]"):
        GleuColumns().reduce({"n_match": [1], "n_hyp": [1], "n_ref": [1]})
    with pytest.raises(TypeError, match="must hold integers"):
        GleuColumns().reduce({"n_match": [0.5], "n_hyp": [1], "n_ref": [1], "n_all": [1]})
    with pytest.raises(TypeError, match="a mapping of columns"):
        GleuColumns().reduce([1, 2, 3, 4])
    with pytest.raises(ValueError, match="the number of hyp and refs: hyp has 2, refs has 1"):
        GleuColumns(predictions="hyp", references="refs")({"hyp": ["a", "b"], "refs": [["a"]]})


def test_evaluate_distributed_process_without_data_fails_at_once(tmp_path):
    metric = google_bleu.load(num_process=2, process_id=1, experiment_id="empty-shard", cache_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"process 1 of 2 added no prediction"):
        metric.compute()
    with pytest.raises(ValueError, match=r"process 1 of 2 added no prediction"):
        metric.compute(predictions=[], references=[])


#: A row of statistics with a null, and the message every path refuses it with.
NULL_ROWS = [{"n_match": 6, "n_hyp": 18, "n_ref": 14, "n_all": 18}, {"n_match": None, "n_hyp": 3, "n_ref": 3, "n_all": 3}]
NULL_MESSAGE = r"^column 'n_match' holds 1 null value: a statistic is an integer count, never missing$"


def null_containers(rows: list[dict]) -> dict:
    """The same rows as a mapping of lists, of numpy arrays, a pyarrow Table and a datasets.Dataset."""
    import datasets
    import pyarrow as pa

    lists = {name: [row[name] for row in rows] for name in rows[0]}
    return {
        "lists": lists,
        "numpy": {name: np.asarray(values) for name, values in lists.items()},
        "pyarrow": pa.Table.from_pylist(rows),
        "datasets": datasets.Dataset.from_list(rows),
    }


@pytest.mark.parametrize("kind", ["lists", "numpy", "pyarrow", "datasets"])
@pytest.mark.parametrize("rows", [NULL_ROWS, [{**NULL_ROWS[1]}]], ids=["one-null", "all-null"])
def test_a_null_statistic_is_refused_the_same_way_everywhere(kind, rows):
    # Before, Ray's reduce summed the other three columns of the row and skipped the null.
    with pytest.raises(TypeError, match=NULL_MESSAGE):
        GleuColumns().reduce(null_containers(rows)[kind])
    nan = {"n_match": np.array([6.0, np.nan]), "n_hyp": [18, 3], "n_ref": [14, 3], "n_all": [18, 3]}
    with pytest.raises(TypeError, match=NULL_MESSAGE):
        GleuColumns().reduce(nan)  # pandas and numpy say "missing" with NaN
