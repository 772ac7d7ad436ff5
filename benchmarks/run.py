"""``make bench``: anchors and ours on the same data in one run; table, JSON and plot.

Anchors: nltk ``corpus_gleu`` (token lists), sacrebleu's ``Tokenizer13a`` (+ split), and
an evaluate module doing what HF's ``google_bleu`` does (``benchmarks/hf_google_bleu``:
sacrebleu 13a + nltk). Every speed is a ratio against its anchor measured in this run;
every result is checked to be identical (``==``) to the anchor's.

Usage: ``python -m benchmarks.run [--quick] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.data import text_corpus, token_corpus
from benchmarks.machine import cpu_model

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
SAMPLE = REPO / "google_bleu" / "samples" / "wmt17_en_de"
HF_MODULE = REPO / "benchmarks" / "hf_google_bleu"
OUR_MODULE = REPO / "google_bleu"


def _clear_sacrebleu_caches() -> None:
    # sacrebleu's 13a keeps an lru_cache of 65,536 lines per class: empty it before each
    # anchor run so no run profits from an earlier one.
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    Tokenizer13a.__call__.cache_clear()
    TokenizerRegexp.__call__.cache_clear()


def timed(function, repeat: int):
    """Best wall time of ``repeat`` runs (caches cleared, garbage collected before each)."""
    times, result = [], None
    for _ in range(repeat):
        _clear_sacrebleu_caches()
        gc.collect()
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def timed_pair(anchor, ours, repeat: int):
    """:func:`timed` for an anchor and ours, runs interleaved so that both see the same load.

    Returns ``(anchor seconds, anchor result, our seconds, our result)``.
    """
    anchor_times, ours_times = [], []
    anchor_result = ours_result = None
    for _ in range(repeat):
        seconds, anchor_result = timed(anchor, 1)
        anchor_times.append(seconds)
        seconds, ours_result = timed(ours, 1)
        ours_times.append(seconds)
    return min(anchor_times), anchor_result, min(ours_times), ours_result


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


class Report:
    def __init__(self) -> None:
        self.rows: list[dict] = []
        self.memory: list[dict] = []
        self.growth: list[dict] = []
        self.cold: dict = {}

    def add(self, name: str, data: str, anchor: str, anchor_s: float, ours_s: float, identical: bool) -> None:
        row = {
            "benchmark": name,
            "data": data,
            "anchor": anchor,
            "anchor_s": anchor_s,
            "ours_s": ours_s,
            "speedup": anchor_s / ours_s,
            "identical": identical,
        }
        self.rows.append(row)
        print(
            f"{name:34s} {data:34s} {anchor:28s} {anchor_s:8.3f} s {ours_s:8.3f} s "
            f"{row['speedup']:6.1f}x identical={identical}",
            flush=True,
        )


# -- core on token lists ------------------------------------------------------------
def bench_core(report: Report, n_pairs: int, repeat: int) -> None:
    from nltk.translate import gleu_score

    from google_bleu import corpus_gleu, get_tokenizer

    corpora = []
    for n_refs in (1, 4):
        hyps, refs = token_corpus(n_pairs, n_refs)
        corpora.append((hyps, refs, f"{n_pairs:,} pairs, {n_refs} ref{'s' if n_refs > 1 else ''}, synthetic"))
    # Real data: every line tokenized on its own (13a), so no two token objects are shared.
    tokenize = get_tokenizer("13a")
    predictions, references = _wmt17_pairs()
    hyps = [tokenize(line) for line in predictions]
    refs = [[tokenize(line) for line in lines] for lines in references]
    corpora.append((hyps, refs, f"{len(hyps):,} pairs, WMT17 en-de, 13a tokens"))
    for hyps, refs, data in corpora:
        nltk_s, expected, ours_s, got = timed_pair(
            lambda h=hyps, r=refs: gleu_score.corpus_gleu(r, h), lambda h=hyps, r=refs: corpus_gleu(r, h), repeat
        )
        report.add("corpus_gleu on token lists", data, "nltk corpus_gleu", nltk_s, ours_s, got == expected)


def _wmt17_pairs() -> tuple[list[str], list[list[str]]]:
    """Every WMT17 en-de system output with its reference (the bundled sample without ../shared)."""
    wmt = SHARED_DATA / "wmt17_en_de" if SHARED_DATA.is_dir() else SAMPLE
    refs = read_lines(wmt / "ref0.txt")
    predictions, references = [], []
    for system in sorted(wmt.glob("sys_*.txt")):
        predictions += read_lines(system)
        references += [[ref] for ref in refs]
    return predictions, references


# -- 13a tokenizer ------------------------------------------------------------------
def _real_lines() -> list[str]:
    lines: list[str] = []
    if SHARED_DATA.is_dir():
        for path in sorted(SHARED_DATA.glob("*/*.txt")):
            if not path.name.startswith(("PROVENANCE", "README")):
                lines += read_lines(path)
    else:
        for path in sorted((REPO / "google_bleu" / "samples").glob("*/*.txt")):
            lines += read_lines(path)
    return lines


def bench_tokenizer(report: Report, n_lines: int, repeat: int) -> None:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from google_bleu import get_tokenizer

    ours = get_tokenizer("13a")
    predictions, references = text_corpus(n_lines // 2)
    generated = predictions + [refs[0] for refs in references]
    for lines, data in (
        (generated, f"{len(generated):,} lines, synthetic"),
        (_real_lines(), f"{len(_real_lines()):,} lines, all WMT data"),
    ):
        sacre = Tokenizer13a()
        sacre_s, expected, ours_s, got = timed_pair(
            lambda lines=lines, sacre=sacre: [sacre(line).split() for line in lines],
            lambda lines=lines: ours.tokenize_all(lines),
            repeat,
        )
        report.add("13a tokenizer", data, "sacrebleu Tokenizer13a", sacre_s, ours_s, got == expected)


# -- evaluate end to end ------------------------------------------------------------
def bench_end_to_end(report: Report, n_pairs: int, repeat: int) -> None:
    import evaluate

    ours = evaluate.load(str(OUR_MODULE))
    hf = evaluate.load(str(HF_MODULE))
    predictions, references = text_corpus(n_pairs)
    datasets_ = [(predictions, references, f"{n_pairs:,} string pairs, synthetic")]
    real_predictions, real_references = _wmt17_pairs()
    datasets_.append((real_predictions, real_references, f"{len(real_predictions):,} pairs, WMT17 en-de systems"))
    for preds, refs_, data in datasets_:
        hf_s, expected, ours_s, got = timed_pair(
            lambda p=preds, r=refs_: hf.compute(predictions=p, references=r)["google_bleu"],
            lambda p=preds, r=refs_: ours.compute(predictions=p, references=r)["google_bleu"],
            repeat,
        )
        report.add("evaluate.load(...).compute, 13a", data, "HF google_bleu pipeline", hf_s, ours_s, got == expected)


# -- cold start ---------------------------------------------------------------------
_COLD = """
import json, sys, time
import evaluate
start = time.perf_counter()
metric = evaluate.load(sys.argv[1])
read = lambda p: open(p, encoding="utf-8").read().split("\\n")[:-1]
predictions, references = read(sys.argv[2]), read(sys.argv[3])
score = metric.compute(predictions=predictions, references=[[r] for r in references])["google_bleu"]
print(json.dumps([score, time.perf_counter() - start]))
"""


def bench_cold_start(report: Report, repeat: int) -> None:
    # The full newstest2017 (3,004 segments) when the shared data is there, else the sample.
    folder = SHARED_DATA / "wmt17_en_de" if SHARED_DATA.is_dir() else SAMPLE
    hyp = folder / "sys_online-B.0.txt"
    if not hyp.exists():
        hyp = sorted(folder.glob("sys_*.txt"))[0]
    ref = folder / "ref0.txt"
    env = dict(os.environ, HF_HOME=tempfile.mkdtemp(prefix="gleu_bench_hf_"))
    env.update(HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    times: dict[str, list[float]] = {"hf": [], "ours": []}
    after_import: dict[str, list[float]] = {"hf": [], "ours": []}
    scores: dict[str, float] = {}
    modules = {"hf": HF_MODULE, "ours": OUR_MODULE}
    for attempt in range(repeat + 1):
        for name, module in modules.items():
            start = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-c", _COLD, str(module), str(hyp), str(ref)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
                cwd=tempfile.gettempdir(),
            )
            elapsed = time.perf_counter() - start
            scores[name], seconds = json.loads(out.stdout.strip().splitlines()[-1])
            if attempt:  # the first round copies the modules into the fresh cache
                times[name].append(elapsed)
                after_import[name].append(seconds)
    n = len(read_lines(ref))
    same = scores["hf"] == scores["ours"]
    median = statistics.median
    data = f"{n:,} pairs, WMT17 en-de"
    report.add(
        "cold start: new process, load, score",
        data,
        "HF google_bleu pipeline",
        median(times["hf"]),
        median(times["ours"]),
        same,
    )
    # Both processes first spend the same seconds in `import evaluate`; this row is the rest.
    report.add(
        "cold start after `import evaluate`",
        data,
        "HF google_bleu pipeline",
        median(after_import["hf"]),
        median(after_import["ours"]),
        same,
    )
    report.cold = {"hf_s": times["hf"], "ours_s": times["ours"], "after_import": after_import}


# -- memory and growth --------------------------------------------------------------
_MEMORY = """
import json, sys
from benchmarks.memory import peak_extra_mb
kind, n = sys.argv[1], int(sys.argv[2])
print(json.dumps(peak_extra_mb(kind, n)))
"""


def bench_memory(report: Report, sizes: list[int]) -> None:
    for kind in ("tokens", "text"):
        for n in sizes:
            out = subprocess.run(
                [sys.executable, "-c", _MEMORY, kind, str(n)],
                capture_output=True,
                text=True,
                check=True,
                cwd=REPO,
            )
            row = json.loads(out.stdout.strip().splitlines()[-1])
            report.memory.append(row)
            print(
                f"memory {kind:6s} {n:>9,} pairs: input {row['input_mb']:7.1f} MB, "
                f"extra peak {row['extra_peak_mb']:6.1f} MB, {row['seconds']:6.2f} s",
                flush=True,
            )


def bench_growth(report: Report, sizes: list[int], nltk_max: int, repeat: int) -> None:
    from nltk.translate import gleu_score

    from benchmarks.memory import corpus
    from google_bleu import corpus_gleu

    nltk_rate = None
    for n in sizes:
        hyps, refs = corpus("tokens", n)
        ours_s, got = timed(lambda h=hyps, r=refs: corpus_gleu(r, h), repeat if n < 10**6 else 1)
        row = {"pairs": n, "ours_s": ours_s}
        if n <= nltk_max:
            nltk_s, expected = timed(lambda h=hyps, r=refs: gleu_score.corpus_gleu(r, h), repeat if n < 10**5 else 1)
            assert got == expected, (n, got, expected)
            row.update(nltk_s=nltk_s, nltk_measured=True)
            nltk_rate = nltk_s / n
        else:
            row.update(nltk_s=nltk_rate * n, nltk_measured=False)
        report.growth.append(row)
        measured = "" if row["nltk_measured"] else " (extrapolated)"
        print(f"growth {n:>9,} pairs: ours {ours_s:8.3f} s, nltk {row['nltk_s']:8.3f} s{measured}", flush=True)
        del hyps, refs
        gc.collect()


def plot_growth(report: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairs = [row["pairs"] for row in report.growth]
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    ax.loglog(pairs, [row["ours_s"] for row in report.growth], "o-", label="google_bleu.corpus_gleu")
    measured = [row for row in report.growth if row["nltk_measured"]]
    extrapolated = [row for row in report.growth if not row["nltk_measured"]]
    ax.loglog([r["pairs"] for r in measured], [r["nltk_s"] for r in measured], "s-", label="nltk corpus_gleu")
    if extrapolated:
        tail = [measured[-1], *extrapolated]
        ax.loglog(
            [r["pairs"] for r in tail], [r["nltk_s"] for r in tail], "s--", color="C1", label="nltk (extrapolated)"
        )
    ax.set_xlabel("segment pairs (about 25 tokens, 1 reference)")
    ax.set_ylabel("seconds")
    ax.set_title("Corpus GLEU on token lists: time against corpus size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def machine() -> dict:
    cpu = cpu_model()
    import nltk
    import sacrebleu

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "nltk": nltk.__version__,
        "sacrebleu": sacrebleu.__version__,
        "os": platform.platform(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def markdown(report: Report, info: dict) -> str:
    lines = [
        "| benchmark | data | anchor | anchor | ours | speed-up | identical |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for row in report.rows:
        lines.append(
            f"| {row['benchmark']} | {row['data']} | {row['anchor']} | {row['anchor_s']:.2f} s | "
            f"{row['ours_s']:.2f} s | {row['speedup']:.1f}x | {'yes' if row['identical'] else 'NO'} |"
        )
    lines += ["", "| pairs | input | input RSS | extra peak RSS | time |", "|---:|---|---:|---:|---:|"]
    for row in report.memory:
        lines.append(
            f"| {row['pairs']:,} | {row['kind']} | {row['input_mb']:.0f} MB | {row['extra_peak_mb']:.0f} MB | "
            f"{row['seconds']:.2f} s |"
        )
    lines += ["", "| pairs | ours | nltk | ratio |", "|---:|---:|---:|---:|"]
    for row in report.growth:
        note = "" if row["nltk_measured"] else " (extrapolated)"
        lines.append(
            f"| {row['pairs']:,} | {row['ours_s']:.3f} s | {row['nltk_s']:.2f} s{note} | "
            f"{row['nltk_s'] / row['ours_s']:.1f}x |"
        )
    load = info["load_average"]
    load_text = ", ".join(f"{value:.2f}" for value in load) if load else "unknown"
    lines += [
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}, numpy {info['numpy']}, "
        f"nltk {info['nltk']}, sacrebleu {info['sacrebleu']}; load average at start {load_text}.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run, not for the README)")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results"), help="folder for the outputs")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="gleu_bench_hf_"))
    for flag in ("HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
        os.environ[flag] = "1"
    n = 2_000 if args.quick else 100_000
    repeat = 1 if args.quick else 3
    info = machine()
    report = Report()
    start = time.perf_counter()
    bench_core(report, n, repeat)
    bench_tokenizer(report, n, repeat)
    bench_end_to_end(report, n, repeat)
    bench_cold_start(report, 1 if args.quick else 3)
    sizes = [1_000, 10_000] if args.quick else [10_000, 100_000, 1_000_000]
    bench_memory(report, sizes)
    growth_sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]
    bench_growth(report, growth_sizes, nltk_max=10_000 if args.quick else 100_000, repeat=repeat)
    plot_growth(report, out / "growth.png")
    info["seconds"] = time.perf_counter() - start
    table = markdown(report, info)
    (out / "table.md").write_text(table, encoding="utf-8")
    (out / "results.json").write_text(
        json.dumps(
            {
                "machine": info,
                "rows": report.rows,
                "memory": report.memory,
                "growth": report.growth,
                "cold": report.cold,
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    print()
    print(table)
    print(f"wrote {out / 'table.md'}, {out / 'results.json'}, {out / 'growth.png'} in {info['seconds']:.0f} s")
    return 0 if all(row["identical"] for row in report.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
