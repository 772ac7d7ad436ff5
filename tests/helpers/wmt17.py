"""The bundled WMT17 en-de sample (``google_bleu/samples/wmt17_en_de``) as the framework
environments' tests read it: four systems and the human reference, segment-aligned.

Standard library only, so that every framework environment (each with its own pins) can import it.
"""

from __future__ import annotations

from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "google_bleu" / "samples" / "wmt17_en_de"
SYSTEMS = ("online-A.0", "online-B.0", "PROMT-Rule-based.4735", "uedin-nmt.4722")


def read_lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines()


def wmt17_sample() -> dict:
    """``{"reference": lines, "systems": {system: lines}}``, checked to be the whole sample."""
    systems = {system: read_lines(SAMPLE / f"sys_{system}.txt") for system in SYSTEMS}
    reference = read_lines(SAMPLE / "ref0.txt")
    assert sorted(path.stem[len("sys_") :] for path in SAMPLE.glob("sys_*.txt")) == sorted(SYSTEMS)
    assert all(len(lines) == len(reference) == 300 for lines in systems.values())
    return {"reference": reference, "systems": systems}


def ragged_corpus(sample: dict) -> tuple[list[str], list[list[str]]]:
    """Every system's lines of :func:`wmt17_sample` against ragged references (the human one and
    0-2 other systems' lines, by row), every 17th prediction empty."""
    systems = list(sample["systems"].values())
    predictions, references = [], []
    for s, system in enumerate(systems):
        for i, line in enumerate(system):
            predictions.append("" if i % 17 == 0 else line)
            others = [systems[(s + k) % 4][i] for k in range(1, 1 + i % 3)]
            references.append([sample["reference"][i], *others])
    return predictions, references
