"""Pairwise GLEU for MBR decoding against the loops people run today, in the same process.

Candidates: N variants of real WMT17 en-de translations of one source segment of about
30 tokens (the 16 systems' outputs, each variant one of them with about 15% of its tokens
replaced by other tokens of those outputs, deleted or swapped with a neighbour), as
sampling gives MBR. All N x N pairs are scored by:

- ours: :func:`google_bleu.ids.pairwise_gleu` on the texts (13a tokenization included);
- nltk: a Python loop of ``sentence_gleu([reference], hypothesis)`` on pre-tokenized lists
  (13a, not timed), the exact oracle; every entry of ours is checked ``==`` against it;
- sacrebleu: a loop of ``sentence_bleu(hypothesis, [reference])`` on the texts: what MBR
  with BLEU costs today.

Where a loop would take minutes it runs on the first rows only (all N references each)
and its time is scaled to N rows; ``extrapolated`` says so. Times are the best of
``--repeat`` runs (loops: one run where extrapolated). With no data at ../shared/data the
bundled sample (4 systems) provides the base sentences. Writes
``benchmarks/results/pairwise.json``.

Usage: ``python benchmarks/bench_pairwise.py [--sizes 64 256 1024] [--loop-seconds 20]``
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.machine import cpu_model, load_average  # noqa: E402
from google_bleu import get_tokenizer  # noqa: E402
from google_bleu.ids import pairwise_gleu  # noqa: E402

SHARED_DATA = REPO.parent / "shared" / "data" / "wmt17_en_de"
tokenize_13a_batch = get_tokenizer("13a").tokenize_all  # 13a tokens of many lines
SAMPLE = REPO / "google_bleu" / "samples" / "wmt17_en_de"
RESULTS = REPO / "benchmarks" / "results" / "pairwise.json"
#: Per token of a variant: chance of a replacement, a deletion, a swap with the next token.
EDITS = (0.08, 0.04, 0.03)


def _read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8-sig").splitlines()


def source_segments(target_tokens: int = 30) -> tuple[str, list[list[list[str]]]]:
    """Per segment whose reference has ``target_tokens`` +- 3 13a tokens, the systems' token lists."""
    folder = SHARED_DATA if SHARED_DATA.is_dir() else SAMPLE
    systems = [tokenize_13a_batch(_read(path)) for path in sorted(folder.glob("sys_*.txt"))]
    reference = tokenize_13a_batch(_read(folder / "ref0.txt"))
    segments = [
        [system[i] for system in systems]
        for i, tokens in enumerate(reference)
        if abs(len(tokens) - target_tokens) <= 3 and all(system[i] for system in systems)
    ]
    return str(folder.relative_to(REPO.parent) if folder == SHARED_DATA else folder.relative_to(REPO)), segments


def candidates(outputs: list[list[str]], n: int, rng: np.random.Generator) -> list[str]:
    """``n`` sampled-like variants of one segment's system outputs, as texts."""
    vocabulary = sorted({token for output in outputs for token in output})
    texts = []
    for _ in range(n):
        tokens = list(outputs[rng.integers(len(outputs))])
        draws = rng.random((len(tokens), 3))
        out: list[str] = []
        for token, (replace, delete, _) in zip(tokens, draws):
            if delete < EDITS[1]:
                continue
            out.append(vocabulary[rng.integers(len(vocabulary))] if replace < EDITS[0] else token)
        for i in np.flatnonzero(draws[: max(len(out) - 1, 0), 2] < EDITS[2]).tolist():
            out[i], out[i + 1] = out[i + 1], out[i]
        texts.append(" ".join(out))
    return texts


def best(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def loop_rows(seconds_per_pair: float, n: int, budget: float) -> int:
    """Rows of an ``n x n`` loop that fit in ``budget`` seconds (all of them, or at least 1)."""
    return int(min(n, max(1, budget / (seconds_per_pair * n))))


def machine() -> dict:
    cpu = cpu_model()
    import nltk
    import sacrebleu
    import torch

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "nltk": nltk.__version__,
        "sacrebleu": sacrebleu.__version__,
        "os": platform.platform(),
        "load average": load_average(),
        "gpu": "none",
    }


def bench_size(n: int, segments: list, rng: np.random.Generator, repeat: int, loop_seconds: float) -> dict:
    from nltk.translate.gleu_score import sentence_gleu
    from sacrebleu.metrics.bleu import BLEU

    outputs = segments[rng.integers(len(segments))]
    texts = candidates(outputs, n, rng)
    tokens = tokenize_13a_batch(texts)

    pairwise_gleu(texts[:8])  # warm-up (imports)
    ours_s, scores = best(lambda: pairwise_gleu(texts), repeat)

    # nltk: measure a few rows first to size the loop to the budget.
    def nltk_rows(rows: int) -> list[list[float]]:
        return [[sentence_gleu([ref], hyp) for ref in tokens] for hyp in tokens[:rows]]

    probe_s, _ = best(lambda: nltk_rows(1), 1)
    rows = loop_rows(probe_s / n, n, loop_seconds)
    nltk_s, expected = best(lambda: nltk_rows(rows), repeat if rows == n else 1)
    identical = bool((scores[:rows] == np.array(expected)).all())
    nltk_full_s = nltk_s * n / rows

    bleu = BLEU(effective_order=True)  # sacrebleu.sentence_bleu's settings

    def sacrebleu_rows(count: int) -> None:
        for hyp in texts[:count]:
            for ref in texts:
                bleu.sentence_score(hyp, [ref])

    probe_s, _ = best(lambda: sacrebleu_rows(1), 1)
    bleu_rows = loop_rows(probe_s / n, n, loop_seconds)
    bleu_s, _ = best(lambda: sacrebleu_rows(bleu_rows), repeat if bleu_rows == n else 1)
    bleu_full_s = bleu_s * n / bleu_rows
    mean_tokens = float(np.mean([len(t) for t in tokens]))
    row = {
        "n_candidates": n,
        "pairs": n * n,
        "mean_tokens": round(mean_tokens, 1),
        "distinct_candidates": len(set(texts)),
        "ours_s": round(ours_s, 5),
        "nltk_loop_s": round(nltk_full_s, 3),
        "nltk_rows_timed": rows,
        "nltk_extrapolated": rows < n,
        "sacrebleu_sentence_bleu_loop_s": round(bleu_full_s, 3),
        "sacrebleu_rows_timed": bleu_rows,
        "sacrebleu_extrapolated": bleu_rows < n,
        "speedup_vs_nltk": round(nltk_full_s / ours_s, 1),
        "speedup_vs_sacrebleu": round(bleu_full_s / ours_s, 1),
        "identical_to_nltk_on_timed_rows": identical,
    }
    print(
        f"N={n:5d} ({n * n:,} pairs, {mean_tokens:.1f} tokens): ours {ours_s * 1e3:8.1f} ms | "
        f"nltk {nltk_full_s:8.2f} s{' (extrapolated)' if rows < n else ''} = {row['speedup_vs_nltk']}x | "
        f"sacrebleu sentence_bleu {bleu_full_s:8.2f} s{' (extrapolated)' if bleu_rows < n else ''} = "
        f"{row['speedup_vs_sacrebleu']}x | identical: {identical}",
        flush=True,
    )
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--loop-seconds", type=float, default=20.0, help="time budget of each loop; beyond it rows are extrapolated"
    )
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    data, segments = source_segments()
    rows = [bench_size(n, segments, rng, args.repeat, args.loop_seconds) for n in args.sizes]
    report = {  # schema 1 of benchmarks/report.py
        "schema": 1,
        "title": "Pairwise GLEU for MBR decoding (all N x N pairs)",
        "order": 40,
        "date": time.strftime("%Y-%m-%d"),
        "command": "make bench-pairwise",
        "machine": machine(),
        "notes": [
            f"Candidates: variants of {data} system outputs for one source segment (about 30 13a tokens), "
            f"seed {args.seed}. Our time includes 13a tokenization. Loops that would take minutes are timed on a "
            "subset of rows and extrapolated; every timed entry is compared with nltk (`==`).",
            "CPU only: no GPU timings were taken in this run.",
        ],
        "tables": [
            {
                "columns": [
                    {"key": "n_candidates", "label": "N", "format": ","},
                    {"key": "pairs", "label": "pairs", "format": ","},
                    {"key": "ours_s", "label": "pairwise_gleu", "format": ".4f", "unit": " s"},
                    {"key": "nltk_loop_s", "label": "nltk loop", "format": ".2f", "unit": " s"},
                    {"key": "speedup_vs_nltk", "label": "vs nltk", "format": ".0f", "unit": "x"},
                    {"key": "sacrebleu_sentence_bleu_loop_s", "label": "sacrebleu BLEU loop", "format": ".2f", "unit": " s"},
                    {"key": "speedup_vs_sacrebleu", "label": "vs sacrebleu", "format": ".0f", "unit": "x"},
                    {"key": "nltk_extrapolated", "label": "extrapolated"},
                    {"key": "identical_to_nltk_on_timed_rows", "label": "identical"},
                ],
                "rows": rows,
            }
        ],
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0 if all(row["identical_to_nltk_on_timed_rows"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
