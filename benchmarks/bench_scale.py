"""Throughput against the number of workers: ``--jobs`` (streamed files) and Ray Data.

Synthetic pairs: hypotheses of 5-40 words from a 5,000-word vocabulary, each reference
its hypothesis with about 30% of the words replaced. Each configuration runs in a fresh
subprocess; a sampler reads the resident memory of that process and every process under
it (workers, Ray's raylet and its workers) every 0.1 s and keeps each one's peak.

- ``jobs``: ``google_bleu.scale.parallel.file_stats`` on a hypothesis and a reference file
  (the ``--jobs`` path of the command line), ``jobs`` = 1, 2, ...
- ``ray``: the recipe of ``docs/scale.md`` on the pairs as Parquet files of 100,000 rows:
  its two ``DataContext`` settings, ``read_parquet(..., override_num_blocks=CPUs)`` ->
  ``map_batches(GleuColumns, batch_format="pyarrow", batch_size=None)`` ->
  ``GleuColumns.reduce`` (each block summed where it lies), on a local cluster of
  ``num_cpus`` = 1, 2, ... Ray's start is not timed.

Every configuration's corpus totals are checked equal (``==``) to the one-process totals.
Reported: pairs per second, parallel efficiency ``rate(k) / (k * rate(1))``, the peak
memory of the main process and of the largest worker. With ``--memory-pairs`` a
separate run scores a pair of files of that many lines with ``--jobs`` and records the
main process's peak memory (the streamed path's bound: 32 bytes a segment).

Usage: ``python benchmarks/bench_scale.py [--pairs 1000000] [--ray-pairs N] [--workers 1 2] [--memory-pairs 10000000]``
Writes ``benchmarks/results/scale.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere

from benchmarks.machine import cpu_model  # noqa: E402

RESULTS = REPO / "benchmarks" / "results" / "scale.json"
VOCAB = 5_000
NOISE = 0.3


def write_pairs(folder: Path, pairs: int, seed: int = 12345, parquet: bool = True) -> tuple[Path, Path, Path | None]:
    """Writes hyp.txt, ref.txt (and the folder pairs/, a Parquet file a block of 100,000 rows)
    in blocks, never holding the corpus."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(VOCAB)], dtype=object)
    hyp_path, ref_path, parquet_path = folder / "hyp.txt", folder / "ref.txt", folder / "pairs"
    if parquet:
        parquet_path.mkdir(exist_ok=True)
        import pyarrow as pa
        import pyarrow.parquet as pq
    with open(hyp_path, "w", encoding="utf-8") as hyp_file, open(ref_path, "w", encoding="utf-8") as ref_file:
        for start in range(0, pairs, 100_000):
            count = min(100_000, pairs - start)
            lengths = rng.integers(5, 41, count)
            tokens = rng.integers(0, VOCAB, int(lengths.sum()))
            replaced = np.where(rng.random(tokens.size) < NOISE, rng.integers(0, VOCAB, tokens.size), tokens)
            bounds = np.concatenate([[0], np.cumsum(lengths)])
            hyps = [" ".join(words[tokens[a:b]]) for a, b in zip(bounds[:-1], bounds[1:])]
            refs = [" ".join(words[replaced[a:b]]) for a, b in zip(bounds[:-1], bounds[1:])]
            hyp_file.write("\n".join(hyps) + "\n")
            ref_file.write("\n".join(refs) + "\n")
            if parquet:
                table = pa.table({"prediction": hyps, "references": [[ref] for ref in refs]})
                pq.write_table(table, parquet_path / f"part-{start // 100_000:04d}.parquet")
    return hyp_path, ref_path, parquet_path if parquet else None


JOBS_RUN = """
import json, sys, time
from google_bleu import GLEU
from google_bleu.scale.parallel import file_stats
hyp, ref, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
start = time.perf_counter()
stats = file_stats(hyp, [ref], GLEU(), jobs=jobs)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "segments": len(stats), "totals": stats.totals()}))
"""

RAY_RUN = """
import json, os, sys, time
import ray
from google_bleu.integrations.columns import GleuColumns
from tests.helpers import local_ray
parquet, cpus = sys.argv[1], int(sys.argv[2])
local_ray.start(num_cpus=cpus)
context = ray.data.DataContext.get_current()
context.enable_progress_bars = False
context.use_datasource_v2 = False  # the guide's settings: a read task a CPU,
context.op_resource_reservation_enabled = False  # every CPU from the start
columns = GleuColumns(predictions="prediction", references="references")
ray.data.range(4).map_batches(lambda b: b).materialize()  # workers up before the clock
start = time.perf_counter()
mapped = ray.data.read_parquet(parquet, override_num_blocks=cpus).map_batches(columns, batch_format="pyarrow", batch_size=None)
stats = columns.reduce(mapped)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "segments": None, "totals": stats.totals()}))
ray.shutdown()
"""


def sample_tree(pid: int, peaks: dict[int, tuple[str, int]], stop: threading.Event) -> None:
    import psutil

    root = psutil.Process(pid)
    while not stop.is_set():
        try:
            processes = [root, *root.children(recursive=True)]
        except psutil.Error:
            break
        for process in processes:
            try:
                rss = process.memory_info().rss
                name = " ".join(process.cmdline())[:200] or process.name()
            except psutil.Error:
                continue
            old = peaks.get(process.pid, (name, 0))
            peaks[process.pid] = (name, max(old[1], rss))
        stop.wait(0.1)


def run(code: str, *args: str) -> dict:
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    peaks: dict[int, tuple[str, int]] = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample_tree, args=(process.pid, peaks, stop), daemon=True)
    sampler.start()
    out, err = process.communicate()
    stop.set()
    sampler.join()
    if process.returncode != 0:
        raise RuntimeError(f"benchmark run failed:\n{err[-3000:]}")
    result = json.loads(out.strip().splitlines()[-1])
    main_peak = peaks.get(process.pid, ("", 0))[1]
    workers = [rss for pid, (name, rss) in peaks.items() if pid != process.pid and _is_worker(name)]
    result["main_peak_mb"] = round(main_peak / 2**20, 1)
    result["worker_peak_mb"] = round(max(workers) / 2**20, 1) if workers else None
    return result


_INFRASTRUCTURE = ("resource_tracker", "raylet", "gcs_server", "log_monitor", "dashboard", "monitor.py", "runtime_env")


def _is_worker(name: str) -> bool:
    # Every process under the run except the pool's and Ray's own services.
    return not any(word in name for word in _INFRASTRUCTURE)


def machine() -> dict:
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "platform": platform.platform()}


def versions() -> dict:
    import google_bleu

    out = {"python": platform.python_version(), "numpy": np.__version__, "google_bleu": google_bleu.__version__}
    try:
        import ray

        out["ray"] = ray.__version__
    except ImportError:
        out["ray"] = None
    return out


_SCALE_COLUMNS = [
    {"key": "workers", "label": "workers"},
    {"key": "pairs", "label": "pairs", "format": ","},
    {"key": "seconds", "label": "time", "format": ".1f", "unit": " s"},
    {"key": "pairs_per_second", "label": "pairs/s", "format": ",.0f"},
    {"key": "efficiency", "label": "efficiency", "format": ".2f"},
    {"key": "main_peak_mb", "label": "main peak", "format": ".1f", "unit": " MB"},
    {"key": "worker_peak_mb", "label": "worker peak", "format": ".1f", "unit": " MB"},
]


def schema_1(report: dict) -> dict:
    """The run in the shape ``benchmarks/report.py`` renders (its raw keys kept beside)."""
    tables = [
        {"caption": f"`--jobs`, {report.get('pairs', 0):,} pairs", "columns": _SCALE_COLUMNS, "rows": report.get("jobs", [])},
    ]
    if report.get("ray"):
        tables.append(
            {"caption": f"Ray Data, {report.get('ray_pairs', 0):,} pairs", "columns": _SCALE_COLUMNS, "rows": report["ray"]}
        )
    if report.get("memory"):
        memory_columns = [
            {"key": "pairs", "label": "pairs", "format": ","},
            {"key": "jobs", "label": "workers"},
            {"key": "text_mb", "label": "text", "format": ",.1f", "unit": " MB"},
            {"key": "rows_mb", "label": "statistics", "format": ",.1f", "unit": " MB"},
            {"key": "seconds", "label": "time", "format": ".1f", "unit": " s"},
            {"key": "main_peak_mb", "label": "main peak", "format": ".1f", "unit": " MB"},
            {"key": "worker_peak_mb", "label": "worker peak", "format": ".1f", "unit": " MB"},
        ]
        tables.append({"caption": "Streaming a pair of large files", "columns": memory_columns, "rows": [report["memory"]]})
    return {
        **report,
        "schema": 1,
        "title": "Scale-out: worker processes and Ray Data",
        "order": 45,
        "date": report.get("date") or time.strftime("%Y-%m-%d"),
        "command": "make bench-scale",
        "machine": {**report["machine"], **report.get("versions", {})},
        "notes": [report["note"]] if report.get("note") else [],
        "tables": tables,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--memory-pairs", type=int, default=10_000_000, help="0: skip the memory run")
    parser.add_argument("--ray-pairs", type=int, default=None, help="pairs for Ray Data (default: --pairs)")
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    report: dict = {
        "machine": machine(),
        "versions": versions(),
        "pairs": args.pairs,
        "ray_pairs": args.ray_pairs or args.pairs,
        "note": (
            "With few cores, parallel efficiency is indicative only: Ray's own processes (GCS, raylet, "
            "the driver) share the same cores as its workers, and Ray rows include Ray Data's per-run "
            "overhead (reading, planning, aggregating). The memory run streams a pair of files of "
            "`pairs` lines each; the statistics are 40 bytes a segment (the four totals and the "
            "chosen reference's index)."
        ),
        "jobs": [],
        "ray": [],
    }
    with tempfile.TemporaryDirectory() as folder:
        hyp, ref, _ = write_pairs(Path(folder), args.pairs, parquet=False)
        ray_pairs = args.ray_pairs or args.pairs
        _, _, parquet = write_pairs(Path(folder) / "ray", ray_pairs, parquet=True) if not args.no_ray else (0, 0, None)
        totals: dict[int, object] = {}
        for kind in ["jobs"] + ([] if args.no_ray else ["ray"]):
            base = None
            for workers in args.workers:
                if kind == "jobs":
                    result = run(JOBS_RUN, str(hyp), str(ref), str(workers))
                else:
                    result = run(RAY_RUN, str(parquet), str(workers))
                pairs = args.pairs if kind == "jobs" else ray_pairs
                expected = totals.setdefault(pairs, result["totals"])
                assert result["totals"] == expected, (kind, workers, result["totals"], expected)
                rate = pairs / result["seconds"]
                base = base or rate / workers
                row = {
                    "workers": workers,
                    "pairs": pairs,
                    "seconds": round(result["seconds"], 2),
                    "pairs_per_second": round(rate),
                    "efficiency": round(rate / (workers * base), 3),
                    "main_peak_mb": result["main_peak_mb"],
                    "worker_peak_mb": result["worker_peak_mb"],
                }
                report[kind].append(row)
                print(kind, row, flush=True)
        report["totals"] = {str(pairs): value for pairs, value in totals.items()}
    if args.memory_pairs:
        with tempfile.TemporaryDirectory() as folder:
            hyp, ref, _ = write_pairs(Path(folder), args.memory_pairs, seed=7, parquet=False)
            text_mb = (hyp.stat().st_size + ref.stat().st_size) / 2**20
            workers = max(args.workers)
            result = run(JOBS_RUN, str(hyp), str(ref), str(workers))
            assert result["segments"] == args.memory_pairs
            report["memory"] = {
                "pairs": args.memory_pairs,
                "jobs": workers,
                "text_mb": round(text_mb, 1),
                "rows_mb": round(40 * args.memory_pairs / 2**20, 1),
                "seconds": round(result["seconds"], 1),
                "pairs_per_second": round(args.memory_pairs / result["seconds"]),
                "main_peak_mb": result["main_peak_mb"],
                "worker_peak_mb": result["worker_peak_mb"],
            }
            print("memory", report["memory"], flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(schema_1(report), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(REPO)}")


if __name__ == "__main__":
    main()
