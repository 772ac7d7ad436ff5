"""Command-line tool ``google-bleu`` (also ``python -m google_bleu``), in sacrebleu's habits.

    google-bleu REF [REF ...] -i HYP [HYP ...]

A thin adapter: it reads files, calls :func:`google_bleu.text_stats` and prints.
Every user error ends with a one-line message on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .gleu import text_stats
from .signature import signature
from .stats import GleuStats
from .tokenizers import DEFAULT_TOKENIZER, SACREBLEU_TOKENIZERS, get_tokenizer
from .validation import MAX_ORDER


class UsageError(Exception):
    """A problem with the user's input: reported in one line, no traceback."""


def read_lines(path: str, stream: TextIO | None = None) -> list[str]:
    """Reads one segment per line, strictly UTF-8; ``-`` reads standard input."""
    try:
        if path == "-":
            data = (stream or sys.stdin.buffer).read()  # type: ignore[union-attr]
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    if isinstance(data, str):
        data = data.encode("utf-8")
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    decoded = []
    for number, raw in enumerate(lines, start=1):
        try:
            decoded.append(raw.decode("utf-8").rstrip("\r"))
        except UnicodeDecodeError as error:
            raise UsageError(f"{path}: line {number} is not valid UTF-8 ({error.reason})") from None
    return decoded


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="google-bleu",
        description="Google-BLEU (GLEU, Wu et al. 2016): corpus and sentence scores, exact to nltk.",
    )
    parser.add_argument("refs", nargs="+", metavar="REF", help="reference files, one segment a line")
    parser.add_argument(
        "-i", "--input", nargs="+", default=["-"], metavar="HYP", help="system output files (default: stdin)"
    )
    parser.add_argument("-tok", "--tokenize", default=DEFAULT_TOKENIZER, choices=sorted(SACREBLEU_TOKENIZERS))
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("--min-len", type=int, default=1, help="lowest n-gram order (default 1)")
    parser.add_argument("--max-len", type=int, default=4, help=f"highest n-gram order (default 4, at most {MAX_ORDER})")
    parser.add_argument("--sentence-level", action="store_true", help="print one score per segment")
    return parser


def score_system(hypotheses: list[str], references: list[list[str]], args: argparse.Namespace) -> GleuStats:
    return text_stats(hypotheses, references, args.tokenize, args.lowercase, args.min_len, args.max_len)


def run(argv: Sequence[str] | None, stdout: TextIO) -> None:
    args = build_parser().parse_args(argv)
    ref_files = [read_lines(path) for path in args.refs]
    for path, lines in zip(args.refs[1:], ref_files[1:]):
        if len(lines) != len(ref_files[0]):
            raise UsageError(f"{args.refs[0]} has {len(ref_files[0])} lines but {path} has {len(lines)}")
    references = [list(refs) for refs in zip(*ref_files)] if ref_files[0] else []
    sig = signature(str(len(ref_files)), get_tokenizer(args.tokenize).name, args.lowercase, args.min_len, args.max_len)
    outputs: list[dict[str, Any]] = []
    for path in args.input:
        hypotheses = read_lines(path)
        if len(hypotheses) != len(ref_files[0]):
            raise UsageError(f"{path} has {len(hypotheses)} lines but {args.refs[0]} has {len(ref_files[0])}")
        stats = score_system(hypotheses, references, args)
        if args.sentence_level:
            for score in stats.sentence_scores():
                stdout.write(f"{score:.4f}\n")
            continue
        outputs.append(
            {
                "name": "GLEU",
                "system": path,
                "score": round(100 * stats.score(), 2),
                "precision": round(100 * stats.precision(), 2),
                "recall": round(100 * stats.recall(), 2),
                "signature": sig,
                **stats.to_dict(),
            }
        )
    for output in outputs:
        stdout.write(json.dumps(output, ensure_ascii=False, indent=1) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the exit status (0 ok, 2 usage or input error)."""
    try:
        run(argv, sys.stdout)
    except (UsageError, ValueError, TypeError, ImportError) as error:
        print(f"google-bleu: error: {error}", file=sys.stderr)
        return 2
    return 0
