"""Batched token-id GLEU against a loop of nltk ``sentence_gleu`` and TensorBLEU, in the same run.

B rows of L token ids (vocabulary 32,000), with 1 and 4 references per row; each
reference is its hypothesis with about 30% of the tokens replaced, so matches occur at
every order as in RL rewards against a target. The nltk loop gets ready-made Python id
lists (its ``.tolist()`` conversion is not timed); where the whole loop would exceed
``--loop-seconds`` it is timed on the first rows and extrapolated (said in the table).
Ours gets the tensors and does all its work inside the timing:

- ``batch_sentence_gleu``: on CPU the engine's numpy backend (torch's thread settings
  unchanged: users get torch's defaults), on a GPU the fixed-shape path (``ids/fixed.py``);
- ``BatchScorer``: its first call for a shape and (on CUDA, with graph capture) a replay;
  on CPU it counts with numpy as ``batch_sentence_gleu`` does.

Every score is checked for equality (``==``) with nltk's on the rows nltk scored. Times
are the best of ``--repeat`` interleaved runs on CPU; on CUDA the median of ``--calls``
synchronised calls after 3 warm-ups, the same for each contender. Each row also records
the operations of one call of the fixed-shape path run on CPU tensors (``torch.profiler``,
top-level operators: all, and those that are not views), and on CUDA its kernels.

On CUDA, TensorBLEU (``rxlm``'s ``tensor_sentence_bleu``, arXiv 2510.05485; the file
``rxlm/metrics/tensorbleu.py`` is loaded by path, as it imports only torch) is timed on the
same tensors (``pad_token_id`` set to an id absent from them); a shape where it fails is
recorded with its error. With ``--pairwise N ...`` a second table times ``pairwise_gleu``
of N x 32 random ids (vocabulary 400) on the device against the same ids as host lists.
Results go to ``benchmarks/results/batched-<device>.json`` (schema 1 of
``benchmarks/report.py``).

Usage: ``python benchmarks/bench_batched.py [--device cuda] [--shapes 8x64 256x256] [--refs 1 4] [--pairwise 1024 4096]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch
from nltk.translate.gleu_score import sentence_gleu

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from anywhere

from benchmarks.machine import cpu_model, load_average  # noqa: E402
from google_bleu.ids import BatchScorer, batch_sentence_gleu, pairwise_gleu  # noqa: E402

VOCAB = 32_000
NOISE = 0.3
#: Ours, then TensorBLEU's (arXiv 2510.05485: 128/256/512 x 1024 and 256/512 x 256).
SHAPES = ("8x64", "32x128", "256x256", "256x1024", "1024x512", "128x1024", "512x1024", "512x256")
RESULTS = Path(__file__).resolve().parent / "results"


def make_batch(rows: int, length: int, n_refs: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    hypotheses = torch.randint(1, VOCAB, (rows, length), generator=generator)
    references = hypotheses[:, None, :].repeat(1, n_refs, 1)
    replace = torch.rand((rows, n_refs, length), generator=generator) < NOISE
    noise = torch.randint(1, VOCAB, (rows, n_refs, length), generator=generator)
    return hypotheses, torch.where(replace, noise, references)


def best_time(function, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def synchronized(device: torch.device, function):
    def run():
        out = function()
        if device.type == "cuda":
            torch.cuda.synchronize()
        return out

    return run


def profile(device: torch.device, function) -> dict:
    """Kernels launched and host synchronisations of one call, from ``torch.profiler``."""
    if device.type != "cuda":
        return {}
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as run_profile

    def counts(call) -> tuple[int, int]:
        torch.cuda.synchronize()
        with run_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            call()
        events = prof.events()
        cuda = torch.autograd.DeviceType.CUDA
        kernels = sum(event.device_type == cuda and not event.name.startswith(("Memcpy", "Memset")) for event in events)
        syncs = sum(event.name in ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize") for event in events)
        return kernels, syncs

    # The profiler's own work (it synchronises when it stops) is measured on an empty call.
    base_kernels, base_syncs = counts(lambda: None)
    kernels, syncs = counts(function)
    return {"kernels": kernels - base_kernels, "syncs": syncs - base_syncs}


#: Operators that make a view of their input: no kernel runs for them.
VIEWS = frozenset(
    "aten::" + name
    for name in (
        "slice select view reshape _reshape_alias expand expand_as as_strided unsqueeze squeeze alias t "
        "transpose permute movedim unfold detach narrow view_as _unsafe_view unbind split"
    ).split()
)


def cpu_operations(function) -> dict:
    """Top-level torch operators of one call (CPU tensors), all and those that are not views."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as run_profile

    function()
    with run_profile(activities=[ProfilerActivity.CPU]) as prof:
        function()
    names = [event.name for event in prof.events() if event.cpu_parent is None]
    return {"ops": len(names), "ops_no_views": sum(name not in VIEWS for name in names)}


def median_ms(device: torch.device, function, calls: int) -> float:
    """Median of ``calls`` synchronised calls after 3 warm-ups, in milliseconds."""
    run = synchronized(device, function)
    for _ in range(3):
        run()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def tensorbleu():
    """rxlm's ``tensor_sentence_bleu``, loaded from ``rxlm/metrics/tensorbleu.py`` by path; None if absent."""
    spec = importlib.util.find_spec("rxlm")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "metrics" / "tensorbleu.py"
    module_spec = importlib.util.spec_from_file_location("tensorbleu", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.tensor_sentence_bleu


def batch(rows: int, length: int, n_refs: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The batch of a shape: the same tensors in every process (a seed of its own)."""
    return make_batch(rows, length, n_refs, torch.Generator().manual_seed(rows * 1_000_003 + length * 101 + n_refs))


def tensorbleu_worker(shapes: list[str], device: torch.device, calls: int) -> None:
    """Times TensorBLEU on each ``BxLxR`` shape, one JSON line each. A failure (an illegal
    memory access leaves the CUDA context unusable) is printed and ends the process."""
    function = tensorbleu()
    for shape in shapes:
        rows, length, n_refs = (int(part) for part in shape.split("x"))
        hypotheses, references = (tensor.to(device) for tensor in batch(rows, length, n_refs))
        # An id below every id of the batch: no real token is taken for padding.
        pad = int(min(hypotheses.min(), references.min())) - 1
        try:
            call = lambda h=hypotheses, r=references, p=pad: function(h, r, pad_token_id=p)  # noqa: E731
            out = {"tensorbleu_ms": median_ms(device, call, calls)}
        except Exception as error:  # recorded, not dropped: the row says how it failed
            message = " ".join(str(error).split())
            print(json.dumps({"shape": shape, "tensorbleu_error": f"{type(error).__name__}: {message[:160]}"}), flush=True)
            sys.exit(1)
        print(json.dumps({"shape": shape, **out}), flush=True)


def measure_tensorbleu(shapes: list[str], device: torch.device, calls: int) -> dict[str, dict]:
    """TensorBLEU's figures per shape, from worker processes: a shape where it fails gets its
    error, and a fresh process (a fresh CUDA context) goes on with the shapes after it."""
    import subprocess

    found: dict[str, dict] = {}
    while len(found) < len(shapes):
        rest = [shape for shape in shapes if shape not in found]
        command = [sys.executable, __file__, "--device", str(device), "--calls", str(calls), "--tensorbleu-worker", *rest]
        done = subprocess.run(command, capture_output=True, text=True)
        for line in done.stdout.splitlines():
            if line.startswith("{"):
                record = json.loads(line)
                found[record.pop("shape")] = record
        if len(found) < len(shapes) and done.returncode and rest[0] not in found:
            tail = " ".join(done.stderr.split())[-160:]
            found[rest[0]] = {"tensorbleu_error": f"the process stopped (exit {done.returncode}): {tail}"}
    return found


def measure(hypotheses, references, device: torch.device, repeat: int, loop_seconds: float, calls: int) -> dict:
    rows = hypotheses.shape[0]
    hyp_lists, ref_lists = hypotheses.tolist(), references.tolist()

    def nltk_rows(count: int) -> list[float]:
        return [sentence_gleu(refs, hyp) for hyp, refs in zip(hyp_lists[:count], ref_lists[:count])]

    probe_s, _ = best_time(lambda: nltk_rows(1), 1)
    timed_rows = max(1, min(rows, int(loop_seconds / max(probe_s, 1e-9))))
    hyp_d, ref_d = hypotheses.to(device), references.to(device)
    batched = synchronized(device, lambda: batch_sentence_gleu(hyp_d, ref_d))
    batched()  # warm-up (imports, allocator, CUDA context)
    scorer = BatchScorer()
    first = synchronized(device, lambda: scorer(hyp_d, ref_d))
    first_s, first_scores = best_time(first, 1)  # the first call of this shape (captures on CUDA)
    if device.type == "cuda":
        nltk_s, expected = best_time(lambda: nltk_rows(timed_rows), 1)
        scores, replayed = batched(), first()
        ours_s = median_ms(device, lambda: batch_sentence_gleu(hyp_d, ref_d), calls) / 1000
        replay_s = median_ms(device, lambda: scorer(hyp_d, ref_d), calls) / 1000
    else:
        nltk_s, ours_s, replay_s = float("inf"), float("inf"), float("inf")
        for _ in range(repeat):  # interleaved, so all see the same load
            seconds, expected = best_time(lambda: nltk_rows(timed_rows), 1)
            nltk_s = min(nltk_s, seconds)
            seconds, scores = best_time(batched, 3)
            ours_s = min(ours_s, seconds)
            seconds, replayed = best_time(first, 3)
            replay_s = min(replay_s, seconds)
    nltk_full = nltk_s * rows / timed_rows
    # The profiled calls themselves (not the synchronize the timings add).
    eager = profile(device, lambda: batch_sentence_gleu(hyp_d, ref_d))
    replay = profile(device, lambda: scorer(hyp_d, ref_d))
    # The fixed-shape path's operators per call, counted on CPU tensors (the proxy for kernels;
    # the count does not depend on the number of rows, so 8 rows of the shape are counted).
    few_hypotheses, few_references = hypotheses[:8], references[:8]
    operations = cpu_operations(lambda: scorer.compute(few_hypotheses, None, few_references, None))
    identical = (
        scores.cpu().tolist()[:timed_rows] == expected
        and first_scores.cpu().tolist()[:timed_rows] == expected
        and torch.equal(first_scores.cpu(), replayed.cpu())
    )
    row = {
        "rows": rows,
        "tokens": hypotheses.shape[1],
        "refs": references.shape[1],
        "nltk_s": nltk_full,
        "extrapolated": timed_rows < rows,
        "ours_ms": 1000 * ours_s,
        "ratio": nltk_full / ours_s,
        "scorer_first_ms": 1000 * first_s,
        "scorer_ms": 1000 * replay_s,
        "scorer_ratio": nltk_full / replay_s,
        "identical": bool(identical),
        **operations,
        **{f"eager_{key}": value for key, value in eager.items()},
        **{f"replay_{key}": value for key, value in replay.items()},
    }
    return row


def measure_pairwise(n: int, device: torch.device, calls: int, generator: torch.Generator) -> dict:
    """``pairwise_gleu`` of ``n x 32`` random ids (vocabulary 400) on ``device`` and as host lists."""
    ids = torch.randint(1, 400, (n, 32), generator=generator)
    lists = ids.tolist()
    ids_d = ids.to(device)
    on_device = pairwise_gleu(ids_d)
    host_s, on_host = best_time(lambda: pairwise_gleu(lists), 1)
    return {
        "n": n,
        "device_ms": median_ms(device, lambda: pairwise_gleu(ids_d), max(3, calls // 4)),
        "host_lists_ms": 1000 * host_s,
        "identical": on_device.cpu().numpy().tolist() == on_host.tolist(),
    }


def machine(device: torch.device) -> dict:
    cpu = cpu_model()
    import nltk

    info = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch threads": torch.get_num_threads(),
        "numpy": np.__version__,
        "nltk": nltk.__version__,
        "device": str(device),
    }
    if device.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(device)
    info["load average"] = load_average()
    return info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), help="BxL batch shapes")
    parser.add_argument("--refs", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loop-seconds", type=float, default=10.0, help="budget of one nltk loop before extrapolating")
    parser.add_argument("--threads", type=int, default=0, help="torch intra-op threads (default 0: torch's default)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--calls", type=int, default=20, help="CUDA: timed calls per contender (median)")
    parser.add_argument("--pairwise", type=int, nargs="*", default=[], help="N of pairwise_gleu on N x 32 ids")
    parser.add_argument("--output", type=Path, default=None, help="default: benchmarks/results/batched-<device>.json")
    parser.add_argument("--tensorbleu-worker", nargs="+", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if args.tensorbleu_worker:
        tensorbleu_worker(args.tensorbleu_worker, device, args.calls)
        return
    print(f"# {machine(device)}")
    header = f"{'rows':>5} {'tokens':>6} {'refs':>4} {'nltk s':>9} {'ours ms':>8} {'ratio':>7} {'scorer ms':>9} {'first ms':>9}"
    print(header + "  identical")
    generator = torch.Generator().manual_seed(12345)
    results = []
    for shape in args.shapes:
        rows, length = (int(part) for part in shape.lower().split("x"))
        for n_refs in args.refs:
            hypotheses, references = batch(rows, length, n_refs)
            row = measure(hypotheses, references, device, args.repeat, args.loop_seconds, args.calls)
            results.append(row)
            print(
                f"{rows:>5} {length:>6} {n_refs:>4} {row['nltk_s']:>9.3f}{'*' if row['extrapolated'] else ' '}"
                f"{row['ours_ms']:>7.2f} {row['ratio']:>6.1f}x {row['scorer_ms']:>9.2f} {row['scorer_first_ms']:>9.1f}"
                f"  {row['identical']}"
                + f"  ops {row['ops']} ({row['ops_no_views']} not views)"
                + (
                    f"  kernels {row['eager_kernels']}/{row['replay_kernels']}"
                    f" syncs {row['eager_syncs']}/{row['replay_syncs']}"
                    if "eager_kernels" in row
                    else ""
                ),
                flush=True,
            )
    if device.type == "cuda" and tensorbleu() is not None:  # after ours: its failures cannot touch our figures
        figures = measure_tensorbleu([f"{r['rows']}x{r['tokens']}x{r['refs']}" for r in results], device, args.calls)
        for row in results:
            shape = f"{row['rows']}x{row['tokens']}x{row['refs']}"
            row.update(figures[shape])
            if "tensorbleu_ms" in row:
                row["tensorbleu_vs_scorer"] = row["tensorbleu_ms"] / row["scorer_ms"]
                row["tensorbleu_vs_ours"] = row["tensorbleu_ms"] / row["ours_ms"]
            print(f"# TensorBLEU {shape}: {figures[shape]}", flush=True)
    pairwise_rows = []
    for n in args.pairwise:
        pairwise_rows.append(measure_pairwise(n, device, args.calls, generator))
        print(f"# pairwise N={n}: {pairwise_rows[-1]}", flush=True)
    name = "GPU" if device.type == "cuda" else "CPU"
    report = {
        "schema": 1,
        "title": f"Batched token-id GLEU on {name} ({device.type})",
        "order": 20 if device.type == "cpu" else 25,
        "date": time.strftime("%Y-%m-%d"),
        "command": " ".join(["python benchmarks/bench_batched.py", *sys.argv[1:]]),
        "machine": machine(device),
        "notes": [
            "B rows of L token ids (vocabulary 32,000; each reference is its hypothesis with 30% of the tokens "
            "replaced), against a loop of nltk `sentence_gleu` over ready-made id lists (extrapolated from its first "
            "rows where marked); best of interleaved runs; every score `==` nltk's on the rows nltk scored.",
            "`batch_sentence_gleu` counts CPU tensors with the engine's numpy backend, at torch's default settings; "
            "`BatchScorer` does the same on CPU, and on CUDA replays the graph it captured for the shape "
            "('first call' includes the capture). On CUDA each time is the median of synchronised calls after "
            "3 warm-ups, TensorBLEU's too (rxlm's `tensor_sentence_bleu` on the same tensors).",
            "Operators: top-level `torch.profiler` events of one call of the fixed-shape path (`BatchScorer.compute`, "
            "the path GPUs run) on CPU tensors of the shape's first 8 rows (the count does not depend on the rows), "
            "all of them and those that are not views (no kernel runs for a view).",
        ],
        "tables": [
            {
                "columns": [
                    {"key": "rows", "label": "B", "format": ","},
                    {"key": "tokens", "label": "L", "format": ","},
                    {"key": "refs", "label": "refs"},
                    {"key": "nltk_s", "label": "nltk loop", "format": ".3f", "unit": " s"},
                    {"key": "extrapolated", "label": "extrapolated"},
                    {"key": "ours_ms", "label": "batch_sentence_gleu", "format": ".2f", "unit": " ms"},
                    {"key": "ratio", "label": "vs nltk", "format": ".1f", "unit": "x"},
                    {"key": "scorer_ms", "label": "BatchScorer", "format": ".2f", "unit": " ms"},
                    {"key": "scorer_ratio", "label": "vs nltk", "format": ".1f", "unit": "x"},
                    {"key": "scorer_first_ms", "label": "first call", "format": ".1f", "unit": " ms"},
                    {"key": "identical", "label": "identical"},
                    {"key": "ops", "label": "operators (CPU)"},
                    {"key": "ops_no_views", "label": "not views"},
                    *(
                        [
                            {"key": "eager_kernels", "label": "kernels (eager)"},
                            {"key": "eager_syncs", "label": "syncs (eager)"},
                            {"key": "replay_kernels", "label": "kernels (replay)"},
                            {"key": "replay_syncs", "label": "syncs (replay)"},
                            {"key": "tensorbleu_ms", "label": "TensorBLEU", "format": ".2f", "unit": " ms"},
                            {"key": "tensorbleu_vs_scorer", "label": "TensorBLEU / BatchScorer", "format": ".1f", "unit": "x"},
                            {"key": "tensorbleu_vs_ours", "label": "TensorBLEU / batch_sentence_gleu", "format": ".1f", "unit": "x"},
                            {"key": "tensorbleu_error", "label": "TensorBLEU failed"},
                        ]
                        if device.type == "cuda"
                        else []
                    ),
                ],
                "rows": results,
            }
        ],
    }
    if pairwise_rows:
        report["tables"].append(
            {
                "caption": "pairwise_gleu of N x 32 random ids (vocabulary 400): the tensor on the device, "
                "and the same ids as Python lists on the host; identical: every entry ==",
                "columns": [
                    {"key": "n", "label": "N", "format": ","},
                    {"key": "device_ms", "label": f"{device.type} tensor", "format": ".2f", "unit": " ms"},
                    {"key": "host_lists_ms", "label": "host lists", "format": ".2f", "unit": " ms"},
                    {"key": "identical", "label": "identical"},
                ],
                "rows": pairwise_rows,
            }
        )
    output = args.output or RESULTS / f"batched-{device.type}.json"
    output.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
