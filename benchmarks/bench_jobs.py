"""``google-bleu --jobs``: the command line as a user runs it, with 1 and more workers.

Real WMT17 English-German system outputs (``../shared/data/wmt17_en_de``: 16 systems of
3,004 segments and their human reference) scored by the command line with ``-f json`` in a
fresh process, as a shell would run it, for:

- 1 system, 16 systems (every WMT17 system), 100 systems (the 16 repeated under new names);
- one large file: the 16 systems one after the other, repeated to ``--large-lines`` lines,
  against the reference repeated alike.

Each configuration runs ``--repeats`` times, alternating the worker counts, and keeps the
fastest (the machine may be shared; the fastest run is the least disturbed). The output of
every worker count must be byte-identical to ``--jobs 1``'s. Reported per row: seconds, the
speed-up over ``--jobs 1``, and from ``getrusage`` in the command's own process (the run of
least CPU): the CPU time of the command (``RUSAGE_SELF``) and of its workers
(``RUSAGE_CHILDREN``), the parent's share of the total, the total against ``--jobs 1``'s,
and the command's peak resident memory. CPU times do not depend on the load of the machine
the way wall times do, so the CPU figures can be measured on a busy machine.

Usage::

    python benchmarks/bench_jobs.py [--workers 1 2 4 8 16] [--repeats 3] [--large-lines 400000]
        [--out benchmarks/results/jobs.json]

For a 2-core figure on a larger machine: ``taskset -c 0,1 python benchmarks/bench_jobs.py
--workers 1 2 --out ...``. Writes ``benchmarks/results/jobs.json`` by default.
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

#: The command line in a fresh process, as ``python -m google_bleu`` runs it, that then
#: reports its own CPU time and its workers' (they are its children, reaped when it ends),
#: and its peak memory: ``VmHWM`` where Linux gives it, as ``ru_maxrss`` keeps the peak of
#: the process image before ``exec`` (this benchmark's own, in a child forked from it).
COMMAND = """
import json, os, resource, sys
from google_bleu.cli.main import main
try:
    from google_bleu.scale.pool import one_thread_by_default
except ImportError:  # an older version (--code), whose entry point set no thread count
    one_thread_by_default = lambda: None
one_thread_by_default()  # as the command's entry point (_google_bleu_cli.py) does
status = main(sys.argv[1:])
own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stdout.flush()
print("RUSAGE " + json.dumps({
    "self": own.ru_utime + own.ru_stime, "children": workers.ru_utime + workers.ru_stime,
    "peak_mb": next((int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")), own.ru_maxrss) / 1024
    if os.path.exists("/proc/self/status") else own.ru_maxrss / 1024,
}), file=sys.stderr)
sys.exit(status)
"""


def prepare(folder: Path, large_lines: int, data: Path = WMT17) -> dict[str, tuple[Path, list[Path]]]:
    """The inputs of each configuration: its reference file and its system files."""
    reference = data / "ref0.txt"
    systems = sorted(data.glob("sys_*.txt"))
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


def run_cli(reference: Path, systems: list[Path], jobs: int, code: Path = REPO) -> tuple[float, bytes, dict]:
    command = [sys.executable, "-c", COMMAND, str(reference), "-i", *map(str, systems), "-f", "json", "-q"]
    command += ["--jobs", str(jobs)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, cwd=code, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"--jobs {jobs} on {len(systems)} files failed: {done.stderr.decode()[-2000:]}")
    usage = json.loads(done.stderr.decode().rsplit("RUSAGE ", 1)[1])
    return seconds, done.stdout, usage


#: The Ray Data recipe of docs/scale.md in a fresh process, as a user's script runs it, on a
#: local cluster of every CPU: Parquet in, ``GleuColumns`` on a pool of actors (one CPU left
#: to the read tasks, as the docs advise), Ray's own sum of the four columns out.
RAY_SCRIPT = """
import json, sys, time
start = time.perf_counter()
import ray
from google_bleu import GLEU
from google_bleu.integrations.columns import GleuColumns
from tests.helpers import local_ray
parquet, cpus = sys.argv[1], int(sys.argv[2])
local_ray.start(num_cpus=cpus)
ray.data.DataContext.get_current().enable_progress_bars = False
began = time.perf_counter()
settings = {"predictions": "prediction", "references": "references", "scorer": GLEU("13a")}
scored = ray.data.read_parquet(parquet).map_batches(
    GleuColumns, fn_constructor_kwargs=settings, compute=ray.data.ActorPoolStrategy(size=max(1, cpus - 1)),
    batch_format="numpy", batch_size=10_000,
)
totals = GleuColumns(**settings).reduce(scored).totals()
done = time.perf_counter()
ray.shutdown()
print(json.dumps({"pipeline_s": done - began, "script_s": done - start, "totals": [int(t) for t in totals]}))
"""


def run_ray(reference: Path, system: Path, folder: Path, cpus: int) -> dict:
    """The Ray Data recipe on one system file and its reference, with ``cpus`` CPUs: the
    files written to Parquet first (not timed), then the script timed as a whole process."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from google_bleu.scale.lines import lines_from_bytes

    parquet = folder / "pairs.parquet"
    if not parquet.exists():
        predictions = lines_from_bytes(system.read_bytes(), str(system))
        references = [[line] for line in lines_from_bytes(reference.read_bytes(), str(reference))]
        pq.write_table(pa.table({"prediction": predictions, "references": references}), parquet)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RAY_SCRIPT, str(parquet), str(cpus)], capture_output=True, cwd=REPO, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the Ray Data recipe failed: {done.stderr.decode()[-2000:]}")
    return {**json.loads(done.stdout.decode().strip().splitlines()[-1]), "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large-lines", type=int, default=400_000)
    parser.add_argument("--out", "--output", dest="out", type=Path, default=RESULTS, help="the results file to write")
    parser.add_argument("--data", type=Path, default=WMT17, help="the folder of ref0.txt and sys_*.txt")
    parser.add_argument("--note", action="append", default=[], help="a sentence for the notes (the machine's state)")
    parser.add_argument("--code", type=Path, default=REPO, help="a checkout whose google_bleu runs (another version)")
    parser.add_argument("--ray", action="store_true", help="also the Ray Data recipe on the large file, every CPU")
    args = parser.parse_args(argv)
    args.data, args.code = args.data.resolve(), args.code.resolve()  # the command runs in args.code
    if not args.data.is_dir():
        raise SystemExit(f"the WMT17 data is not at {args.data} (../shared/data beside the clone, or --data)")
    args.workers = [1, *[w for w in dict.fromkeys(args.workers) if w != 1]]
    load_before = load_average()
    rows, ray_rows = [], []
    with tempfile.TemporaryDirectory(prefix="bench_jobs_") as tmp:
        configurations = prepare(Path(tmp), args.large_lines, args.data)
        for name, (reference, systems) in configurations.items():
            times: dict[int, list[float]] = {jobs: [] for jobs in args.workers}
            usages: dict[int, list[dict]] = {jobs: [] for jobs in args.workers}
            outputs: dict[int, bytes] = {}
            for _ in range(args.repeats):
                for jobs in args.workers:
                    seconds, output, usage = run_cli(reference, systems, jobs, args.code)
                    times[jobs].append(seconds)
                    usages[jobs].append(usage)
                    outputs.setdefault(jobs, output)
                    if output != outputs[jobs]:
                        raise SystemExit(f"{name}: --jobs {jobs} printed different output on a repeat")
            lines = sum(1 for _ in open(systems[0], "rb")) * len(systems)
            base = min(times[1])
            base_cpu = min(usage["self"] + usage["children"] for usage in usages[1])
            for jobs in args.workers:
                best = min(times[jobs])
                usage = min(usages[jobs], key=lambda usage: usage["self"] + usage["children"])
                cpu = usage["self"] + usage["children"]
                rows.append({
                    "input": name,
                    "systems": len(systems),
                    "lines": lines,
                    "jobs": jobs,
                    "seconds": round(best, 3),
                    "median_s": round(float(np.median(times[jobs])), 3),
                    "speedup": round(base / best, 2),
                    "cpu_s": round(cpu, 3),
                    "parent_cpu_s": round(usage["self"], 3),
                    "parent_share": round(usage["self"] / cpu, 4),
                    "cpu_ratio": round(cpu / base_cpu, 3),
                    "parent_peak_mb": round(usage["peak_mb"], 1),
                    "identical": outputs[jobs] == outputs[1],
                })
                print(
                    f"{name:>24} --jobs {jobs:>2}: {best:6.2f} s (x{base / best:5.2f}), CPU {cpu:6.2f} s "
                    f"(x{cpu / base_cpu:4.2f}, parent {usage['self'] / cpu:6.1%}), parent peak {usage['peak_mb']:.0f} MB",
                    flush=True,
                )
            if args.ray and len(systems) == 1 and name.startswith("1 file"):
                cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
                totals = [json.loads(outputs[1])[key] for key in ("n_match", "n_hyp", "n_ref", "n_all")]
                best_jobs = min(args.workers, key=lambda jobs: min(times[jobs]))
                runs = [run_ray(reference, systems[0], Path(tmp), cpus) for _ in range(args.repeats)]
                fastest = min(runs, key=lambda run: run["seconds"])
                ray_rows.append({
                    "input": name,
                    "lines": lines,
                    "cpus": cpus,
                    "actors": max(1, cpus - 1),
                    "seconds": round(fastest["seconds"], 3),
                    "pipeline_s": round(fastest["pipeline_s"], 3),
                    "vs_jobs_1": round(base / fastest["seconds"], 2),
                    "best_jobs": best_jobs,
                    "best_jobs_s": round(min(times[best_jobs]), 3),
                    "identical": all(run["totals"] == totals for run in runs),
                })
                print(f"{name:>24} Ray Data, {cpus} CPUs: {fastest['seconds']:6.2f} s (pipeline {fastest['pipeline_s']:.2f} s)", flush=True)
    import google_bleu

    machine = {
        "cpu": cpu_model(),
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
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
            "CPU is the command's own (`getrusage` `RUSAGE_SELF`, the parent) plus its workers' "
            "(`RUSAGE_CHILDREN`), from the run of least CPU; the parent's share is its part of that total, "
            "and the CPU ratio is the total against `--jobs 1`'s. A run starts a worker only where its share "
            "of the work outlasts its start-up (`google_bleu.scale.pool.workers_for`), so small inputs never "
            "pay for a pool.",
            *args.note,
        ],
        "tables": [
            {
                "columns": [
                    {"key": "input", "label": "input"},
                    {"key": "lines", "label": "segments", "format": ","},
                    {"key": "jobs", "label": "--jobs"},
                    {"key": "seconds", "label": "time", "format": ".2f", "unit": " s"},
                    {"key": "speedup", "label": "speed-up", "format": ".2f", "unit": "x"},
                    {"key": "cpu_s", "label": "CPU", "format": ".2f", "unit": " s"},
                    {"key": "cpu_ratio", "label": "CPU ratio", "format": ".2f", "unit": "x"},
                    {"key": "parent_share", "label": "parent", "format": ".1%"},
                    {"key": "parent_peak_mb", "label": "parent peak", "format": ".0f", "unit": " MB"},
                    {"key": "identical", "label": "same output"},
                ],
                "rows": rows,
            }
        ],
    }
    if ray_rows:
        import ray

        machine["ray"] = ray.__version__
        result["notes"].append(
            "Ray Data: the recipe of docs/scale.md (`read_parquet`, `map_batches(GleuColumns, "
            "compute=ActorPoolStrategy(size=CPUs - 1))`, `GleuColumns.reduce`) on the same large file written to "
            "Parquet, in a fresh process on a local cluster of every CPU; `time` is the whole script (Ray's start "
            "included, as a user runs it), `pipeline` from the cluster being up to the totals. Its four totals "
            "equal `--jobs 1`'s output."
        )
        result["tables"][0]["caption"] = "`--jobs`"
        result["tables"].append({
            "caption": "Ray Data on the same input, every CPU",
            "columns": [
                {"key": "input", "label": "input"},
                {"key": "lines", "label": "segments", "format": ","},
                {"key": "cpus", "label": "CPUs"},
                {"key": "actors", "label": "actors"},
                {"key": "seconds", "label": "time", "format": ".2f", "unit": " s"},
                {"key": "pipeline_s", "label": "pipeline", "format": ".2f", "unit": " s"},
                {"key": "vs_jobs_1", "label": "speed-up over --jobs 1", "format": ".2f", "unit": "x"},
                {"key": "best_jobs_s", "label": "fastest --jobs", "format": ".2f", "unit": " s"},
                {"key": "identical", "label": "same totals"},
            ],
            "rows": ray_rows,
        })
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
