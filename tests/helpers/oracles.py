"""Reference implementations the tests compare against: nltk and HF's google_bleu pipeline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from nltk.translate import gleu_score
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "google_bleu" / "samples"
SHARED_DATA = REPO.parent / "shared" / "data"

_13A = Tokenizer13a()

# The inputs of the metric card's examples (HF google_bleu's card: 0.44 with one reference,
# 0.61 / 0.53 / 0.4 with several).
CARD_PREDICTIONS = [
    "It is a guide to action which ensures that the rubber duck always disobeys the commands of the cat",
    "he read the book because he was interested in world history",
]
CARD_ONE_REF = [
    ["It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat"],
    ["he was interested in world history because he read the book"],
]
CARD_REFERENCES = [
    [
        "It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat",
        "It is a guide to action that ensures that the rubber duck will never heed the cat commands",
        "It is the practical guide for the rubber duck army never to heed the directions of the cat",
    ],
    ["he was interested in world history because he read the book"],
]


def tokenize_13a(line: str) -> list[str]:
    """sacrebleu's 13a, split: token-identical to the copy vendored in HF's google_bleu."""
    return _13A(line).split()


def hf_google_bleu(predictions, references, tokenizer=tokenize_13a, min_len=1, max_len=4) -> float:
    """HF evaluate-metric/google_bleu's ``_compute``, line for line (13a + nltk corpus_gleu)."""
    if isinstance(references[0], str):
        references = [[ref] for ref in references]
    references = [[tokenizer(r) for r in ref] for ref in references]
    predictions = [tokenizer(p) for p in predictions]
    return gleu_score.corpus_gleu(
        list_of_references=references, hypotheses=predictions, min_len=min_len, max_len=max_len
    )


def nltk_corpus(list_of_references, hypotheses, min_len=1, max_len=4) -> float:
    return gleu_score.corpus_gleu(list_of_references, hypotheses, min_len=min_len, max_len=max_len)


def nltk_sentence(references, hypothesis, min_len=1, max_len=4) -> float:
    return gleu_score.sentence_gleu(references, hypothesis, min_len=min_len, max_len=max_len)


def read_lines(path: Path) -> list[str]:
    """One segment a line, as sacrebleu reads files (newline stripped, nothing else)."""
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def span_tokens(spans) -> list[list[str]]:
    """The tokens of :class:`google_bleu.fast13a.TokenSpans`, line by line, as text."""
    codes = spans.codes.tobytes()
    tokens = [codes[start : start + n].decode("utf-8", "surrogatepass") for start, n in zip(spans.starts, spans.lengths)]
    ends = np.cumsum(spans.counts).tolist()
    return [tokens[end - n : end] for end, n in zip(ends, spans.counts.tolist())]


def decimal_figure(numerator: int, denominator: int, width: int, scale: int) -> str:
    """The oracle of a printed figure: decimal arithmetic at 60 digits, rounded half to even."""
    import decimal

    with decimal.localcontext(decimal.Context(prec=60)):
        value = decimal.Decimal(numerator * scale) / decimal.Decimal(denominator)
        return f"{value.quantize(decimal.Decimal(1).scaleb(-width), rounding=decimal.ROUND_HALF_EVEN):f}"
