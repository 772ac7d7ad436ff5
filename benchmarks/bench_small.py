"""One sample at a time to thousands at once: per-sample cost against the nltk loop.

RL frameworks and evaluation harnesses call a reward once per sample; batch scorers call it
with everything at once. This measures the whole curve on real WMT17 English-German pairs
(``../shared/data/wmt17_en_de``, every system against the human reference; the bundled
sample without it), each pair used once per timed pass:

- text: ``GLEU().sentence_score(h, [r])`` at B = 1 and ``GLEU().sentence_scores(hs, rs)``
  at B > 1, against a loop of nltk's ``sentence_gleu`` on sacrebleu's 13a tokens. sacrebleu
  caches each tokenized line (``lru_cache``): the "warm" anchor has every line in that cache
  (as when the same text is scored again), the "fresh" one has it emptied before each pass
  (new text, as in a rollout); ours keeps no cache, so it meets fresh text in both.
- ids: ``google_bleu.ids.batch_sentence_gleu`` on lists of token ids (the 13a tokens
  numbered), against nltk's ``sentence_gleu`` on the same id lists.
- the two counting strategies of the engine, each forced, on the same text batches: where
  numpy becomes cheaper than plain Python is the crossover the engine uses
  (``engine.SMALL_TOKENS``, tokens of a call's inputs together), each forced with
  ``engine.strategy``.

Every score is compared with the anchor's (``==``). Each configuration runs ``--repeats``
times, alternating ours and the anchor, and keeps the fastest pass (the machine is shared).

Usage: ``python benchmarks/bench_small.py [--repeats 5] [--samples 2048]``. Writes
``benchmarks/results/small.json`` and ``benchmarks/results/small.png``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere

from benchmarks.machine import cpu_model, load_average  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
SHARED = REPO.parent / "shared" / "data" / "wmt17_en_de"
SAMPLE = REPO / "google_bleu" / "samples" / "wmt17_en_de"
SIZES = (1, 2, 4, 8, 16, 64, 256, 4096)
CROSSOVER_SIZES = (1, 4, 16, 32, 64, 128, 256, 512)


def read_lines(path: Path) -> list[str]:
    return path.read_text("utf-8").split("\n")[:-1]


def wmt_pairs(seed: int = 0) -> tuple[str, list[tuple[str, str]]]:
    folder = SHARED if SHARED.is_dir() else SAMPLE
    reference = read_lines(folder / "ref0.txt")
    pairs = [(h, r) for path in sorted(folder.glob("sys_*.txt")) for h, r in zip(read_lines(path), reference)]
    random.Random(seed).shuffle(pairs)
    # The bundled sample (1,200 pairs) is repeated up to the largest batch: every pass needs
    # max(SIZES) pairs.
    pairs *= -(-max(SIZES) // len(pairs))
    return str(folder.relative_to(REPO.parent)), pairs


def best_of(repeats: int, *calls):
    """The fastest of ``repeats`` passes of each call, alternating them; and each call's result."""
    best = [float("inf")] * len(calls)
    results = [None] * len(calls)
    for _ in range(repeats):
        for index, call in enumerate(calls):
            start = time.perf_counter()
            results[index] = call()
            best[index] = min(best[index], time.perf_counter() - start)
    return best, results


def bench_text(pairs, repeats: int, n_samples: int) -> list[dict]:
    from nltk.translate.gleu_score import sentence_gleu
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    from google_bleu import GLEU

    scorer = GLEU()
    tokenize = Tokenizer13a()
    rows = []
    for size in SIZES:
        total = max(size, n_samples)
        batches = [pairs[start : start + size] for start in range(0, total, size)]

        def ours(batches=batches, size=size):
            if size == 1:
                return [scorer.sentence_score(h, [r]).score for ((h, r),) in batches]
            return [score for batch in batches for score in scorer.sentence_scores(*zip(*batch))]

        def anchor(batches=batches):
            return [sentence_gleu([tokenize(r).split()], tokenize(h).split()) for batch in batches for h, r in batch]

        def fresh(batches=batches):
            Tokenizer13a.__call__.cache_clear()
            TokenizerRegexp.__call__.cache_clear()
            return anchor(batches)

        anchor()  # every line in sacrebleu's cache for the warm anchor
        (ours_s, warm_s), (got, expected) = best_of(repeats, ours, anchor)
        (fresh_s,), (fresh_scores,) = best_of(max(1, repeats // 2), fresh)
        n = len(got)
        rows.append(
            {
                "batch": size,
                "ours_us": 1e6 * ours_s / n,
                "warm_us": 1e6 * warm_s / n,
                "fresh_us": 1e6 * fresh_s / n,
                "vs_warm": warm_s / ours_s,
                "vs_fresh": fresh_s / ours_s,
                "identical": got == expected == fresh_scores,
            }
        )
        print(f"text  B={size:5d} {rows[-1]}", flush=True)
    return rows


def bench_ids(pairs, repeats: int, n_samples: int) -> list[dict]:
    from nltk.translate.gleu_score import sentence_gleu

    from google_bleu import get_tokenizer
    from google_bleu.ids import batch_sentence_gleu

    tokenize, vocabulary = get_tokenizer("13a"), {}
    ids = [
        tuple([vocabulary.setdefault(token, len(vocabulary)) for token in tokenize(text)] for text in pair)
        for pair in pairs[: max(SIZES[-1], n_samples)]
    ]
    rows = []
    for size in SIZES:
        total = max(size, n_samples)
        batches = [ids[start : start + size] for start in range(0, total, size)]

        def ours(batches=batches):
            return [s for batch in batches for s in batch_sentence_gleu([h for h, _ in batch], [[r] for _, r in batch]).tolist()]

        def anchor(batches=batches):
            return [sentence_gleu([r], h) for batch in batches for h, r in batch]

        (ours_s, anchor_s), (got, expected) = best_of(repeats, ours, anchor)
        n = len(got)
        rows.append(
            {
                "batch": size,
                "tokens": sum(len(h) + len(r) for h, r in ids[:total]) / n,
                "ours_us": 1e6 * ours_s / n,
                "nltk_us": 1e6 * anchor_s / n,
                "speedup": anchor_s / ours_s,
                "identical": got == expected,
            }
        )
        print(f"ids   B={size:5d} {rows[-1]}", flush=True)
    return rows


def bench_crossover(pairs, repeats: int, n_samples: int) -> tuple[list[dict], int | None]:
    """Per-sample cost of each counting strategy, forced, on token batches of growing size; and
    the smallest batch (in tokens) where numpy is the cheaper."""
    import google_bleu.counting as engine
    from google_bleu import get_tokenizer, gleu_stats

    tokenize = get_tokenizer("13a")
    tokens = [(tokenize(h), [tokenize(r)]) for h, r in pairs[: max(CROSSOVER_SIZES[-1], n_samples)]]
    rows = []
    for size in CROSSOVER_SIZES:
        total = max(size, n_samples)
        batches = [tokens[start : start + size] for start in range(0, total, size)]

        def count(strategy, batches=batches):
            with engine.strategy(strategy):
                return [gleu_stats(*zip(*batch)).rows.tolist() for batch in batches]

        (python_s, numpy_s), (a, b) = best_of(repeats, lambda: count("python"), lambda: count("numpy"))
        n_tokens = sum(len(h) + len(r[0]) for h, r in tokens[:total]) / len(batches)
        rows.append(
            {
                "batch": size,
                "tokens": round(n_tokens),
                "python_us": 1e6 * python_s / total,
                "numpy_us": 1e6 * numpy_s / total,
                "identical": a == b,
            }
        )
        print(f"cross B={size:5d} {rows[-1]}", flush=True)
    cheaper = [row["tokens"] for row in rows if row["numpy_us"] < row["python_us"]]
    return rows, (min(cheaper) if cheaper else None)


def bench_by_order(pairs, repeats: int) -> list[dict]:
    """``corpus_score(..., by_order=True)`` against ``corpus_score`` on the same text: the
    orders' figures come from the same tokenization and walk, so the ratio is their cost."""
    from google_bleu import GLEU

    scorer, rows = GLEU(), []
    for size in (300, 3000, 30000):
        hyps, refs = [h for h, _ in pairs[:size]], [r for _, r in pairs[:size]]
        (plain, by_order), (score, ordered) = best_of(
            max(repeats, 7),
            lambda h=hyps, r=refs: scorer.corpus_score(h, r),
            lambda h=hyps, r=refs: scorer.corpus_score(h, r, by_order=True),
        )
        rows.append({
            "segments": len(hyps), "plain_ms": plain * 1e3, "by_order_ms": by_order * 1e3, "ratio": by_order / plain,
            "identical": ordered.score == score.score,
        })
    return rows


def plot(text: list[dict], ids: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    sizes = [row["batch"] for row in text]
    ax.loglog(sizes, [row["ours_us"] for row in text], "o-", label="ours, text (13a)")
    ax.loglog(sizes, [row["warm_us"] for row in text], "s--", label="nltk + sacrebleu 13a, lines cached")
    ax.loglog(sizes, [row["fresh_us"] for row in text], "s:", label="nltk + sacrebleu 13a, new lines")
    ax.loglog(sizes, [row["ours_us"] for row in ids], "^-", label="ours, token ids")
    ax.loglog(sizes, [row["nltk_us"] for row in ids], "v--", label="nltk, token ids")
    ax.set_xlabel("samples per call (B)")
    ax.set_ylabel("microseconds per sample")
    ax.set_title("Sentence GLEU per sample, one at a time to thousands per call")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--samples", type=int, default=2048, help="samples timed per batch size (at least B)")
    args = parser.parse_args(argv)
    import nltk
    import numpy
    import sacrebleu

    import google_bleu.counting as engine

    data, pairs = wmt_pairs()
    load = load_average()
    start = time.perf_counter()
    text = bench_text(pairs, args.repeats, args.samples)
    ids = bench_ids(pairs, args.repeats, args.samples)
    crossover, measured = bench_crossover(pairs, args.repeats, args.samples)
    by_order = bench_by_order(pairs, args.repeats)
    seconds = time.perf_counter() - start
    RESULTS.mkdir(parents=True, exist_ok=True)
    plot(text, ids, RESULTS / "small.png")
    result = {
        "schema": 1,
        "title": "One sample at a time: per-sample cost from B = 1 to 4,096",
        "order": 12,
        "date": datetime.date.today().isoformat(),
        "command": "make bench-small",
        "machine": {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": numpy.__version__,
            "nltk": nltk.__version__,
            "sacrebleu": sacrebleu.__version__,
            "load average": load,
            "data": data,
            "seconds": round(seconds),
        },
        "notes": [
            "Microseconds per sample (a pair of a hypothesis and its reference), the fastest of "
            f"{args.repeats} passes over {args.samples:,} samples (B of them when B is larger); "
            "B = 1 is GLEU().sentence_score, B > 1 GLEU().sentence_scores. The warm anchor finds "
            "every line in sacrebleu's tokenizer cache; the fresh one tokenizes each line anew, as "
            "ours always does. Every score equals the anchor's (==).",
            f"Counting strategies, each forced on the same 13a token batches: numpy was first the "
            f"cheaper at {measured} tokens a call; the engine counts up to engine.SMALL_TOKENS = "
            f"{engine.SMALL_TOKENS:,} tokens in plain Python.",
        ],
        "figures": [{"path": "small.png", "caption": "Per-sample cost against samples per call (log-log)."}],
        "tables": [
            {
                "caption": "Text (13a), sentence GLEU per sample",
                "columns": [
                    {"key": "batch", "label": "B", "format": ","},
                    {"key": "ours_us", "label": "ours", "format": ".1f", "unit": " µs"},
                    {"key": "warm_us", "label": "nltk + 13a, warm", "format": ".1f", "unit": " µs"},
                    {"key": "fresh_us", "label": "nltk + 13a, fresh", "format": ".1f", "unit": " µs"},
                    {"key": "vs_warm", "label": "x warm", "format": ".1f", "unit": "x"},
                    {"key": "vs_fresh", "label": "x fresh", "format": ".1f", "unit": "x"},
                    {"key": "identical", "label": "identical"},
                ],
                "rows": text,
            },
            {
                "caption": "Token ids (lists), sentence GLEU per sample",
                "columns": [
                    {"key": "batch", "label": "B", "format": ","},
                    {"key": "tokens", "label": "ids a pair", "format": ".0f"},
                    {"key": "ours_us", "label": "ours", "format": ".1f", "unit": " µs"},
                    {"key": "nltk_us", "label": "nltk", "format": ".1f", "unit": " µs"},
                    {"key": "speedup", "label": "speed-up", "format": ".1f", "unit": "x"},
                    {"key": "identical", "label": "identical"},
                ],
                "rows": ids,
            },
            {
                "caption": "The two counting strategies, forced, per sample (13a token lists)",
                "columns": [
                    {"key": "batch", "label": "B", "format": ","},
                    {"key": "tokens", "label": "tokens a call", "format": ","},
                    {"key": "python_us", "label": "plain Python", "format": ".1f", "unit": " µs"},
                    {"key": "numpy_us", "label": "numpy", "format": ".1f", "unit": " µs"},
                    {"key": "identical", "label": "identical"},
                ],
                "rows": crossover,
            },
            {
                "caption": "Every order's figures too: corpus_score(..., by_order=True) against corpus_score (13a, orders 1-4)",
                "columns": [
                    {"key": "segments", "label": "segments", "format": ","},
                    {"key": "plain_ms", "label": "corpus_score", "format": ".1f", "unit": " ms"},
                    {"key": "by_order_ms", "label": "by_order=True", "format": ".1f", "unit": " ms"},
                    {"key": "ratio", "label": "cost", "format": ".2f", "unit": "x"},
                    {"key": "identical", "label": "same corpus score"},
                ],
                "rows": by_order,
            },
        ],
        "crossover_tokens": measured,
    }
    (RESULTS / "small.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS / 'small.json'} and {RESULTS / 'small.png'} in {seconds:.0f} s")
    identical = all(row["identical"] for rows in (text, ids, crossover, by_order) for row in rows)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
