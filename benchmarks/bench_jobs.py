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
        [--ray] [--daft [PYTHON]] [--spark [PYTHON]] [--out benchmarks/results/jobs.json]

``--ray``, ``--daft`` and ``--spark`` add the recipes of docs/scale.md on the large file, each
against ``--jobs 1`` a CPU (the notes of the results say how).

For a 2-core figure on a larger machine: ``taskset -c 0,1 python benchmarks/bench_jobs.py
--workers 1 2 --out ...``. Writes ``benchmarks/results/jobs.json`` by default.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
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
one_thread_by_default()  # as the command's entry point (google_bleu/__main__.py) does
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


#: ``GleuColumns``' place in the engines' pipelines with the scoring left out: zeros of the same
#: columns, the text not read. The pipeline with it is what the engine costs alone. Defined in
#: each script (``__main__``), so that Ray and Daft send it to their workers by value.
ZEROS = """
import numpy as np
import pyarrow as pa
from google_bleu.integrations.columns import SCORE_COLUMN, GleuColumns
from google_bleu.stats import COLUMNS

class Zeros(GleuColumns):
    def arrow(self, predictions, references):
        zeros = pa.array(np.zeros(len(predictions), np.int64))
        return pa.StructArray.from_arrays([zeros] * len(COLUMNS) + [pa.array(np.zeros(len(predictions)))], names=[*COLUMNS, SCORE_COLUMN])
"""

#: The CPU time of an engine's script and of every process it started, for its pipeline's
#: ``cpu_s``: Ray's and Daft's workers and Spark's JVM and Python workers are its descendants.
#: Linux's ``/proc`` (None elsewhere): the live processes' own time and what they reaped.
TREE_CPU = """
import os

def tree_cpu():
    if not os.path.exists("/proc/self/stat"):
        return None
    parents, cpu = {}, {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            parents[int(entry.name)] = int(fields[1])
            cpu[int(entry.name)] = sum(map(int, fields[11:15])) / os.sysconf("SC_CLK_TCK")
    tree, new = set(), {os.getpid()}
    while new:
        tree |= new
        new = {pid for pid, parent in parents.items() if parent in new} - tree
    return sum(cpu.get(pid, 0) for pid in tree)
"""

#: The Ray Data recipe of docs/scale.md in a fresh process, as a user's script runs it, on a
#: local cluster of every CPU: Parquet parts in, ``GleuColumns`` on pyarrow batches as tasks
#: fused with the read, ``GleuColumns.reduce`` summing each block where it lies. ``settings``:
#: "recipe" sets what the guide sets (Ray's previous Parquet reader with one read unit a CPU,
#: ``override_num_blocks``; no per-operator reservation); "defaults" leaves Ray's defaults;
#: "alone" is the recipe with ``Zeros`` for ``GleuColumns``: what the pipeline costs without
#: the scoring. The pipeline runs twice on the same cluster: cold (the workers' first imports)
#: and warm.
RAY_SCRIPT = """
import json, sys, time
start = time.perf_counter()
import ray
from google_bleu import GLEU
from google_bleu.integrations.columns import GleuColumns
from tests.helpers import local_ray
parquet, cpus, settings = sys.argv[1], int(sys.argv[2]), sys.argv[3]
local_ray.start(num_cpus=cpus)
context = ray.data.DataContext.get_current()
context.enable_progress_bars = False
if settings in ("recipe", "alone"):
    context.use_datasource_v2 = False
    context.op_resource_reservation_enabled = False
ray.get([ray.remote(lambda: None).remote() for _ in range(cpus)])  # the cluster is up: its workers run
runs = []
for _ in range(2):
    began, cpu = time.perf_counter(), tree_cpu()
    gleu = (Zeros if settings == "alone" else GleuColumns)("prediction", "references", scorer=GLEU("13a"))
    read = ray.data.read_parquet(parquet) if settings == "defaults" else ray.data.read_parquet(parquet, override_num_blocks=cpus)
    totals = gleu.reduce(read.map_batches(gleu, batch_format="pyarrow", batch_size=None)).totals()
    runs.append({"pipeline_s": time.perf_counter() - began, "totals": [int(t) for t in totals]})
    runs[-1]["cpu_s"] = cpu and tree_cpu() - cpu
    runs[-1]["script_s"] = time.perf_counter() - start
ray.shutdown()
print(json.dumps(runs))
""".replace("\nruns = []", ZEROS + TREE_CPU + "runs = []", 1)

#: The Daft recipe of docs/scale.md (``@daft.cls`` around ``GleuColumns.arrow``, Daft's ``sum``)
#: on the same Parquet files, in Daft's own environment, on its native runner; twice, as Ray.
#: "alone": ``Zeros`` for ``GleuColumns``, as Ray's.
DAFT_SCRIPT = """
import json, sys, time
start = time.perf_counter()
import daft
from daft import DataType, col
from google_bleu import GLEU
from google_bleu.integrations.columns import SCORE_COLUMN, GleuColumns
from google_bleu.stats import COLUMNS
parquet, cpus, settings = sys.argv[1], int(sys.argv[2]), sys.argv[3]
STATS = DataType.struct({**{name: DataType.int64() for name in COLUMNS}, SCORE_COLUMN: DataType.float64()})

@daft.cls(max_concurrency=cpus, use_process=True)
class Gleu:
    def __init__(self, scorer):
        self.columns = (Zeros if settings == "alone" else GleuColumns)(scorer=scorer)

    @daft.method.batch(return_dtype=STATS, unnest=True, batch_size=25_000)
    def __call__(self, predictions, references):
        return self.columns.arrow(predictions, references)

runs = []
for _ in range(2):
    began, cpu = time.perf_counter(), tree_cpu()
    gleu = Gleu(GLEU("13a"))
    totals = daft.read_parquet(parquet + "/*.parquet").select(gleu(col("prediction"), col("references"))).sum(*COLUMNS).to_pydict()
    runs.append({"pipeline_s": time.perf_counter() - began, "totals": [int(totals[name][0]) for name in COLUMNS]})
    runs[-1]["cpu_s"] = cpu and tree_cpu() - cpu
    runs[-1]["script_s"] = time.perf_counter() - start
print(json.dumps(runs))
""".replace("\nruns = []", ZEROS + TREE_CPU + "runs = []", 1)


#: The Spark recipe of docs/scale.md (``mapInArrow`` over ``GleuColumns``, Spark's ``sum``) on the
#: same Parquet files, in Spark's own environment, with Spark on this machine (``local[CPUs]``: one
#: JVM, its tasks handing pyarrow batches to a Python worker each); twice, as Ray. "alone":
#: ``Zeros`` for ``GleuColumns``, as Ray's.
SPARK_SCRIPT = """
import json, os, sys, time
start = time.perf_counter()
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from google_bleu import GLEU
from google_bleu.integrations.columns import GleuColumns
from google_bleu.stats import COLUMNS
parquet, cpus, settings = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.environ.update(PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
conf = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false", "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1", "spark.sql.shuffle.partitions": str(cpus)}
spark = SparkSession.builder.master(f"local[{cpus}]").config(map=conf).getOrCreate()
STATS = "n_match bigint, n_hyp bigint, n_ref bigint, n_all bigint, google_bleu double"

def scores(gleu):
    def score(batches):
        for batch in batches:
            yield from gleu(batch).to_batches()
    return score

runs = []
for _ in range(2):
    began, cpu = time.perf_counter(), tree_cpu()
    gleu = (Zeros if settings == "alone" else GleuColumns)("prediction", "references", scorer=GLEU("13a"))
    scored = spark.read.parquet(parquet).mapInArrow(scores(gleu), STATS)
    totals = scored.agg(*[F.sum(name).alias(name) for name in COLUMNS]).first()
    runs.append({"pipeline_s": time.perf_counter() - began, "totals": [int(totals[name]) for name in COLUMNS]})
    runs[-1]["cpu_s"] = cpu and tree_cpu() - cpu
    runs[-1]["script_s"] = time.perf_counter() - start
spark.stop()
print(json.dumps(runs))
""".replace("\nruns = []", ZEROS + TREE_CPU + "runs = []", 1)


#: Parquet files the large file is written to: a folder of parts, as a batch-inference job
#: leaves its outputs, with as many parts as the largest machine measured has cores.
PARTS = 16


def write_parquet(reference: Path, system: Path, folder: Path) -> None:
    """The pair of files as ``PARTS`` Parquet files in ``folder``, a row a segment, with the
    command's line rules."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from google_bleu.scale.lines import lines_from_bytes

    if not folder.exists():
        folder.mkdir()
        predictions = lines_from_bytes(system.read_bytes(), str(system))
        references = [[line] for line in lines_from_bytes(reference.read_bytes(), str(reference))]
        table = pa.table({"prediction": predictions, "references": references})
        for part in range(PARTS):
            begin, end = part * len(table) // PARTS, (part + 1) * len(table) // PARTS
            pq.write_table(table.slice(begin, end - begin), folder / f"part-{part:02d}.parquet")


def run_script(python: str, script: str, *argv: str) -> list[dict]:
    """A recipe's script in a fresh process: its cold and warm runs."""
    done = subprocess.run([python, "-c", script, *argv], capture_output=True, cwd=REPO, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr.decode()[-2000:]}")
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def engine_rows(
    name: str, lines: int, runs: list[list[dict]], cpus: int, base: tuple[float, float], same: float | None,
    totals: list[int] | None,
) -> list[dict]:
    """Two rows of the engines' table, cold and warm, each the fastest of its runs: the rate a
    CPU against ``--jobs 1``'s (``base``: its seconds and CPU seconds), the time against
    ``--jobs CPUs``'s (``same`` seconds, on the same CPUs, where it ran), and the CPU time of
    the run of least CPU against ``--jobs 1``'s."""
    rows = []
    for index, label in ((0, "cold"), (1, "warm")):
        best = min((script[index] for script in runs), key=lambda run: run["pipeline_s"])
        rate = lines / best["pipeline_s"] / cpus
        cpu = min((script[index].get("cpu_s") for script in runs), key=lambda seconds: seconds or 0)
        rows.append({
            "path": f"{name}, {label}",
            "cpus": cpus,
            "pipeline_s": round(best["pipeline_s"], 3),
            "script_s": round(best["script_s"], 3),
            "rows_per_cpu_s": round(rate),
            "vs_jobs_1": round(rate / (lines / base[0]), 2),
            "vs_jobs_cpus": round(same / best["pipeline_s"], 2) if same else None,
            "cpu_s": round(cpu, 2) if cpu else None,
            "cpu_vs_jobs_1": round(base[1] / cpu, 2) if cpu else None,
            "identical": None if totals is None else all(script[index]["totals"] == totals for script in runs),
        })
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--large-lines", type=int, default=400_000)
    parser.add_argument("--out", "--output", dest="out", type=Path, default=RESULTS, help="the results file to write")
    parser.add_argument("--data", type=Path, default=WMT17, help="the folder of ref0.txt and sys_*.txt")
    parser.add_argument("--note", action="append", default=[], help="a sentence for the notes (the machine's state)")
    parser.add_argument("--title", help="the results' heading in the docs (default: what ran)")
    parser.add_argument("--code", type=Path, default=REPO, help="a checkout whose google_bleu runs (another version)")
    parser.add_argument("--ray", action="store_true", help="also the Ray Data recipe on the large file, every CPU")
    parser.add_argument(
        "--daft", nargs="?", const=str(REPO / ".venvs" / "daft" / "bin" / "python"), default=None, metavar="PYTHON",
        help="also the Daft recipe on the large file, with this Python (default: .venvs/daft, make framework-daft)",
    )
    parser.add_argument(
        "--spark", nargs="?", const=str(REPO / ".venvs" / "spark" / "bin" / "python"), default=None, metavar="PYTHON",
        help="also the Spark recipe on the large file, with this Python (default: .venvs/spark, make framework-spark)",
    )
    args = parser.parse_args(argv)
    args.data, args.code = args.data.resolve(), args.code.resolve()  # the command runs in args.code
    if not args.data.is_dir():
        raise SystemExit(f"the WMT17 data is not at {args.data} (../shared/data beside the clone, or --data)")
    args.workers = [1, *[w for w in dict.fromkeys(args.workers) if w != 1]]
    load_before = load_average()
    rows, engine_table = [], []
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
            if (args.ray or args.daft or args.spark) and len(systems) == 1 and name.startswith("1 file"):
                cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
                totals = [json.loads(outputs[1])[key] for key in ("n_match", "n_hyp", "n_ref", "n_all")]
                parquet = Path(tmp) / "pairs"
                write_parquet(reference, systems[0], parquet)
                scripts = []
                if args.ray:
                    scripts += [("Ray Data, the guide's recipe", sys.executable, RAY_SCRIPT, "recipe")]
                    scripts += [("Ray Data, Ray's defaults", sys.executable, RAY_SCRIPT, "defaults")]
                    scripts += [("Ray Data, the pipeline alone", sys.executable, RAY_SCRIPT, "alone")]
                if args.daft:
                    scripts += [("Daft", args.daft, DAFT_SCRIPT, "recipe")]
                    scripts += [("Daft, the pipeline alone", args.daft, DAFT_SCRIPT, "alone")]
                if args.spark:
                    scripts += [("Spark", args.spark, SPARK_SCRIPT, "recipe")]
                    scripts += [("Spark, the pipeline alone", args.spark, SPARK_SCRIPT, "alone")]
                runs: dict[str, list[list[dict]]] = {label: [] for label, *_ in scripts}
                for _ in range(args.repeats):
                    for label, python, script, settings in scripts:
                        runs[label].append(run_script(python, script, str(parquet), str(cpus), settings))
                    # The command again between the engines' runs: its fastest run then saw the
                    # machine as they did (a shared machine's load drifts).
                    for jobs in dict.fromkeys([1, cpus]):
                        if jobs in times:
                            seconds, output, usage = run_cli(reference, systems, jobs, args.code)
                            if output != outputs[jobs]:
                                raise SystemExit(f"{name}: --jobs {jobs} printed different output on a repeat")
                            times[jobs].append(seconds)
                            usages[jobs].append(usage)
                base = min(times[1])
                base_cpu = min(usage["self"] + usage["children"] for usage in usages[1])
                same = min(times[cpus]) if cpus in times else None
                engine_table = [{
                    "path": "--jobs 1", "cpus": 1, "pipeline_s": round(base, 3), "script_s": round(base, 3),
                    "rows_per_cpu_s": round(lines / base), "vs_jobs_1": 1.0, "cpu_s": round(base_cpu, 2),
                    "cpu_vs_jobs_1": 1.0, "identical": True,
                }]
                for label, _, _, settings in scripts:
                    engine_table += engine_rows(label, lines, runs[label], cpus, (base, base_cpu), same, None if settings == "alone" else totals)
                    for row in engine_table[-2:]:
                        print(f"{row['path']:>36}: pipeline {row['pipeline_s']:6.2f} s, script {row['script_s']:6.2f} s, "
                              f"{row['rows_per_cpu_s']:,} rows/s a CPU (x{row['vs_jobs_1']:.2f}, "
                              f"vs --jobs {cpus} x{row['vs_jobs_cpus']}), CPU {row['cpu_s']} s "
                              f"(x{row['cpu_vs_jobs_1']} --jobs 1's), same {row['identical']}", flush=True)
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
    engines = [name for name, wanted in (("Ray Data", args.ray), ("Daft", args.daft), ("Spark", args.spark)) if wanted]
    result = {
        "schema": 1,
        "title": args.title or "The command line with --jobs" + "".join(f", {name}" for name in engines[:-1])
        + (f" and {engines[-1]}" if engines else ""),
        "order": 44,
        "date": datetime.date.today().isoformat(),
        "command": shlex.join(["python", "benchmarks/bench_jobs.py", *(sys.argv[1:] if argv is None else argv)]),
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
    if engine_table:
        if args.ray:
            import ray

            machine["ray"] = ray.__version__
        if args.daft:
            version = subprocess.run([args.daft, "-c", "import daft, pyarrow; print(daft.__version__, pyarrow.__version__)"],
                                     capture_output=True, text=True, check=True).stdout.split()
            machine["daft"], machine["pyarrow (Daft)"] = version
        if args.spark:
            version = subprocess.run([args.spark, "-c", "import pyspark, pyarrow; print(pyspark.__version__, pyarrow.__version__)"],
                                     capture_output=True, text=True, check=True).stdout.split()
            machine["pyspark"], machine["pyarrow (Spark)"] = version
            java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True).stderr.split("\n")
            machine["java"] = java[0].split('"')[1] if '"' in java[0] else java[0]
        ray_note = (
            "Ray Data: `map_batches(GleuColumns(...), batch_format=\"pyarrow\", batch_size=None)`, "
            "`GleuColumns.reduce`, on a local cluster, the scoring fused with the read. 'the guide's recipe' sets what "
            "docs/scale.md sets: Ray's previous Parquet reader (`DataContext.use_datasource_v2 = False`) with "
            "`override_num_blocks=CPUs`, a read task a CPU, and no per-operator reservation "
            "(`op_resource_reservation_enabled = False`), so every CPU runs from the start. 'Ray's defaults' reads with "
            "Ray's default reader (files packed into read tasks of up to 128 MiB: one here) and its reservation (a "
            "task at a time until Ray Data's resource view first answers, about a second). "
        )
        daft_note = (
            "Daft: `@daft.cls` around `GleuColumns.arrow`, `max_concurrency=CPUs`, `use_process=True`, batches of "
            "25,000 rows, Daft's `sum`, native runner. "
        )
        spark_note = (
            "Spark: `mapInArrow` of the guide's function around `GleuColumns` (pyarrow batches of Spark's default "
            "10,000 rows), Spark's `sum`, with Spark on the machine (`local[CPUs]`: one JVM whose tasks each hand "
            "their batches to a Python worker); `pipeline` starts with the session up (the JVM answering), the "
            "Python workers starting in the cold run. "
        )
        result["notes"].append(
            f"Engines: the recipes of docs/scale.md on the large file written to Parquet (one row a segment, {PARTS} "
            "files of equal rows, as a batch-inference job leaves its outputs), in a fresh process with every CPU of "
            "the machine. "
            + (ray_note if args.ray else "") + (daft_note if args.daft else "") + (spark_note if args.spark else "")
            + "'the pipeline alone' is "
            "the recipe with the scoring left out: a `GleuColumns` whose `arrow` returns zeros of the same columns "
            "without reading the text, so its time is what the engine itself costs (reading, scheduling, moving "
            "batches, summing), and the difference is the scoring. Each script runs the pipeline twice: cold (the "
            "first, workers importing) and warm (the second, same cluster). `pipeline` is from the cluster being up "
            "(its workers answering) to the totals; `script` from the script's first line to the same totals (the "
            "engine's start and imports included, interpreter start not; the warm row's includes the cold run). "
            "Rows per second a CPU is segments / pipeline / CPUs (for `--jobs 1`: segments / whole command time, "
            "its fastest run, of those in the first table and those between the engines' repeats, where the "
            "command runs again after each round of scripts); the ratio is against `--jobs 1`'s. 'vs --jobs CPUs' "
            "is `--jobs N`'s time (N = the CPUs, fastest alike) over the pipeline's: the same CPUs, so a machine "
            "shared with other work weighs on both alike. CPU is the CPU time of the pipeline: the script's "
            "process and every process it started (the engine's own, its workers), from `/proc`, in the run of least "
            "CPU; against `--jobs 1`'s (its command and workers, `getrusage`, its run of least CPU) it gives the rows a "
            "CPU-second against `--jobs 1`'s, which a shared machine's load changes far less than the time. "
            "Fastest of the repeats; "
            "every run's four totals equal `--jobs 1`'s output ('the pipeline alone' sums zeros: '-')."
        )
        result["tables"][0]["caption"] = "`--jobs`"
        result["tables"].append({
            "caption": f"Rows per second a CPU on the large file ({args.large_lines:,} segments): "
            + ", ".join(["--jobs 1", *engines]),
            "columns": [
                {"key": "path", "label": "path"},
                {"key": "cpus", "label": "CPUs"},
                {"key": "pipeline_s", "label": "pipeline", "format": ".2f", "unit": " s"},
                {"key": "script_s", "label": "script", "format": ".2f", "unit": " s"},
                {"key": "rows_per_cpu_s", "label": "rows/s a CPU", "format": ","},
                {"key": "vs_jobs_1", "label": "a CPU vs --jobs 1", "format": ".2f", "unit": "x"},
                {"key": "vs_jobs_cpus", "label": "vs --jobs CPUs", "format": ".2f", "unit": "x"},
                {"key": "cpu_s", "label": "CPU", "format": ".2f", "unit": " s"},
                {"key": "cpu_vs_jobs_1", "label": "CPU: --jobs 1's over this", "format": ".2f", "unit": "x"},
                {"key": "identical", "label": "same totals"},
            ],
            "rows": engine_table,
        })
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
