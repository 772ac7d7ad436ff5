"""Adapters as values: every one holding a scorer pickles with every named tokenizer, and rows from
outside (statistics columns, harness items) reach GleuStats through its checks, never wrapped.

GLEU is a value: a named tokenizer pickles as its name (sacrebleu's tokenizers are closures
and do not pickle themselves), so an adapter needs no workaround of its own. Frameworks
pickle rewards and metrics to send them to workers (TRL's AsyncGRPOTrainer, Ray actors,
torchmetrics' distributed sync, multiprocessing pools).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from google_bleu import GLEU, GleuStats
from google_bleu.integrations.columns import GleuColumns
from google_bleu.integrations.lm_eval import LmEvalGleu
from google_bleu.integrations.openrlhf import OpenRLHFReward
from google_bleu.integrations.torchmetrics import GoogleBLEUScore
from google_bleu.integrations.trl import GleuReward
from google_bleu.integrations.verifiers import make_gleu_reward
from google_bleu.stats import COLUMNS
from tests.helpers.oracles import SAMPLES, read_lines

NAMED = ["none", "13a", "intl", "zh", "char"]
ADAPTERS = {
    "trl": lambda tokenizer: GleuReward(scorer=GLEU(tokenizer)),
    "openrlhf": lambda tokenizer: OpenRLHFReward(["</s>"], GLEU(tokenizer)),
    "verifiers": lambda tokenizer: make_gleu_reward(GLEU(tokenizer)),
    "lm_eval": lambda tokenizer: LmEvalGleu(scorer=GLEU(tokenizer)),
    "torchmetrics": lambda tokenizer: GoogleBLEUScore(GLEU(tokenizer)),
    "columns": lambda tokenizer: GleuColumns(scorer=GLEU(tokenizer)),
}


@pytest.mark.parametrize("tokenizer", NAMED)
def test_gleu_pickles_as_a_value_with_every_named_tokenizer(tokenizer):
    scorer = GLEU(tokenizer, lowercase=True, max_len=3)
    copy = pickle.loads(pickle.dumps(scorer))
    assert copy == scorer and hash(copy) == hash(scorer)
    predictions = read_lines(SAMPLES / "wmt17_en_de" / "sys_online-B.0.txt")[:200]
    references = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")[:200]
    assert copy.stats(predictions, references) == scorer.stats(predictions, references)


@pytest.mark.parametrize("tokenizer", NAMED)
@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_every_adapter_pickles_with_every_named_tokenizer(adapter, tokenizer):
    original = ADAPTERS[adapter](tokenizer)
    copy = pickle.loads(pickle.dumps(original))
    assert type(copy) is type(original)
    assert copy.scorer == original.scorer == GLEU(tokenizer)
    predictions = read_lines(SAMPLES / "wmt17_en_de" / "sys_online-B.0.txt")[:50]
    references = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")[:50]
    assert copy.scorer.stats(predictions, references) == original.scorer.stats(predictions, references)


def test_a_hand_made_tokenizer_named_like_a_named_one_pickles_as_itself():
    from google_bleu import Tokenizer

    shouting = Tokenizer("13a", lambda text: text.upper().split(), checked=True)
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickle.dumps(GLEU(shouting))  # a lambda does not pickle: it is never swapped for the real 13a
    copy = pickle.loads(pickle.dumps(GLEU(Tokenizer("13a", str.split, checked=True))))
    assert copy.tokenizer.function is str.split and copy != GLEU("13a")


# -- rows from outside: one checked path to GleuStats ------------------------------------


@pytest.mark.parametrize(
    "columns, message",
    [
        ({name: np.array([2**63], np.uint64) for name in COLUMNS}, "counts from 0 to 2\\*\\*63 - 1"),
        ({name: np.array([2**62] * 3, np.int64) for name in COLUMNS}, "do not fit in int64"),
        ({"n_match": [1, 2], "n_hyp": [3], "n_ref": [3, 3], "n_all": [3, 3]}, "one value per row each"),
        ({"n_match": [-1], "n_hyp": [3], "n_ref": [3], "n_all": [3]}, "counts from 0"),
        ({"n_match": [5], "n_hyp": [3], "n_ref": [3], "n_all": [3]}, "is not a GLEU statistics row"),
    ],
)
def test_statistics_columns_never_wrap_and_are_checked_like_rows(columns, message):
    with pytest.raises(ValueError, match=message):
        GleuColumns().reduce(columns)


def test_statistics_columns_of_unsigned_ints_sum_exactly():
    rows = GLEU().stats(["the cat sat", "a dog"], ["the cat sat on the mat", "a dog ran"]).rows
    unsigned = {name: rows[:, j].astype(np.uint64) for j, name in enumerate(COLUMNS)}
    assert GleuColumns().reduce(unsigned).totals() == tuple(int(v) for v in rows.sum(axis=0))


def test_harness_rows_above_int64_get_the_statistics_message():
    with pytest.raises(ValueError, match="counts from 0 to 2\\*\\*63 - 1"):
        LmEvalGleu().aggregation([(2**63, 2**63, 2**63, 2**63)])
    with pytest.raises(ValueError, match="counts from 0 to 2\\*\\*63 - 1"):
        GleuStats([(2**63, 2**63, 2**63, 2**63)])
