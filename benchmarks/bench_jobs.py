"""``google-bleu --jobs``: the command line as a user runs it, with 1 and more workers.

Real WMT17 English-German system outputs (``../shared/data/wmt17_en_de``: 16 systems of
3,004 segments and their human reference) scored by ``python -m google_bleu REF -i SYS ...
-f json`` in a fresh process, as a shell would run it, for:

- 1 system, 16 systems (every WMT17 system), 100 systems (the 16 repeated under new names);
- one large file: the 16 systems one after the other, repeated to 400,000 lines, against the
  reference repeated alike.

Each configuration runs ``--repeats`` times, alternating the worker counts, and keeps the
fastest (the machine is shared; the fastest run is the least disturbed). The output of
every worker count must be byte-identical to ``--jobs 1``'s. Reported: seconds per run,
and the speed-up of each worker count over ``--jobs 1``.

Usage: ``python benchmarks/bench_jobs.py [--workers 1 2] [--repeats 3] [--large-lines 400000]``
Writes ``benchmarks/results/jobs.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere

from benchmarks.machine import cpu_model, load_average  # noqa: E402

RESULTS = REPO / "benchmarks" / "results" / "jobs.json"
WMT17 = REPO.parent / "shared" / "data" / "wmt17_en_de"


def prepare(folder: Path, large_lines: int) -> dict[str, tuple[Path, list[Path]]]:
    """The inputs of each configuration: its reference file and its system files."""
    reference = WMT17 / "ref0.txt"
    systems = sorted(WMT17.glob("sys_*.txt"))
    many = folder / "many"
    many.mkdir()
    hundred = []
    for index in range(100):
        source = systems[index % len(systems)]
        copy = many / f"sys_{index:03d}_{source.stem[4:]}.txt"
        copy.write_bytes(source.read_bytes())
        hundred.append(copy)
    ref_lines = reference.read_text("utf-8").splitlines()
    hyp_lines = [line for system in systems for line in system.read_text("utf-8").splitlines()]
    big_hyp, big_ref = folder / "large_hyp.txt", folder / "large_ref.txt"
    with open(big_hyp, "w", encoding="utf-8") as hyp, open(big_ref, "w", encoding="utf-8") as ref:
        for index in range(large_lines):
            hyp.write(hyp_lines[index % len(hyp_lines)].lstrip("\ufeff") + "\n")
            ref.write(ref_lines[index % len(ref_lines)] + "\n")
    return {
        "1 system": (reference, systems[:1]),
        "16 systems": (reference, systems),
        "100 systems": (reference, hundred),
        f"1 file of {large_lines:,} lines": (big_ref, [big_hyp]),
    }


def run_cli(reference: Path, systems: list[Path], jobs: int) -> tuple[float, bytes]:
    command = [sys.executable, "-m", "google_bleu", str(reference), "-i", *map(str, systems), "-f", "json"]
    command += ["--jobs", str(jobs)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, cwd=REPO, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:6])} ... failed: {done.stderr.decode()[-2000:]}")
    return seconds, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large-lines", type=int, default=400_000)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if not WMT17.is_dir():
        raise SystemExit(f"the WMT17 data is not at {WMT17} (../shared/data beside the clone)")
    if args.workers[0] != 1:
        args.workers = [1, *[w for w in args.workers if w != 1]]
    load_before = load_average()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_jobs_") as tmp:
        configurations = prepare(Path(tmp), args.large_lines)
        for name, (reference, systems) in configurations.items():
            times: dict[int, list[float]] = {jobs: [] for jobs in args.workers}
            outputs: dict[int, bytes] = {}
            for _ in range(args.repeats):
                for jobs in args.workers:
                    seconds, output = run_cli(reference, systems, jobs)
                    times[jobs].append(seconds)
                    outputs.setdefault(jobs, output)
                    if output != outputs[jobs]:
                        raise SystemExit(f"{name}: --jobs {jobs} printed different output on a repeat")
            lines = sum(1 for _ in open(systems[0], "rb")) * len(systems)
            base = min(times[1])
            for jobs in args.workers:
                best = min(times[jobs])
                rows.append({
                    "input": name,
                    "systems": len(systems),
                    "lines": lines,
                    "jobs": jobs,
                    "seconds": round(best, 3),
                    "median_s": round(float(np.median(times[jobs])), 3),
                    "speedup": round(base / best, 2),
                    "identical": outputs[jobs] == outputs[1],
                })
                print(f"{name:>24} --jobs {jobs}: {best:.2f} s (x{base / best:.2f})", flush=True)
    import google_bleu

    machine = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "load average before": load_before,
        "load average after": load_average(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "google_bleu": google_bleu.__version__,
    }
    result = {
        "schema": 1,
        "title": "The command line with --jobs",
        "order": 44,
        "date": datetime.date.today().isoformat(),
        "command": "make bench-jobs",
        "machine": machine,
        "notes": [
            f"`python -m google_bleu REF -i SYS ... -f json --jobs N` in a fresh process on the real WMT17 "
            f"en-de systems (3,004 segments each); fastest of {args.repeats} runs, worker counts alternating. "
            "Speed-up is `--jobs 1`'s time over this row's; every output is byte-identical to `--jobs 1`'s. "
            "A run with less than 8 MiB of system text a worker keeps its work in the main process "
            "(`google_bleu.cli.main.workers_for`), so small inputs never pay for starting a pool.",
        ],
        "tables": [
            {
                "columns": [
                    {"key": "input", "label": "input"},
                    {"key": "lines", "label": "segments", "format": ","},
                    {"key": "jobs", "label": "--jobs"},
                    {"key": "seconds", "label": "time", "format": ".2f", "unit": " s"},
                    {"key": "median_s", "label": "median", "format": ".2f", "unit": " s"},
                    {"key": "speedup", "label": "speed-up", "format": ".2f", "unit": "x"},
                    {"key": "identical", "label": "same output"},
                ],
                "rows": rows,
            }
        ],
    }
    args.output.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
