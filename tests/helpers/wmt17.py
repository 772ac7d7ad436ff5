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
