"""Ray Data on a real local cluster (2 CPUs, 127.0.0.1 only): GleuColumns in map_batches
(numpy and pandas batches) and GleuColumns.reduce by Ray's own sum equal one process exactly."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import warnings

import numpy as np
import pytest

from google_bleu import GLEU, GleuStats
from google_bleu.integrations.columns import GleuColumns
from tests.helpers import local_ray
from tests.helpers.oracles import SAMPLES, SHARED_DATA, hf_google_bleu, read_lines
from tests.integrations.test_distributed import NULL_MESSAGE, NULL_ROWS

ray = pytest.importorskip("ray", reason="Ray Data is an optional extra: pip install 'google-bleu[ray]'")
pytest.importorskip("ray.data", reason="Ray Data is an optional extra: pip install 'google-bleu[ray]'")

# Each Ray Data pipeline costs seconds of planning and scheduling on a small machine.
pytestmark = pytest.mark.slow

SHARED_WMT17 = SHARED_DATA / "wmt17_en_de"


@pytest.fixture(scope="module")
def cluster():
    """One local Ray cluster for the module; no dashboard, no usage report, loopback only."""
    context = local_ray.start(num_cpus=2)
    data_context = ray.data.DataContext.get_current()
    data_context.enable_progress_bars = False
    try:
        yield context
    finally:
        ray.shutdown()


def corpus(folder, systems: int) -> tuple[list[str], list[list[str]]]:
    """A system's lines against ragged references (1-3 a row), with empty predictions."""
    references = read_lines(folder / "ref0.txt")
    others = [read_lines(path) for path in sorted(folder.glob("sys_*.txt"))[: systems + 1]]
    predictions = list(others[0])
    for i in range(0, len(predictions), 11):
        predictions[i] = ""  # empty predictions count in the corpus as in one process
    refs = [[ref, *(other[i] for other in others[1 : 1 + i % 3])] for i, ref in enumerate(references)]
    return predictions, refs


def score_on_ray(predictions, references, columns: GleuColumns, batch_format: str, batch_size: int):
    items = [{"id": i, "hyp": p, "refs": r} for i, (p, r) in enumerate(zip(predictions, references))]
    dataset = ray.data.from_items(items, override_num_blocks=4)
    mapped = dataset.map_batches(columns, batch_format=batch_format, batch_size=batch_size).materialize()
    rows = sorted(mapped.take_all(), key=lambda row: row["id"])
    return mapped, rows


@pytest.mark.parametrize("batch_format", ["numpy", "pandas"])
def test_bundled_sample_equals_one_process(cluster, batch_format):
    predictions, references = corpus(SAMPLES / "wmt17_en_de", systems=3)
    columns = GleuColumns(predictions="hyp", references="refs")
    one = GLEU().stats(predictions, references)
    mapped, rows = score_on_ray(predictions, references, columns, batch_format, batch_size=37)
    assert columns.reduce(mapped) == one.total()
    assert columns.reduce(mapped).score() == one.score()
    assert [row["google_bleu"] for row in rows] == one.sentence_scores().tolist()
    assert np.array([[row[name] for name in ("n_match", "n_hyp", "n_ref", "n_all")] for row in rows]).tolist() == (
        one.rows.tolist()
    )
    # The input columns come back untouched, references still lists of strings.
    assert [row["hyp"] for row in rows] == predictions
    assert [list(row["refs"]) for row in rows] == references
    assert sum(1 for row in rows if row["hyp"] == "") > 20


@pytest.mark.skipif(not SHARED_WMT17.is_dir(), reason=f"shared WMT17 data not found at {SHARED_WMT17}")
def test_full_wmt17_multi_reference_equals_one_process_and_hf(cluster):
    predictions, references = corpus(SHARED_WMT17, systems=2)
    columns = GleuColumns(predictions="hyp", references="refs", scorer=GLEU(lowercase=True, max_len=3))
    one = GLEU(lowercase=True, max_len=3).stats(predictions, references)
    mapped, rows = score_on_ray(predictions, references, columns, "numpy", batch_size=500)
    assert columns.reduce(mapped) == one.total()
    assert [row["google_bleu"] for row in rows] == one.sentence_scores().tolist()
    # Single reference, default settings: the HF google_bleu pipeline's number.
    single = [[refs[0]] for refs in references]
    mapped, _ = score_on_ray(predictions, single, GleuColumns(predictions="hyp", references="refs"), "pandas", 1000)
    assert GleuColumns().reduce(mapped).score() == hf_google_bleu(predictions, [refs[0] for refs in references])


def test_reduce_is_exact_int64_and_handles_empty_and_bad_datasets(cluster):
    # Values a float64 sum would round (2**53 + 1 is not a float64), summed by Ray.
    big = 2**53 + 1
    items = [{"n_match": big, "n_hyp": big + i, "n_ref": big + 2 * i, "n_all": big + 2 * i} for i in range(5)]
    totals = GleuColumns().reduce(ray.data.from_items(items)).totals()
    assert totals == (5 * big, 5 * big + 10, 5 * big + 20, 5 * big + 20)
    assert float(5 * big) != 5 * big  # the check above could fail with any float on the way
    from ray.data.expressions import col

    empty = ray.data.from_items(items).filter(expr=col("n_ref") < 0)
    assert GleuColumns().reduce(empty) == GleuStats.empty().total()
    with pytest.raises(ValueError, match=r"missing statistics columns \['n_all'\]"):
        GleuColumns().reduce(ray.data.from_items([{k: v for k, v in items[0].items() if k != "n_all"}]))
    floats = [{"n_match": 1.5, "n_hyp": 2, "n_ref": 2, "n_all": 2}]
    with pytest.raises(TypeError, match=r"column 'n_match' must hold integers"):
        GleuColumns().reduce(ray.data.from_items(floats))


@pytest.mark.parametrize("rows", [NULL_ROWS, [{**NULL_ROWS[1]}]], ids=["one-null", "all-null"])
def test_a_null_statistic_in_a_ray_dataset_is_refused_as_locally(cluster, rows):
    # Before, a block holding the null among integers summed the row's other three columns and
    # skipped the null: (6, 21, 17, 21); a block of the null alone was refused in other words.
    for blocks in (1, len(rows)):
        with pytest.raises(TypeError, match=NULL_MESSAGE):
            GleuColumns().reduce(ray.data.from_items(rows, override_num_blocks=blocks))
    with pytest.raises(TypeError, match=NULL_MESSAGE):
        GleuColumns().reduce({name: [row[name] for row in rows] for name in rows[0]})


def test_bad_rows_are_refused_not_skipped(cluster):
    dataset = ray.data.from_items([{"hyp": "a b", "refs": ["a b"]}, {"hyp": None, "refs": ["x"]}])
    columns = GleuColumns(predictions="hyp", references="refs")
    # Ray turns the null into None or NaN; either is refused with the row's place in its batch.
    with pytest.raises(Exception, match=r"hyp\[\d+\] must be a str, got (NoneType|float)"):
        dataset.map_batches(columns, batch_format="numpy").materialize()
    with pytest.raises(Exception, match=r"column 'predictions' not found; the batch has columns \['hyp', 'refs'\]"):
        dataset.map_batches(GleuColumns(), batch_format="pandas").materialize()


class _Deprecations(logging.Handler):
    """Ray Data's deprecation notices: Ray logs them (``logger.warning``) instead of warning."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "deprecated" in record.getMessage():
            self.messages.append(record.getMessage())


@contextlib.contextmanager
def no_deprecations():
    """Warnings become errors, and Ray Data's logged deprecation notices are collected."""
    handler = _Deprecations()
    logger = logging.getLogger("ray.data")
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            yield handler.messages
    finally:
        logger.removeHandler(handler)


def test_a_class_udf_on_an_actor_pool_is_exact_and_uses_no_deprecated_api(cluster):
    predictions, references = corpus(SAMPLES / "wmt17_en_de", systems=2)
    settings = {"predictions": "hyp", "references": "refs", "scorer": GLEU(lowercase=True)}
    items = [{"id": i, "hyp": p, "refs": r} for i, (p, r) in enumerate(zip(predictions, references))]
    one = GLEU(lowercase=True).stats(predictions, references)
    with no_deprecations() as deprecations:
        mapped = (
            ray.data.from_items(items, override_num_blocks=4)
            .map_batches(
                GleuColumns,
                fn_constructor_kwargs=settings,
                compute=ray.data.ActorPoolStrategy(size=2),
                batch_format="numpy",
                batch_size=50,
            )
            .materialize()
        )
        reduced = GleuColumns(**settings).reduce(mapped)
    assert deprecations == []
    assert reduced == one.total() and reduced.score() == one.score()
    rows = sorted(mapped.take_all(), key=lambda row: row["id"])
    assert [row["google_bleu"] for row in rows] == one.sentence_scores().tolist()
    # The check above can fail: the argument it replaces is reported as deprecated.
    with no_deprecations() as deprecations:
        ray.data.from_items(items[:20]).map_batches(
            GleuColumns, fn_constructor_kwargs=settings, concurrency=1, batch_format="numpy"
        ).materialize()
    assert len(deprecations) == 1 and "``concurrency`` is deprecated" in deprecations[0]


def test_scale_guide_ray_recipe_runs(cluster, capsys):
    from tests.scale.test_parallel import scale_doc_blocks

    blocks = scale_doc_blocks()
    namespace = {"__name__": "__main__"}
    exec(compile(blocks["python-jobs"], "docs/scale.md:python-jobs", "exec"), namespace)
    context = ray.data.DataContext.get_current()
    names = ("use_datasource_v2", "op_resource_reservation_enabled", "enable_progress_bars")
    saved = {name: getattr(context, name) for name in names}
    level = logging.getLogger("ray.data").level
    context.enable_progress_bars = True  # as Ray starts: the recipe turns them off
    logging.getLogger("ray.data").setLevel(logging.DEBUG)  # as Ray Data sets it: the recipe raises it
    try:
        with no_deprecations() as deprecations:
            exec(compile(blocks["ray-recipe"], "docs/scale.md:ray-recipe", "exec"), namespace)
        # The settings the recipe names exist in this Ray (a misspelt one would be a new attribute),
        # and its logging is kept to warnings.
        assert {name: getattr(context, name) for name in saved} == dict.fromkeys(saved, False)
        assert set(saved) <= {field.name for field in dataclasses.fields(context)}
        assert logging.getLogger("ray.data").level == logging.WARNING
    finally:
        for name, value in saved.items():
            setattr(context, name, value)
        logging.getLogger("ray.data").setLevel(level)
    assert deprecations == []
    one = GLEU().stats(namespace["predictions"], namespace["references"])
    assert namespace["corpus"] == one.total()
    assert capsys.readouterr().out.split("\n")[:3] == [f"{one.score():.4f}"] * 2 + [f"{one.score():.4f} True"]
    import pyarrow.parquet as pq

    written = pq.read_table(str(namespace["folder"] / "scored")).sort_by("id").to_pydict()
    assert list(written) == ["id", "prediction", "references", "n_match", "n_hyp", "n_ref", "n_all", "google_bleu"]
    assert written["google_bleu"] == one.sentence_scores().tolist()
    assert written["prediction"] == namespace["predictions"]
    kept = sorted(namespace["kept"].take_all(), key=lambda row: row["id"])
    assert [row["id"] for row in kept] == [i for i, score in enumerate(written["google_bleu"]) if score >= 0.3]


def test_pyarrow_batches_return_only_what_is_asked_and_read_json_lines(cluster, tmp_path):
    predictions, references = corpus(SAMPLES / "wmt17_en_de", systems=3)  # ragged, empty predictions
    one = GLEU().stats(predictions, references)
    path = tmp_path / "outputs.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        for i, (p, r) in enumerate(zip(predictions, references)):
            out.write(json.dumps({"id": i, "hyp": p, "refs": r}) + "\n")
    columns = GleuColumns("hyp", "refs", keep=["id"])
    scored = ray.data.read_json(str(path), override_num_blocks=3).map_batches(columns, batch_format="pyarrow", batch_size=None)
    assert columns.reduce(scored) == one.total()
    rows = sorted(scored.take_all(), key=lambda row: row["id"])
    assert list(rows[0]) == ["id", "n_match", "n_hyp", "n_ref", "n_all", "google_bleu"]
    assert [[row[name] for name in ("n_match", "n_hyp", "n_ref", "n_all")] for row in rows] == one.rows.tolist()
    # One reference a row takes Arrow's flat strings: the same rows.
    single = ray.data.from_items([{"hyp": p, "refs": r[:1]} for p, r in zip(predictions, references)])
    assert columns.reduce(single.map_batches(GleuColumns("hyp", "refs"), batch_format="pyarrow")) == (
        GLEU().stats(predictions, [r[:1] for r in references]).total()
    )
    with pytest.raises(Exception, match=r"column 'id' not found"):
        single.map_batches(columns, batch_format="pyarrow").materialize()


def test_the_package_and_the_command_import_no_ray():
    # Ray's start-up stays out of --jobs: the command, the package and GleuColumns itself
    # import neither Ray nor pyarrow until a Ray batch or dataset reaches them.
    import subprocess
    import sys

    from tests.helpers.oracles import REPO

    modules = "google_bleu, google_bleu.cli.main, google_bleu.scale.parallel, google_bleu.integrations.columns"
    code = f"import sys, {modules}; print(sorted(m for m in ('ray', 'pyarrow', 'daft') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert done.stdout == "[]\n"
