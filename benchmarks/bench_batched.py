"""Batched token-id GLEU against a loop of nltk ``sentence_gleu``, in the same run.

B rows of L token ids (vocabulary 32,000), with 1 and 4 references per row; each
reference is its hypothesis with about 30% of the tokens replaced, so matches occur at
every order as in RL rewards against a target. The nltk loop gets ready-made Python id
lists (its ``.tolist()`` conversion is not timed); where the whole loop would exceed
``--loop-seconds`` it is timed on the first rows and extrapolated (said in the table).
Ours gets the tensors and does all its work inside the timing:

- ``batch_sentence_gleu``: on CPU the engine's numpy backend (torch's thread settings
  unchanged: users get torch's defaults), on a GPU the fixed-shape torch backend;
- ``BatchScorer``: its first call for a shape and (on CUDA, with graph capture) a replay;
  on CPU it counts with numpy as ``batch_sentence_gleu`` does.

Every score is checked for equality (``==``) with nltk's on the rows nltk scored. Times
are the best of ``--repeat`` interleaved runs. Results go to
``benchmarks/results/batched-<device>.json`` (schema 1 of ``benchmarks/report.py``).

Usage: ``python benchmarks/bench_batched.py [--device cuda] [--shapes 8x64 256x256] [--refs 1 4]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch
from nltk.translate.gleu_score import sentence_gleu

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from anywhere

from benchmarks.machine import cpu_model, load_average  # noqa: E402
from google_bleu.ids.batched import BatchScorer, batch_sentence_gleu  # noqa: E402

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


def measure(hypotheses, references, device: torch.device, repeat: int, loop_seconds: float) -> dict:
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
    identical = (
        scores.cpu().tolist()[:timed_rows] == expected
        and first_scores.cpu().tolist()[:timed_rows] == expected
        and torch.equal(first_scores.cpu(), replayed.cpu())
    )
    return {
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
        **{f"eager_{key}": value for key, value in eager.items()},
        **{f"replay_{key}": value for key, value in replay.items()},
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
    parser.add_argument("--output", type=Path, default=None, help="default: benchmarks/results/batched-<device>.json")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    print(f"# {machine(device)}")
    header = f"{'rows':>5} {'tokens':>6} {'refs':>4} {'nltk s':>9} {'ours ms':>8} {'ratio':>7} {'scorer ms':>9} {'first ms':>9}"
    print(header + "  identical")
    generator = torch.Generator().manual_seed(12345)
    results = []
    for shape in args.shapes:
        rows, length = (int(part) for part in shape.lower().split("x"))
        for n_refs in args.refs:
            hypotheses, references = make_batch(rows, length, n_refs, generator)
            row = measure(hypotheses, references, device, args.repeat, args.loop_seconds)
            results.append(row)
            print(
                f"{rows:>5} {length:>6} {n_refs:>4} {row['nltk_s']:>9.3f}{'*' if row['extrapolated'] else ' '}"
                f"{row['ours_ms']:>7.2f} {row['ratio']:>6.1f}x {row['scorer_ms']:>9.2f} {row['scorer_first_ms']:>9.1f}"
                f"  {row['identical']}"
                + (
                    f"  kernels {row['eager_kernels']}/{row['replay_kernels']}"
                    f" syncs {row['eager_syncs']}/{row['replay_syncs']}"
                    if "eager_kernels" in row
                    else ""
                ),
                flush=True,
            )
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
            "('first call' includes the capture).",
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
                    *(
                        [
                            {"key": "eager_kernels", "label": "kernels (eager)"},
                            {"key": "eager_syncs", "label": "syncs (eager)"},
                            {"key": "replay_kernels", "label": "kernels (replay)"},
                            {"key": "replay_syncs", "label": "syncs (replay)"},
                        ]
                        if device.type == "cuda"
                        else []
                    ),
                ],
                "rows": results,
            }
        ],
    }
    output = args.output or RESULTS / f"batched-{device.type}.json"
    output.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
