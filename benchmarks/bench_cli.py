"""One command on a small file: ``google-bleu REF -i HYP`` against sacrebleu's own CLI.

A shell loop over many small files pays each command's start-up (the interpreter, the
imports) once per file, so on a two-line file that start-up is nearly all of the cost. Both
commands run from this virtual environment on the same two real WMT17 English-German lines
(the bundled sample), alternating, ``--runs`` times each; the figures are medians of wall
time and of peak memory (the child's maximum resident set, ``getrusage``). sacrebleu scores
BLEU (``-m bleu``), its default metric, with its default JSON output, as ours does GLEU.

Usage: ``python benchmarks/bench_cli.py [--runs 21]``. Writes ``benchmarks/results/cli.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere

from benchmarks.machine import cpu_model, load_average  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
SAMPLE = REPO / "google_bleu" / "samples" / "wmt17_en_de"
BIN = Path(sys.executable).parent


def _lines(path: Path, n: int) -> str:
    return "".join(path.read_text("utf-8").splitlines(keepends=True)[:n])


def _timed(command: list[str]) -> tuple[float, float]:
    """Seconds and peak resident MiB of one run (the command must succeed)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, for Popen's own bookkeeping
    if process.returncode:
        raise RuntimeError(f"{' '.join(command)} exited {process.returncode}")
    return seconds, usage.ru_maxrss / 1024  # Linux reports KiB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args(argv)
    import sacrebleu

    from google_bleu.version import __version__

    load = load_average()
    with tempfile.TemporaryDirectory() as folder:
        ref, hyp = Path(folder, "ref.txt"), Path(folder, "hyp.txt")
        ref.write_text(_lines(SAMPLE / "ref0.txt", 2), "utf-8")
        hyp.write_text(_lines(SAMPLE / "sys_uedin-nmt.4722.txt", 2), "utf-8")
        commands = {
            "ours": [str(BIN / "google-bleu"), str(ref), "-i", str(hyp)],
            "sacrebleu": [str(BIN / "sacrebleu"), str(ref), "-i", str(hyp), "-m", "bleu"],
        }
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for command in commands.values():  # one untimed run each: the files in the page cache
            _timed(command)
        for _ in range(args.runs):
            for name, command in commands.items():
                runs[name].append(_timed(command))
    rows = []
    for name in commands:
        rows.append(
            {
                "command": {"ours": "google-bleu REF -i HYP", "sacrebleu": "sacrebleu REF -i HYP -m bleu"}[name],
                "ms": statistics.median(seconds for seconds, _ in runs[name]) * 1000,
                "peak_mib": statistics.median(peak for _, peak in runs[name]),
            }
        )
    for row in rows:
        row["vs_sacrebleu"] = rows[1]["ms"] / row["ms"]
    result = {
        "schema": 1,
        "title": "One command on a two-line file",
        "order": 13,
        "date": datetime.date.today().isoformat(),
        "command": "make bench-cli",
        "machine": {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "sacrebleu": sacrebleu.__version__,
            "google-bleu": __version__,
            "load average": load,
            "data": "google_bleu/samples/wmt17_en_de (2 lines)",
        },
        "notes": [
            f"Medians of {args.runs} runs of each command, alternating, on the same two lines: wall "
            "time of the whole process (start-up, imports, reading, scoring, JSON output) and its "
            "peak resident memory. A short input never imports numpy, tabulate or tqdm."
        ],
        "tables": [
            {
                "caption": "Wall time and peak memory of one command",
                "columns": [
                    {"key": "command", "label": "command"},
                    {"key": "ms", "label": "time", "format": ".1f", "unit": " ms"},
                    {"key": "peak_mib", "label": "peak memory", "format": ".1f", "unit": " MiB"},
                    {"key": "vs_sacrebleu", "label": "x sacrebleu", "format": ".2f", "unit": "x"},
                ],
                "rows": rows,
            }
        ],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cli.json").write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    for row in rows:
        print(f"{row['command']:32} {row['ms']:7.1f} ms {row['peak_mib']:6.1f} MiB {row['vs_sacrebleu']:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
