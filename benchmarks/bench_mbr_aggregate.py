"""Reference aggregation for GLEU MBR against exact MBR: cost, and how often both pick alike.

Two measurements, both through :func:`google_bleu.ids.mbr_select` on texts (13a
tokenization included in every time):

- Cost: N candidates of one source segment (variants of the WMT17 en-de systems' outputs,
  as :mod:`benchmarks.bench_pairwise` makes them, the candidates their own
  pseudo-references) for N = 64 ... 4,096: exact MBR (all N x N sentence scores) against
  ``aggregate=True`` (each candidate once against the mean n-gram counts), and whether
  the two pick the same candidate.
- Agreement on real system outputs: for every segment of WMT17 en-de, the 16 systems'
  translations are the candidates (and their own pseudo-references, equal weights). Counted:
  segments where aggregation picks the exact pick's index, or a candidate of the same
  text; and the expected GLEU (exact) that aggregation's pick gives up against the best.

With no data at ../shared/data the bundled sample (4 systems) stands in. Writes
``benchmarks/results/mbr_aggregate.json`` (rendered into ``docs/mbr.md`` by
``benchmarks/report.py``).

Usage: ``python benchmarks/bench_mbr_aggregate.py [--sizes 64 256 1024 4096] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.bench_pairwise import SAMPLE, SHARED_DATA, _read, best, candidates, machine, source_segments  # noqa: E402
from google_bleu.ids import mbr_select, pairwise_gleu  # noqa: E402

RESULTS = REPO / "benchmarks" / "results" / "mbr_aggregate.json"


def bench_size(n: int, segments: list, rng: np.random.Generator, repeat: int) -> dict:
    outputs = segments[rng.integers(len(segments))]
    texts = candidates(outputs, n, rng)
    mbr_select(texts[:8])  # warm-up (imports)
    exact_s, exact = best(lambda: mbr_select(texts), repeat)
    matrix_s, _ = best(lambda: pairwise_gleu(texts), repeat)
    aggregate_s, approximate = best(lambda: mbr_select(texts, aggregate=True), repeat)
    regret = float(exact.expected_scores[exact.index] - exact.expected_scores[approximate.index])
    row = {
        "n_candidates": n,
        "exact_s": round(exact_s, 5),
        "matrix_s": round(matrix_s, 5),
        "aggregate_s": round(aggregate_s, 5),
        "speedup": round(exact_s / aggregate_s, 1),
        "same_choice": exact.index == approximate.index or texts[exact.index] == texts[approximate.index],
        "regret": regret,
    }
    print(
        f"N={n:5d}: exact {exact_s * 1e3:9.1f} ms (matrix {matrix_s * 1e3:8.1f} ms), aggregate {aggregate_s * 1e3:8.1f} ms "
        f"({row['speedup']}x), same choice: {row['same_choice']}, regret {regret:.4f}",
        flush=True,
    )
    return row


def agreement() -> tuple[str, dict]:
    """Per segment of WMT17 en-de, the systems' outputs as candidates: exact pick vs aggregation's."""
    folder = SHARED_DATA if SHARED_DATA.is_dir() else SAMPLE
    systems = [_read(path) for path in sorted(folder.glob("sys_*.txt"))]
    n_segments = min(map(len, systems))
    same_index = same_text = 0
    regrets = []
    exact_s = aggregate_s = 0.0
    for i in range(n_segments):
        texts = [system[i] for system in systems]
        start = time.perf_counter()
        exact = mbr_select(texts)
        middle = time.perf_counter()
        approximate = mbr_select(texts, aggregate=True)
        aggregate_s += time.perf_counter() - middle
        exact_s += middle - start
        same_index += exact.index == approximate.index
        same_text += texts[exact.index] == texts[approximate.index]
        regrets.append(float(exact.expected_scores[exact.index] - exact.expected_scores[approximate.index]))
    regret = np.array(regrets)
    data = str(folder.relative_to(REPO.parent) if folder == SHARED_DATA else folder.relative_to(REPO))
    row = {
        "data": f"{n_segments:,} segments x {len(systems)} systems",
        "segments": n_segments,
        "candidates": len(systems),
        "same_index_pct": round(100 * same_index / n_segments, 1),
        "same_text_pct": round(100 * same_text / n_segments, 1),
        "mean_regret": round(float(regret.mean()), 5),
        "max_regret": round(float(regret.max()), 4),
        "exact_s": round(exact_s, 3),
        "aggregate_s": round(aggregate_s, 3),
    }
    print(
        f"WMT17 {row['data']}: same candidate {row['same_index_pct']}% (same text {row['same_text_pct']}%), "
        f"mean regret {row['mean_regret']}, max {row['max_regret']}; exact {exact_s:.2f} s, aggregate {aggregate_s:.2f} s",
        flush=True,
    )
    return data, row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024, 4096])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    data, segments = source_segments()
    rows = [bench_size(n, segments, rng, args.repeat) for n in args.sizes]
    real_data, real = agreement()
    report = {  # schema 1 of benchmarks/report.py
        "schema": 1,
        "title": "MBR with reference aggregation against exact MBR (GLEU)",
        "order": 41,
        "date": time.strftime("%Y-%m-%d"),
        "command": "make bench-mbr",
        "machine": machine(),
        "notes": [
            f"Cost: candidates are variants of {data} system outputs for one source segment (about 30 13a "
            f"tokens), seed {args.seed}, and their own pseudo-references (equal weights); times are the best of "
            f"{args.repeat} runs of `mbr_select` on the texts, 13a tokenization included. Regret: the exact "
            "expected GLEU of the exact pick minus that of aggregation's pick. Exact MBR is `mbr_select`: the "
            "matrix (`pairwise_gleu`, also timed alone) and each row's weighted mean, exact and rounded once "
            "(integer limbs summed by float64 matrix products).",
            f"Agreement: every segment of {real_data}, its systems' translations as the candidates. Same text "
            "counts a pick of another candidate with the same translation as agreeing.",
        ],
        "tables": [
            {
                "caption": "Cost against exact MBR (N candidates, all N x N pairs for exact):",
                "columns": [
                    {"key": "n_candidates", "label": "N", "format": ","},
                    {"key": "exact_s", "label": "exact MBR", "format": ".4f", "unit": " s"},
                    {"key": "matrix_s", "label": "its N x N matrix alone", "format": ".4f", "unit": " s"},
                    {"key": "aggregate_s", "label": "aggregation", "format": ".4f", "unit": " s"},
                    {"key": "speedup", "label": "speed-up", "format": ".1f", "unit": "x"},
                    {"key": "same_choice", "label": "same choice"},
                    {"key": "regret", "label": "regret", "format": ".4f"},
                ],
                "rows": rows,
            },
            {
                "caption": "Agreement with exact MBR on real system outputs (WMT17 en-de):",
                "columns": [
                    {"key": "data", "label": "data"},
                    {"key": "same_index_pct", "label": "same candidate", "format": ".1f", "unit": " %"},
                    {"key": "same_text_pct", "label": "same text", "format": ".1f", "unit": " %"},
                    {"key": "mean_regret", "label": "mean regret", "format": ".5f"},
                    {"key": "max_regret", "label": "max regret", "format": ".4f"},
                    {"key": "exact_s", "label": "exact MBR, all segments", "format": ".2f", "unit": " s"},
                    {"key": "aggregate_s", "label": "aggregation, all segments", "format": ".2f", "unit": " s"},
                ],
                "rows": [real],
            },
        ],
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
