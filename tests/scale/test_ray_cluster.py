"""Ray Data on a cluster of several nodes on this machine (``ray.cluster_utils.Cluster``: a
head and two worker nodes, each a raylet with its own CPU and object store, loopback only).

The scale guide's recipe and an actor pool run on more than one node and give the totals of
``google-bleu --jobs 1`` on the same files; a node removed mid-run is retried by Ray and
gives the same totals and rows, never a different score.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from google_bleu import GLEU
from google_bleu.integrations.columns import GleuColumns
from google_bleu.stats import COLUMNS
from tests.helpers import local_ray
from tests.helpers.wmt17 import command_totals, sample_rows, write_parquet_parts

ray = pytest.importorskip("ray", reason="Ray Data is an optional extra: pip install 'google-bleu[ray]'")
pytest.importorskip("ray.data", reason="Ray Data is an optional extra: pip install 'google-bleu[ray]'")

# Three raylets on a small machine: seconds to start.
pytestmark = pytest.mark.slow

PARTS = 8


@pytest.fixture(scope="module")
def cluster():
    made = local_ray.cluster(head_cpus=1, nodes=2)
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        yield made
    finally:
        ray.shutdown()
        made.shutdown()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Every system of the bundled sample against its reference, as JSON Lines in PARTS files
    (one read task each), and the command's totals for them with ``--jobs 1``."""
    folder = tmp_path_factory.mktemp("cluster")
    rows = sample_rows()
    for part in range(PARTS):
        with open(folder / f"part-{part}.jsonl", "w", encoding="utf-8") as out:
            out.writelines(json.dumps(row) + "\n" for row in rows[part::PARTS])
    return folder, rows, command_totals()


def test_recipe_and_actor_pool_use_several_nodes_and_equal_the_command(cluster, inputs, tmp_path):
    folder, rows, command_totals = inputs
    nodes = {node["NodeID"] for node in ray.nodes() if node["Alive"]}
    assert len(nodes) == 3
    one = GLEU().stats([row["prediction"] for row in rows], [row["references"] for row in rows])
    assert one.totals() == command_totals

    def where(batch):  # the recipe's object, and the node that ran it
        out = GleuColumns("prediction", "references", keep=["id"])(batch)
        return out.append_column("node", [[ray.get_runtime_context().get_node_id()] * out.num_rows])

    tasks = ray.data.read_json(str(folder)).map_batches(where, batch_format="pyarrow", batch_size=None).materialize()
    assert GleuColumns().reduce(tasks).totals() == command_totals
    scored = sorted(tasks.take_all(), key=lambda row: row["id"])
    assert [row["id"] for row in scored] == list(range(len(rows)))
    assert [[row[name] for name in COLUMNS] for row in scored] == one.rows.tolist()
    assert len({row["node"] for row in scored}) > 1

    # The guide's Parquet settings across the nodes: a read task a CPU, every CPU from the start.
    parquet = tmp_path / "parquet"
    parquet.mkdir()
    write_parquet_parts(rows, parquet, PARTS)
    context = ray.data.DataContext.get_current()
    saved = (context.use_datasource_v2, context.op_resource_reservation_enabled)
    context.use_datasource_v2 = context.op_resource_reservation_enabled = False
    try:
        read = ray.data.read_parquet(str(parquet), override_num_blocks=int(ray.cluster_resources()["CPU"]))
        recipe = read.map_batches(where, batch_format="pyarrow", batch_size=None).materialize()
    finally:
        context.use_datasource_v2, context.op_resource_reservation_enabled = saved
    assert GleuColumns().reduce(recipe).totals() == command_totals
    recipe_rows = recipe.take_all()
    assert sorted(row["id"] for row in recipe_rows) == list(range(len(rows)))
    assert len({row["node"] for row in recipe_rows}) > 1

    built = tmp_path / "built"
    built.mkdir()

    class Located(GleuColumns):  # an actor a CPU: two actors, on two of the three one-CPU nodes
        def __init__(self, **settings):
            super().__init__(**settings)
            (built / ray.get_runtime_context().get_node_id()).touch()
            # Each waits for the other, so that a loaded machine cannot finish the data with the
            # first actor before the second is built.
            deadline = time.monotonic() + 120
            while len(list(built.iterdir())) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)

    actors = ray.data.read_json(str(folder)).map_batches(
        Located,
        fn_constructor_kwargs={"predictions": "prediction", "references": "references", "keep": ["id"]},
        compute=ray.data.ActorPoolStrategy(size=2),
        batch_format="pyarrow",
        batch_size=1000,
    )
    assert GleuColumns().reduce(actors).totals() == command_totals
    assert len(list(built.iterdir())) == 2  # the pool's two actors were built on two nodes


def test_a_node_removed_mid_run_is_retried_with_the_same_totals(cluster, inputs, tmp_path):
    folder, rows, command_totals = inputs
    victim = next(iter(cluster.worker_nodes))
    started = tmp_path / "started"
    started.mkdir()

    def slow(batch):  # marks the node it runs on, then takes its time: the node dies under it
        node = ray.get_runtime_context().get_node_id()
        (started / node).touch()
        time.sleep(0.5)
        return GleuColumns("prediction", "references", keep=["id"])(batch)

    scored = ray.data.read_json(str(folder)).map_batches(slow, batch_format="pyarrow", batch_size=None)
    outcome: dict = {}

    def run():
        try:
            outcome["rows"] = scored.select_columns(["id", *COLUMNS]).take_all()
        except Exception as error:  # noqa: BLE001 - a clear error is one of the allowed outcomes
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    while not (started / victim.node_id).exists() and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (started / victim.node_id).exists(), "no task ran on the node to remove"
    cluster.remove_node(victim, allow_graceful=False)
    thread.join(120)
    assert not thread.is_alive()
    if "error" in outcome:  # allowed: a failure that says a node died, never a different score
        assert "node" in str(outcome["error"]).lower() or "worker" in str(outcome["error"]).lower(), outcome["error"]
        return
    got = sorted(outcome["rows"], key=lambda row: row["id"])
    assert [row["id"] for row in got] == list(range(len(rows)))  # each row once: none lost, none twice
    assert tuple(sum(row[name] for row in got) for name in COLUMNS) == command_totals
