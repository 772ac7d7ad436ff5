"""The shared table of bad inputs: one case list per kind of input, driven through every surface.

``tests/surfaces/test_bad_input.py`` crosses each case list with the surfaces that take that kind
of input and asserts the exception type and that the message names the argument. To cover
another surface (the batched functions, the app's API, the reward and distributed
adapters), write a function ``(case) -> None`` that calls the surface with the case's
values and register it in the matching dict of ``tests/surfaces/test_bad_input.py`` (or build
your own test from these lists); to cover another class of bad input, add a case here.

Every case holds plain values only (no computation at import time).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd
import torch

from google_bleu.validation import MAX_ORDER, MAX_SAMPLES


@dataclasses.dataclass(frozen=True)
class Case:
    """One bad input.

    Attributes:
        id: Test id.
        error: The exception type every surface must raise (a subclass passes).
        names: Fragments the message must hold: the argument's name, and the type or value.
        predictions: Text predictions (text cases); a good value by default.
        references: Text references (text cases).
        hypotheses: Token hypotheses (token cases).
        list_of_references: Token references (token cases).
        options: Keyword options (setting and resampling cases).
        item: Whether the problem sits in one segment (so ``add(prediction=, reference=)``
            of that segment shows it too).
    """

    id: str
    error: type[Exception]
    names: tuple[str, ...]
    predictions: Any = ("the cat sat",)
    references: Any = (("the cat sat on the mat",),)
    hypotheses: Any = (("the", "cat"),)
    list_of_references: Any = ((("the", "cat"),),)
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    item: bool = False

    def text(self) -> tuple[Any, Any]:
        """``(predictions, references)``, a generator built anew."""
        return fresh(self.predictions), fresh(self.references)

    def tokens(self) -> tuple[Any, Any]:
        """``(hypotheses, list_of_references)``, a generator built anew."""
        return fresh(self.hypotheses), fresh(self.list_of_references)


class Fresh:
    """A value built anew for each use (a generator can be consumed only once)."""

    def __init__(self, build: Any) -> None:
        self.build = build

    def __repr__(self) -> str:
        return "Fresh(generator)"


def fresh(value: Any) -> Any:
    return value.build() if isinstance(value, Fresh) else value


_generator = Fresh(lambda: (text for text in ["the cat sat"]))


#: Untokenized text (GLEU, the evaluate module).
TEXT_CASES = [
    Case("predictions-str", TypeError, ("predictions", "str"), predictions="the cat sat"),
    Case("predictions-dict", TypeError, ("predictions", "dict", "mapping"), predictions={"the cat sat": 1}),
    Case(
        "predictions-dataframe",
        TypeError,
        ("predictions", "DataFrame", "table"),
        predictions=pd.DataFrame({"prediction": ["the cat sat"]}),
    ),
    Case("predictions-set", TypeError, ("predictions", "set"), predictions={"the cat sat"}),
    Case("predictions-generator", TypeError, ("predictions", "generator"), predictions=_generator),
    Case("predictions-0d-array", TypeError, ("predictions", "ndarray", "0-d"), predictions=np.array("the cat sat")),
    Case("predictions-none", TypeError, ("predictions", "NoneType"), predictions=None),
    Case("references-dict", TypeError, ("references", "dict"), references={"the cat": ["the cat"]}),
    Case(
        "references-dataframe",
        TypeError,
        ("references", "DataFrame"),
        references=pd.DataFrame({"reference": ["the cat sat on the mat"]}),
    ),
    Case("count-mismatch", ValueError, ("predictions has 1", "references has 2"), references=(("a",), ("b",))),
    Case("prediction-int", TypeError, ("predictions[0]", "int"), predictions=(3,), item=True),
    Case("prediction-bytes", TypeError, ("predictions[0]", "bytes"), predictions=(b"the cat",), item=True),
    Case("reference-entry-dict", TypeError, ("references[0]", "dict"), references=({"a": 1},), item=True),
    Case("reference-entry-set", TypeError, ("references[0]", "set"), references=({"a"},), item=True),
    Case("reference-empty", ValueError, ("references[0] has no reference",), references=((),), item=True),
    Case("reference-int", TypeError, ("references[0][0]", "int"), references=((7,),), item=True),
]

#: Token sequences (core gleu_stats, corpus_gleu).
TOKEN_CASES = [
    Case("hypotheses-str", TypeError, ("hypotheses", "str"), hypotheses="the cat"),
    Case("hypotheses-dict", TypeError, ("hypotheses", "dict"), hypotheses={"a": ("the",)}),
    Case("hypotheses-dataframe", TypeError, ("hypotheses", "DataFrame"), hypotheses=pd.DataFrame({"h": [["the"]]})),
    Case("hypotheses-generator", TypeError, ("hypotheses", "generator"), hypotheses=_generator),
    Case("list_of_references-set", TypeError, ("list_of_references", "set"), list_of_references={"x"}),
    Case(
        "count-mismatch", ValueError, ("1 hypotheses", "2 reference lists"), list_of_references=((("a",),), (("b",),))
    ),
    Case("hypothesis-str", TypeError, ("hypothesis 0", "str"), hypotheses=("the cat",), item=True),
    Case("hypothesis-dict", TypeError, ("hypothesis 0", "dict"), hypotheses=({"the": 1},), item=True),
    Case("hypothesis-0d-array", TypeError, ("hypothesis 0", "0-d"), hypotheses=(np.array(5),), item=True),
    Case(
        "references-entry-dict",
        TypeError,
        ("references of segment 0", "dict"),
        list_of_references=({"a": 1},),
        item=True,
    ),
    Case("references-empty", ValueError, ("segment 0 has no reference",), list_of_references=((),), item=True),
    Case(
        "reference-str", TypeError, ("reference 0 of segment 0", "str"), list_of_references=(("the cat",),), item=True
    ),
    Case("reference-set", TypeError, ("reference 0 of segment 0", "set"), list_of_references=(({"the"},),), item=True),
    Case("tokens-unhashable", TypeError, ("hashable",), hypotheses=([["the"]],), item=True),
    # Token ids inside lists as 0-d tensors hash by identity: refused, never scored 0.0.
    Case(
        "tokens-0d-tensors",
        TypeError,
        ("tokens are torch tensors", "google_bleu.ids"),
        hypotheses=(list(torch.tensor([5, 6])),),
        list_of_references=(((list(torch.tensor([5, 6]))),),),
        item=True,
    ),
    Case("hypothesis-2d-tensor", ValueError, ("hypothesis 0", "1-D"), hypotheses=(torch.tensor([[5, 6]]),), item=True),
]

#: Scoring settings (GLEU(...), the evaluate module's compute, scorer_from_options,
#: ComputeMetrics): every surface that takes them names the same argument.
SETTING_CASES = [
    Case("min_len-zero", ValueError, ("min_len", ">= 1"), options={"min_len": 0}),
    Case("max_len-too-high", ValueError, ("max_len", str(MAX_ORDER)), options={"max_len": MAX_ORDER + 1}),
    Case("max_len-below-min_len", ValueError, ("max_len", "min_len"), options={"min_len": 3, "max_len": 2}),
    Case("min_len-float", TypeError, ("min_len", "float"), options={"min_len": 2.5}),
    Case("max_len-str", TypeError, ("max_len", "str"), options={"max_len": "4"}),
    Case("min_len-bool", TypeError, ("min_len", "bool"), options={"min_len": True}),
    Case("tokenizer-unknown", ValueError, ("tokenizer", "'14b'"), options={"tokenizer": "14b"}),
    Case("tokenizer-not-callable", TypeError, ("tokenizer", "int"), options={"tokenizer": 42}),
    Case("lowercase-str", TypeError, ("lowercase", "str"), options={"lowercase": "yes"}),
    Case("lowercase-int", TypeError, ("lowercase", "int"), options={"lowercase": 1}),
]

#: A callable tokenizer that breaks the contract ``str -> list[str]``: refused when it runs.
TOKENIZER_OUTPUT_CASES = [
    Case(
        "tokenizer-returns-str",
        TypeError,
        ("tokenizer must return a list of str", "str"),
        options={"tokenizer": str.upper},
    ),
    Case(
        "tokenizer-returns-tuple",
        TypeError,
        ("tokenizer must return a list of str", "tuple"),
        options={"tokenizer": lambda text: tuple(text.split())},
    ),
    Case(
        "tokenizer-returns-ints",
        TypeError,
        ("tokenizer must return a list of str", "int token"),
        options={"tokenizer": lambda text: [len(text)]},
    ),
]

#: Resampling (bootstrap intervals, paired tests): counts and seeds.
RESAMPLING_CASES = [
    Case("n-zero", ValueError, ("{n}", "positive integer"), options={"n": 0}),
    Case("n-negative", ValueError, ("{n}", "positive integer"), options={"n": -3}),
    Case("n-huge", ValueError, ("{n}", f"at most {MAX_SAMPLES}", "10000000000"), options={"n": 10**10}),
    Case("n-str", TypeError, ("{n}", "str"), options={"n": "1000"}),
    Case("n-float", TypeError, ("{n}", "float"), options={"n": 1000.0}),
    Case("seed-negative", ValueError, ("seed", "non-negative"), options={"seed": -1}),
    Case("seed-float", TypeError, ("seed", "float"), options={"seed": 1.5}),
]
