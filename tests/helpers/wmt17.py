"""The bundled WMT17 en-de sample (``google_bleu/samples/wmt17_en_de``) as the framework
environments' tests read it: four systems and the human reference, segment-aligned.

Standard library only at import, so that every framework environment (each with its own pins) can
import it; the helpers that write or score the sample import the package (and pyarrow) when called.
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


def sample_rows() -> list[dict]:
    """Every system of the sample (its files in sorted order) against the reference, paired by
    the command's line rules: ``{"id", "prediction", "references"}`` a segment."""
    from google_bleu.scale.lines import lines_from_bytes

    reference = lines_from_bytes((SAMPLE / "ref0.txt").read_bytes(), "ref0.txt")
    rows = []
    for system in sorted(SAMPLE.glob("sys_*.txt")):
        for line, ref in zip(lines_from_bytes(system.read_bytes(), system.name), reference, strict=True):
            rows.append({"id": len(rows), "prediction": line, "references": [ref]})
    return rows


def command_totals() -> tuple[int, ...]:
    """The four statistics of ``google-bleu --jobs 1`` on every system of the sample, summed."""
    import json
    import subprocess
    import sys

    from google_bleu.stats import COLUMNS

    command = [sys.executable, "-m", "google_bleu", str(SAMPLE / "ref0.txt"), "-i", *map(str, sorted(SAMPLE.glob("sys_*.txt")))]
    done = subprocess.run([*command, "-f", "json", "-q", "--jobs", "1"], capture_output=True, cwd=SAMPLE.parents[2], check=True)
    return tuple(map(sum, zip(*[[system[name] for name in COLUMNS] for system in json.loads(done.stdout)])))


def write_parquet_parts(rows: list[dict], folder: Path, parts: int) -> None:
    """``rows`` as ``parts`` Parquet files of consecutive rows in ``folder`` (pyarrow)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    for part in range(parts):
        begin, end = part * len(rows) // parts, (part + 1) * len(rows) // parts
        pq.write_table(table.slice(begin, end - begin), folder / f"part-{part}.parquet")
