"""Command-line tool ``google-bleu`` (also ``python -m google_bleu``), in sacrebleu's habits.

    google-bleu REF [REF ...] -i HYP [HYP ...]     several REF files = several references
    google-bleu REF < HYP                           one system from standard input
    google-bleu REF -i HYP --confidence             95% bootstrap interval (seed echoed)
    google-bleu REF -i BASE SYS1 SYS2 --paired-bs   paired tests against the first system
    google-bleu REF -i HYP --sentence-level         one score a line

A thin adapter over :func:`google_bleu.text_stats`, :class:`google_bleu.GleuStats` and
:mod:`google_bleu.significance`: it reads files, calls them and prints. Scores are printed
on sacrebleu's 0-100 scale, rounded to ``--width`` decimals; the JSON output also carries
the exact integer totals, so every printed number can be recomputed exactly.

Files are read as sacrebleu's CLI reads them: UTF-8, split on ``\\n`` only, trailing
whitespace stripped from each line, and a byte-order mark (U+FEFF) at the start of a file
kept as part of line 1 (sacrebleu opens files as ``utf-8``, not ``utf-8-sig``); the tool
warns on stderr when it sees one. Every user error ends with a one-line message on stderr
and exit status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO, TextIO

from .parallel import count_lines, file_stats
from .scorer import GLEU
from .signature import signature
from .significance import (
    DEFAULT_N_BOOTSTRAP,
    DEFAULT_N_RANDOMIZATION,
    DEFAULT_SEED,
    bootstrap_ci,
    check_n_samples,
    check_seed,
    paired_test_stats,
)
from .stats import GleuStats
from .tokenizers import DEFAULT_TOKENIZER, SACREBLEU_TOKENIZERS
from .validation import MAX_ORDER
from .version import __version__

PROG = "google-bleu"
STDIN = "-"
BOM = "\ufeff"
#: A progress bar is drawn (on a terminal only) when systems x segments reach this.
PROGRESS_MIN_SEGMENTS = 10_000


class UsageError(Exception):
    """A problem with the user's input: reported in one line, no traceback."""


class _Parser(argparse.ArgumentParser):
    # argparse prints the usage and exits; a one-line message is wanted instead.
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def decode_lines(data: bytes, name: str) -> list[str]:
    """Splits bytes into lines as sacrebleu's CLI does, strictly UTF-8.

    Lines are split on ``\\n`` only, trailing whitespace (``\\r`` included) is stripped,
    and a BOM is kept (sacrebleu reads with ``encoding="utf-8"``).

    Example:
        >>> decode_lines(b"a b \\r\\n\\xef\\xbb\\xbfc\\n", "x.txt")
        ['a b', '\\ufeffc']
        >>> decode_lines(b"ok\\n\\xff\\n", "x.txt")
        Traceback (most recent call last):
        ...
        google_bleu.cli.UsageError: x.txt: line 2 is not valid UTF-8 (invalid start byte at byte 0)
    """
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    decoded = []
    for number, raw in enumerate(lines, start=1):
        try:
            decoded.append(raw.decode("utf-8").rstrip())
        except UnicodeDecodeError as error:
            raise UsageError(
                f"{name}: line {number} is not valid UTF-8 ({error.reason} at byte {error.start})"
            ) from None
    return decoded


def read_lines(path: str, stdin: BinaryIO | None = None) -> list[str]:
    """Reads one segment per line from a file, or from standard input for ``-``."""
    try:
        if path == STDIN:
            data = (stdin if stdin is not None else sys.stdin.buffer).read()
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    name = "standard input" if path == STDIN else path
    lines = decode_lines(data, name)
    if lines and lines[0].startswith(BOM):
        print(
            f"{PROG}: warning: {name} starts with a byte-order mark (U+FEFF); "
            "it is kept as part of line 1, as sacrebleu does",
            file=sys.stderr,
        )
    return lines


def _width(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 17:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 17, got {text!r}")
    return value


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (all cores) or a positive integer, got {text!r}")
    return value


def _warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (sacrebleu's option names and short forms)."""
    parser = _Parser(
        prog=PROG,
        description="Google-BLEU (GLEU, Wu et al. 2016): corpus and sentence scores exact to nltk, "
        "bootstrap confidence intervals and paired significance tests.",
    )
    parser.add_argument("refs", nargs="+", metavar="REF", help="reference files, one segment a line")
    parser.add_argument(
        "-i", "--input", nargs="+", default=None, metavar="HYP", help="system output files (default: standard input)"
    )
    parser.add_argument(
        "-tok",
        "--tokenize",
        default=DEFAULT_TOKENIZER,
        choices=list(SACREBLEU_TOKENIZERS),
        help="tokenizer (default 13a)",
    )
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("--min-len", type=int, default=1, help="lowest n-gram order (default 1)")
    parser.add_argument("--max-len", type=int, default=4, help=f"highest n-gram order (default 4, at most {MAX_ORDER})")
    parser.add_argument(
        "-j", "--jobs", type=_jobs, default=1, help="worker processes (default 1; 0 = all cores); same output"
    )
    parser.add_argument("-sl", "--sentence-level", action="store_true", help="print one score per segment")
    stats = parser.add_argument_group("statistics")
    stats.add_argument("-ci", "--confidence", action="store_true", help="add a 95%% bootstrap confidence interval")
    stats.add_argument(
        "-cin",
        "--confidence-n",
        type=int,
        default=DEFAULT_N_BOOTSTRAP,
        help="bootstrap resamples for intervals (default %(default)s)",
    )
    paired = stats.add_mutually_exclusive_group()
    paired.add_argument("-pbs", "--paired-bs", action="store_true", help="paired bootstrap test against the first -i")
    paired.add_argument(
        "-par", "--paired-ar", action="store_true", help="paired approximate randomization test against the first -i"
    )
    stats.add_argument(
        "--paired-n",
        type=int,
        default=None,
        help=f"resamples (bs, default {DEFAULT_N_BOOTSTRAP}) or trials (ar, default {DEFAULT_N_RANDOMIZATION})",
    )
    stats.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the resampling (default %(default)s)")
    output = parser.add_argument_group("output")
    output.add_argument("-f", "--format", default="json", choices=["json", "text"], help="output format (default json)")
    output.add_argument("-b", "--score-only", action="store_true", help="print only the score(s)")
    output.add_argument("-w", "--width", type=_width, default=1, help="decimals of printed scores, 0-17 (default 1)")
    output.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    return parser


class Progress:
    """A progress bar on stderr, drawn only when stderr is a terminal and the work is long."""

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = max(total, 1)
        self.done = 0
        self.enabled = enabled and self.stream.isatty()

    def step(self, label: str) -> None:
        self.done += 1
        if self.enabled:
            filled = 30 * self.done // self.total
            bar = "#" * filled + "." * (30 - filled)
            self.stream.write(f"\r{PROG} [{bar}] {self.done}/{self.total} {label[-40:]:<40}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


def _check_options(args: argparse.Namespace, n_systems: int) -> None:
    paired = args.paired_bs or args.paired_ar
    try:
        check_n_samples(args.confidence_n, "--confidence-n")
        if args.paired_n is not None:
            check_n_samples(args.paired_n, "--paired-n")
        check_seed(args.seed)
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from None
    if args.sentence_level and (n_systems > 1 or args.confidence or paired):
        raise UsageError("--sentence-level takes one system and no --confidence or paired test")
    if paired and n_systems < 2:
        raise UsageError("paired tests need at least two systems after -i (the first is the baseline)")


def _percent(value: float, width: int) -> float:
    return round(100 * value, width)


def _system_json(name: str, stats: GleuStats, sig: str, width: int) -> dict[str, Any]:
    return {
        "name": "GLEU",
        "system": name,
        "score": _percent(stats.score(), width),
        "precision": _percent(stats.precision(), width),
        "recall": _percent(stats.recall(), width),
        "signature": sig,
        **stats.to_dict(),
    }


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        " | ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
        for row in [header, *rows]
    ]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def run(argv: Sequence[str] | None, stdout: TextIO, stdin: BinaryIO | None = None) -> None:
    """Parses ``argv``, scores, and writes the output to ``stdout``."""
    args = build_parser().parse_args(argv)
    paths = args.input if args.input is not None else [STDIN]
    _check_options(args, len(paths))
    paired = "bs" if args.paired_bs else "ar" if args.paired_ar else None

    # Files are streamed in chunks of lines (never read whole) and scored by --jobs workers.
    n_segments = count_lines(args.refs, warn=_warn)
    scorer = GLEU(args.tokenize, args.lowercase, args.min_len, args.max_len)
    tokenize = scorer.tokenizer

    work = len(paths) + (len(paths) - 1 if paired else 0) + (len(paths) if args.confidence and not paired else 0)
    progress = Progress(work, not args.quiet and n_segments * len(paths) >= PROGRESS_MIN_SEGMENTS)
    systems: list[GleuStats] = []
    try:
        for path in paths:
            source = (stdin if stdin is not None else sys.stdin.buffer) if path == STDIN else path
            name = "standard input" if path == STDIN else path
            systems.append(file_stats(source, args.refs, scorer, args.jobs, warn=_warn, warn_references=False, name=name))
            progress.step(f"scored {path}")
        if args.sentence_level:
            progress.close()
            _print_sentences(systems[0], args, stdout)
            return
        n_bootstrap = args.confidence_n if args.confidence and not paired else None
        n_samples = args.paired_n or (DEFAULT_N_BOOTSTRAP if paired == "bs" else DEFAULT_N_RANDOMIZATION)
        # Paired tests always resample (bs: the test's own samples; ar: intervals by bootstrap).
        sig_bootstrap = (n_samples if paired == "bs" else args.confidence_n) if paired else n_bootstrap
        sig = signature(
            str(len(args.refs)),
            tokenize.name,
            args.lowercase,
            systems[0].min_len,
            systems[0].max_len,
            sig_bootstrap,
            args.seed,
            n_samples if paired == "ar" else None,
        )
        if paired:
            # Each comparison depends only on the baseline and that system, so testing
            # pair by pair equals one call on all systems and lets the bar advance.
            results = []
            for path, stats in zip(paths[1:], systems[1:]):
                pair = paired_test_stats([systems[0], stats], paired, n_samples, args.seed, args.confidence_n)
                results += pair if not results else pair[1:]
                progress.step(f"paired test {path}")
            intervals: list[tuple[float, float] | None] = [(r.ci_low, r.ci_high) for r in results]
            p_values = [r.p_value for r in results]
        else:
            intervals = []
            for path, stats in zip(paths, systems):
                intervals.append(None if n_bootstrap is None else bootstrap_ci(stats, n_bootstrap, args.seed))
                if n_bootstrap is not None:
                    progress.step(f"bootstrap {path}")
            p_values = [None] * len(systems)
    finally:
        progress.close()
    _print_corpus(paths, systems, intervals, p_values, sig, paired, args, stdout)


def _print_sentences(stats: GleuStats, args: argparse.Namespace, stdout: TextIO) -> None:
    scores = stats.sentence_scores()
    for row, score in zip(stats.rows.tolist(), scores.tolist()):
        if args.score_only or args.format == "text":
            stdout.write(f"{100 * score:.{args.width}f}\n")
        else:
            counts = dict(zip(("n_match", "n_hyp", "n_ref", "n_all"), row))
            stdout.write(json.dumps({"score": _percent(score, args.width), **counts}) + "\n")


def _print_corpus(
    paths: list[str],
    systems: list[GleuStats],
    intervals: list[tuple[float, float] | None],
    p_values: list[float | None],
    sig: str,
    paired: str | None,
    args: argparse.Namespace,
    stdout: TextIO,
) -> None:
    width = args.width
    names = ["stdin" if path == STDIN else path for path in paths]
    if args.score_only:
        for stats in systems:
            stdout.write(f"{100 * stats.score():.{width}f}\n")
        return
    if args.format == "json":
        objects = []
        for index, (name, stats, interval, p_value) in enumerate(zip(names, systems, intervals, p_values)):
            obj = _system_json(name, stats, sig, width)
            if interval is not None:
                obj["ci_low"], obj["ci_high"] = (_percent(bound, width) for bound in interval)
            if paired:
                obj["baseline"] = index == 0
                obj["p_value"] = None if p_value is None else round(p_value, 4)
            objects.append(obj)
        document: Any = objects[0] if len(objects) == 1 else objects
        stdout.write(json.dumps(document, ensure_ascii=False, indent=1) + "\n")
        return
    if len(systems) == 1 and not paired:
        stats, interval = systems[0], intervals[0]
        ci = "" if interval is None else f" [{100 * interval[0]:.{width}f}, {100 * interval[1]:.{width}f}]"
        stdout.write(
            f"GLEU|{sig} = {100 * stats.score():.{width}f}{ci} "
            f"(P = {100 * stats.precision():.{width}f}, R = {100 * stats.recall():.{width}f})\n"
        )
        return
    header = ["System", "GLEU", "P", "R"]
    if any(interval is not None for interval in intervals):
        header.append("95% CI")
    if paired:
        header.append("p-value")
    rows = []
    for index, (name, stats, interval, p_value) in enumerate(zip(names, systems, intervals, p_values)):
        row = [f"Baseline: {name}" if paired and index == 0 else name]
        row += [f"{100 * value:.{width}f}" for value in (stats.score(), stats.precision(), stats.recall())]
        if interval is not None:
            row.append(f"[{100 * interval[0]:.{width}f}, {100 * interval[1]:.{width}f}]")
        if paired:
            row.append("" if p_value is None else f"{p_value:.4f}" + ("*" if p_value <= 0.05 else " "))
        rows.append(row)
    stdout.write(_table(header, rows) + "\n\n")
    stdout.write(f"GLEU|{sig}\n")
    if paired:
        test = "bootstrap resampling" if paired == "bs" else "approximate randomization"
        stdout.write(
            f"Paired {test} against the baseline, two-sided, p = (c+1)/(n+1); "
            "* marks p <= 0.05. The interval is the 95% bootstrap percentile interval.\n"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the exit status (0 ok, 2 usage or input error)."""
    try:
        run(argv, sys.stdout)
    except (UsageError, ValueError, TypeError, ImportError) as error:
        message = " ".join(str(error).split())
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `google-bleu ... | head` closes the pipe early; that is not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    return 0
