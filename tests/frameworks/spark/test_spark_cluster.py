"""The Spark recipe on a cluster of separate executor processes (conftest.py: two one-core
executors, each a JVM of its own, on 127.0.0.1 only): the totals of ``google-bleu --jobs 1``
on the same files, and the same again when an executor is killed mid-run.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F

from google_bleu import GLEU
from google_bleu.stats import COLUMNS
from tests.helpers.processes import alive
from tests.helpers.wmt17 import command_totals, sample_rows, write_parquet_parts

PARTS = 8
STATS = "n_match bigint, n_hyp bigint, n_ref bigint, n_all bigint, google_bleu double"

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds executors' processes in /proc (Linux)")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Every system of the bundled sample against its reference, paired by the command's line
    rules, as PARTS Parquet files; and the command's totals for them with ``--jobs 1``."""
    folder = tmp_path_factory.mktemp("outputs")
    rows = sample_rows()
    write_parquet_parts(rows, folder, PARTS)
    return folder, rows, command_totals()


def located(marks: Path | None = None):
    """The recipe's ``mapInArrow`` function, adding the pid of the executor JVM that ran each
    row. With ``marks``: each task first leaves a file there named by its partition, attempt and
    executor, and the first attempt of partition 0 then waits to be killed (60 s at most)."""

    def score(batches):
        from pyspark import TaskContext

        from google_bleu.integrations.columns import GleuColumns

        pid = os.getpid()  # the executor: the nearest ancestor that runs Spark's executor backend
        while b"CoarseGrainedExecutorBackend" not in Path(f"/proc/{pid}/cmdline").read_bytes():
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            assert pid > 1, "no executor among this Python worker's ancestors"
        task = TaskContext.get()
        if marks is not None:
            (marks / f"{task.partitionId()}-{task.attemptNumber()}-{pid}").touch()
            if task.partitionId() == 0 and task.attemptNumber() == 0:
                time.sleep(60)
        gleu = GleuColumns("prediction", "references", keep=["id"])
        for batch in batches:
            scored = gleu(batch)
            yield from scored.append_column("executor", pa.array([pid] * scored.num_rows, pa.int64())).to_batches()

    return score


def test_the_recipe_on_two_executors_equals_the_command(spark, inputs):
    folder, rows, command_totals = inputs
    one = GLEU().stats([row["prediction"] for row in rows], [row["references"] for row in rows])
    assert one.totals() == command_totals
    executors = spark.sparkContext._jsc.sc().statusTracker().getExecutorInfos()
    assert len(executors) == 3 and {executor.host() for executor in executors} == {"127.0.0.1"}  # the driver too
    scored = spark.read.parquet(str(folder)).mapInArrow(located(), f"id bigint, {STATS}, executor bigint")
    totals = scored.agg(*[F.sum(name).alias(name) for name in COLUMNS]).first()
    assert tuple(totals[name] for name in COLUMNS) == command_totals
    got = sorted(scored.collect())
    assert [row.id for row in got] == list(range(len(rows)))
    assert [[row[name] for name in COLUMNS] for row in got] == one.rows.tolist()
    assert len({row.executor for row in got}) == 2  # both executors, each a process of its own
    assert os.getpid() not in {row.executor for row in got}


def test_an_executor_killed_mid_run_is_retried_with_every_row_counted_once(spark, inputs, tmp_path):
    folder, rows, command_totals = inputs
    marks = tmp_path / "marks"
    marks.mkdir()
    scored = spark.read.parquet(str(folder)).mapInArrow(located(marks), f"id bigint, {STATS}, executor bigint")
    outcome: dict = {}

    def run():  # the recipe's second step: the scores written beside the ids
        try:
            scored.write.parquet(str(tmp_path / "scored"))
            outcome["done"] = time.monotonic()
        except Exception as error:  # noqa: BLE001 - reported by the assertions below
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 120
    while not (first := list(marks.glob("0-0-*"))) and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert first, f"partition 0 never started: {outcome}"
    victim = int(first[0].name.rsplit("-", 1)[1])
    assert b"CoarseGrainedExecutorBackend" in Path(f"/proc/{victim}/cmdline").read_bytes()
    killed = time.monotonic()
    os.kill(victim, signal.SIGKILL)
    thread.join(180)
    assert not thread.is_alive() and "error" not in outcome, outcome
    # A kill mid-run: the job ended after it, and partition 0 ran again on another executor.
    assert outcome["done"] > killed
    retries = [mark.name.split("-") for mark in marks.glob("0-*") if mark.name != first[0].name]
    assert retries and all(int(pid) != victim for *_, pid in retries)
    assert not alive(victim)
    # Every row once, with the rows and the totals of the command.
    written = pq.read_table(tmp_path / "scored").sort_by("id")
    assert written.column("id").to_pylist() == list(range(len(rows)))
    totals = spark.read.parquet(str(tmp_path / "scored")).agg(*[F.sum(name).alias(name) for name in COLUMNS]).first()
    assert tuple(totals[name] for name in COLUMNS) == command_totals
