"""The scale guide's Spark recipe on PySpark 4.3 itself: ``DataFrame.mapInArrow`` hands
``GleuColumns`` each partition's pyarrow batches, and Spark's own ``sum`` of the four integer
columns gives the corpus statistics. Every figure is compared (``==``) with one process
(``GLEU(...).stats``) on the bundled WMT17 sample, on the local cluster of conftest.py.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
from pyspark.sql import functions as F

from google_bleu import GLEU
from google_bleu.integrations.columns import SCORE_COLUMN, GleuColumns
from google_bleu.stats import COLUMNS
from tests.helpers.readme_snippets import REPO, python_blocks
from tests.helpers.wmt17 import ragged_corpus

STATS = "n_match bigint, n_hyp bigint, n_ref bigint, n_all bigint, google_bleu double"


def sums() -> list:
    """Spark's sums of the four statistics columns (Spark builds them once a session is up)."""
    return [F.sum(name).alias(name) for name in COLUMNS]


def scores(columns: GleuColumns):
    """The recipe's function for ``mapInArrow``: a partition's batches in, their scores out."""

    def score(batches):
        for batch in batches:
            yield from columns(batch).to_batches()

    return score


@pytest.mark.parametrize("scorer", [GLEU(), GLEU(lowercase=True, min_len=2, max_len=3)], ids=repr)
def test_rows_and_corpus_equal_one_process(spark, scorer, wmt17):
    predictions, references = ragged_corpus(wmt17)
    rows = [(i, p, r) for i, (p, r) in enumerate(zip(predictions, references))]
    df = spark.createDataFrame(rows, "id bigint, hyp string, refs array<string>").repartition(5)
    gleu = GleuColumns("hyp", "refs", scorer=scorer, keep=["id"])
    scored = df.mapInArrow(scores(gleu), f"id bigint, {STATS}")
    one = scorer.stats(predictions, references)
    got = sorted(scored.collect())
    assert [row.id for row in got] == list(range(len(rows)))
    assert [[row[name] for name in COLUMNS] for row in got] == one.rows.tolist()
    assert [row[SCORE_COLUMN] for row in got] == one.sentence_scores().tolist()
    totals = scored.agg(*sums()).first().asDict()
    assert all(type(totals[name]) is int for name in COLUMNS)
    reduced = gleu.reduce({name: [value] for name, value in totals.items()})
    assert reduced == one.total() and reduced.score() == one.score()


def test_spark_sums_bigint_exactly_and_refuses_an_overflow(spark):
    big = 2**53 + 1  # not a float64: a float on the way would round it
    df = spark.createDataFrame([tuple(big + i for _ in COLUMNS) for i in range(5)], ", ".join(f"{name} bigint" for name in COLUMNS))
    totals = df.agg(*sums()).first()
    assert totals["n_match"] == 5 * big + 10 and float(5 * big + 10) != 5 * big + 10
    # Spark 4 runs SQL in ANSI mode: a sum past 2**63 - 1 is an error, never a wrapped total.
    with pytest.raises(Exception, match="ARITHMETIC_OVERFLOW"):
        spark.createDataFrame([(2**62,), (2**62,)], "n_match bigint").agg(F.sum("n_match")).first()


def test_a_null_prediction_is_refused_not_skipped(spark):
    df = spark.createDataFrame([("a b", ["a b"]), (None, ["x"])], "hyp string, refs array<string>").coalesce(1)
    with pytest.raises(Exception, match=r"hyp\[1\] must be a str, got NoneType"):
        df.mapInArrow(scores(GleuColumns("hyp", "refs")), STATS).collect()


def test_guide_recipe_runs_and_is_exact(spark, capsys):
    (block,) = [block for block in python_blocks() if block.name == "spark-recipe"]
    namespace = {"__name__": "__main__"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no deprecated PySpark API on the way
        exec(compile(block.source(), "docs/scale.md:spark-recipe", "exec"), namespace)
    assert namespace["spark"] is spark  # the recipe ran on this cluster
    predictions, references = namespace["predictions"], namespace["references"]
    one = GLEU().stats(predictions, references)
    assert capsys.readouterr().out == f"{one.score():.4f}\n{one.score():.4f} True\n"
    assert namespace["corpus"] == one.total()
    written = spark.read.parquet(str(namespace["folder"] / "scored")).orderBy("id").collect()
    assert [row.asDict() for row in written][0].keys() == {"id", "prediction", "references", *COLUMNS, SCORE_COLUMN}
    assert [row.prediction for row in written] == predictions
    assert [row[SCORE_COLUMN] for row in written] == one.sentence_scores().tolist()
    kept = sorted(row.id for row in namespace["kept"].collect())
    assert kept == [row.id for row in written if row[SCORE_COLUMN] >= 0.3]


def test_the_package_and_the_command_import_no_pyspark():
    # Here pyspark is installed, so an import of it anywhere in the package would show.
    modules = "google_bleu, google_bleu.cli.main, google_bleu.scale.parallel, google_bleu.integrations.columns"
    code = f"import sys, {modules}; print(sorted(m for m in ('pyspark', 'py4j', 'pyarrow') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert done.stdout == "[]\n"
