"""The page's examples: the metric card's, and slices of the bundled real WMT samples.

A label gives, in brackets, the GLEU the metric card gives for it (0-100), so a click shows
that the page agrees with the card.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import google_bleu
from google_bleu.scale.lines import split_lines

from .inputs import JOIN, TOKENIZERS

SAMPLES = Path(google_bleu.__file__).resolve().parent / "samples"

_CARD_PREDICTIONS = (
    "It is a guide to action which ensures that the rubber duck always disobeys the commands of the cat\n"
    "he read the book because he was interested in world history"
)
_CARD_REFERENCES = (
    "It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat"
    + JOIN
    + "It is a guide to action that ensures that the rubber duck will never heed the cat commands"
    + JOIN
    + "It is the practical guide for the rubber duck army never to heed the directions of the cat\n"
    "he was interested in world history because he read the book"
)


def _sample(folder: str, system: str, start: int, stop: int) -> tuple[str, str]:
    def lines(name: str) -> list[str]:
        return split_lines((SAMPLES / folder / name).read_text(encoding="utf-8"))[start:stop]

    return "\n".join(lines(f"sys_{system}.txt")), "\n".join(lines("ref0.txt"))


def examples() -> tuple[list[list[Any]], list[str]]:
    """Rows of the page's inputs and their labels (scores on the 0-100 scale)."""
    rows = [
        [_CARD_PREDICTIONS, _CARD_REFERENCES, "13a", 1, 4, False],
        [_CARD_PREDICTIONS, _CARD_REFERENCES, "13a", 2, 4, False],
        [_CARD_PREDICTIONS, _CARD_REFERENCES, "13a", 2, 6, False],
        ["the cat sat on the mat", "the cat ate the mat", "13a", 1, 4, False],
    ]
    labels = [
        "Metric card: 3 references (GLEU 61)",
        "Metric card: min_len=2 (GLEU 53)",
        "Metric card: min_len=2, max_len=6 (GLEU 40)",
        "The cat sat on the mat",
    ]
    if (SAMPLES / "wmt17_en_de").is_dir():
        rows.append([*_sample("wmt17_en_de", "uedin-nmt.4722", 0, 40), "13a", 1, 4, False])
        labels.append("WMT17 en→de, uedin-nmt, 40 segments")
    if (SAMPLES / "wmt22_en_ja").is_dir() and "char" in TOKENIZERS:
        rows.append([*_sample("wmt22_en_ja", "Online-W", 120, 140), "char", 1, 4, False])
        labels.append("WMT22 en→ja, Online-W, characters (one empty output)")
    return rows, labels
