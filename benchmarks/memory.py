"""Peak extra memory of scoring, measured in the process that scores (one process a size).

The input is built first; then the kernel's peak-RSS mark is reset (``/proc/self/clear_refs``)
and the peak reached while scoring is read back from ``/proc/self/status``.
Corpora above 100k pairs repeat a 100k-pair corpus (list repetition: the input costs
little memory, while every segment is still counted; tokenization dedupes lines only
within a chunk of about 2M characters, which holds no repeats).
"""

from __future__ import annotations

import gc
import time
from functools import lru_cache
from pathlib import Path

from benchmarks.data import text_corpus, token_corpus

BASE = 100_000


@lru_cache(maxsize=2)
def _base(kind: str, n: int):
    return token_corpus(n) if kind == "tokens" else text_corpus(n)


def corpus(kind: str, n: int):
    """``n`` pairs of token lists (``kind="tokens"``) or strings (``"text"``), one reference."""
    if n <= BASE:
        return _base(kind, n)
    hyps, refs = _base(kind, BASE)
    copies, rest = divmod(n, BASE)
    return hyps * copies + hyps[:rest], refs * copies + refs[:rest]


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def peak_extra_mb(kind: str, n: int) -> dict:
    """Scores ``n`` pairs and returns input size, extra peak RSS and time."""
    from google_bleu import GLEU, corpus_gleu

    gc.collect()
    baseline = _status_kb("VmRSS")
    hyps, refs = corpus(kind, n)
    gc.collect()
    before = _status_kb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
    start = time.perf_counter()
    if kind == "tokens":
        score = corpus_gleu(refs, hyps)
    else:
        score = GLEU().stats(hyps, refs).score()
    seconds = time.perf_counter() - start
    peak = _status_kb("VmHWM")
    return {
        "kind": kind,
        "pairs": n,
        "input_mb": (before - baseline) / 1024,
        "extra_peak_mb": (peak - before) / 1024,
        "seconds": seconds,
        "score": score,
    }
