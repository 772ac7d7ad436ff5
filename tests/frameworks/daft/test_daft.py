"""The scale guide's Daft recipe on Daft 0.7 itself: a ``@daft.cls`` class whose
``@daft.method.batch`` method returns ``GleuColumns.arrow``, unnested into columns, and the
corpus statistics from Daft's own ``sum``. Every figure is compared (``==``) with one process
(``GLEU(...).stats``) on the bundled WMT17 sample.
"""

from __future__ import annotations

import warnings

import daft
import pytest
from daft import DataType, col

from google_bleu import GLEU
from google_bleu.integrations.columns import SCORE_COLUMN, GleuColumns
from google_bleu.stats import COLUMNS
from tests.helpers.readme_snippets import python_blocks
from tests.helpers.wmt17 import ragged_corpus

STATS = DataType.struct({**{name: DataType.int64() for name in COLUMNS}, SCORE_COLUMN: DataType.float64()})


@daft.cls(max_concurrency=2)
class Gleu:
    def __init__(self, scorer: GLEU) -> None:
        self.columns = GleuColumns(scorer=scorer)

    @daft.method.batch(return_dtype=STATS, unnest=True, batch_size=64)
    def __call__(self, predictions: daft.Series, references: daft.Series):
        return self.columns.arrow(predictions, references)


@pytest.mark.parametrize("scorer", [GLEU(), GLEU(lowercase=True, min_len=2, max_len=3)], ids=repr)
def test_rows_and_corpus_equal_one_process(scorer, wmt17):
    predictions, references = ragged_corpus(wmt17)
    df = daft.from_pydict({"id": list(range(len(predictions))), "hyp": predictions, "refs": references})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no deprecated Daft API on the way
        scored = df.select("id", Gleu(scorer)(col("hyp"), col("refs"))).sort("id").collect()
        totals = scored.sum(*COLUMNS).to_pydict()
    one = scorer.stats(predictions, references)
    rows = scored.to_pydict()
    assert [[rows[name][i] for name in COLUMNS] for i in range(len(predictions))] == one.rows.tolist()
    assert rows[SCORE_COLUMN] == one.sentence_scores().tolist()
    assert all(type(totals[name][0]) is int for name in COLUMNS)
    reduced = GleuColumns(scorer=scorer).reduce(totals)
    assert reduced == one.total() and reduced.score() == one.score()


def test_daft_sums_int64_exactly():
    big = 2**53 + 1  # not a float64: a float on the way would round it
    df = daft.from_pydict({name: [big + i for i in range(5)] for name in COLUMNS})
    totals = df.sum(*COLUMNS).to_pydict()
    assert totals["n_match"] == [5 * big + 10] and float(5 * big + 10) != 5 * big + 10


def test_a_null_prediction_is_refused_not_skipped():
    df = daft.from_pydict({"hyp": ["a b", None], "refs": [["a b"], ["x"]]})
    with pytest.raises(Exception, match=r"predictions\[1\] must be a str, got NoneType"):
        df.select(Gleu(GLEU())(col("hyp"), col("refs"))).collect()


def test_guide_recipe_runs_and_is_exact(wmt17, capsys):
    (block,) = [block for block in python_blocks() if block.name == "daft-recipe"]
    namespace = {"__name__": "__main__"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(compile(block.source(), "docs/scale.md:daft-recipe", "exec"), namespace)
    predictions, references = namespace["predictions"], namespace["references"]
    one = GLEU().stats(predictions, references)
    assert capsys.readouterr().out == f"{one.score():.4f}\n"
    assert namespace["corpus"] == one.total()
    rows = namespace["scored"].sort("id").to_pydict()
    assert rows[SCORE_COLUMN] == one.sentence_scores().tolist()
    assert rows["prediction"] == predictions
