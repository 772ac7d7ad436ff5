"""Command-line tool ``google-bleu`` (also ``python -m google_bleu``), in sacrebleu's habits.

    google-bleu REF [REF ...] -i HYP [HYP ...]     several REF files = several references
    google-bleu REF < HYP                           one system from standard input
    google-bleu REF -i HYP --confidence             95% bootstrap interval (seed echoed)
    google-bleu REF -i BASE SYS1 SYS2 --paired-bs   paired tests against the first system
    google-bleu REF -i HYP --sentence-level         one score a line

A thin adapter over :class:`google_bleu.GLEU` and :class:`google_bleu.GleuScore`: it reads
files, builds one scorer, and prints the scores it returns (``GleuScore.format`` and
``GleuScore.json_object``). Scores are printed on sacrebleu's 0-100 scale, rounded to
``--width`` decimals; the JSON output also carries the exact integer totals, so every
printed number can be recomputed exactly. Text tables are drawn by tabulate, the progress
bar (on a terminal, for long inputs, unless ``-q``) by tqdm.

Files and standard input are read by the shared line policy (:mod:`google_bleu.scale.lines`),
sacrebleu's CLI rule: UTF-8, split on ``\\n`` only, trailing whitespace stripped from
each line, and a byte-order mark (U+FEFF) at the start kept as part of line 1, with a
warning on stderr. They are streamed a chunk of lines at a time and scored by ``--jobs``
worker processes (:mod:`google_bleu.scale.parallel`), so memory grows with the per-segment
statistics, not with the text.

Exit status: 0 on success; 2 for a usage or input error (one line on stderr, no
traceback); 1 when the output cannot be written (a full disk, a closed stream). Any other
error is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import ast
import codecs
import dataclasses
import json
import os
import signal
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from ..scale.files import FileError
from ..scale.lines import LineError
from ..scale.parallel import SystemFiles
from ..scale.pool import WorkerError
from ..scorer import GLEU, GleuScore, scale_name, scaled_text
from ..significance import DEFAULT_N_BOOTSTRAP, DEFAULT_N_RANDOMIZATION, DEFAULT_SEED
from ..stats import GleuStats
from ..tokenizers import DEFAULT_TOKENIZER, SACREBLEU_TOKENIZERS
from ..validation import MAX_ORDER, MAX_SAMPLES, check_n_samples, check_seed
from ..version import __version__

if TYPE_CHECKING:
    from tqdm import tqdm

PROG = "google-bleu"
STDIN = "-"
#: A progress bar is drawn (on a terminal only) when systems x segments reach this.
PROGRESS_MIN_SEGMENTS = 10_000


@cache
def _table_format() -> Any:
    """The text table: columns separated by " | ", a "-+-" rule under the header, no border.
    (tabulate and tqdm are imported when a table or a progress bar is drawn: a run that
    prints JSON, the default, never pays for them.)"""
    from tabulate import DataRow, Line, TableFormat

    return TableFormat(
        lineabove=None,
        linebelowheader=Line("", "-", "-+-", ""),
        linebetweenrows=None,
        linebelow=None,
        headerrow=DataRow("", " | ", ""),
        datarow=DataRow("", " | ", ""),
        padding=0,
        with_header_hide=None,
    )


class UsageError(Exception):
    """A problem with the user's input: reported in one line, no traceback."""


class OutputError(Exception):
    """The output could not be written: reported in one line, exit status 1."""


class _Parser(argparse.ArgumentParser):
    # argparse prints the usage and exits; a one-line message is wanted instead.
    def error(self, message: str) -> None:  # type: ignore[override]
        if "required: REF" in message:
            message = (
                "no reference file: references come first, system outputs after -i "
                f"({PROG} REF [REF ...] -i HYP [HYP ...]; every file after -i is a system output)"
            )
        raise UsageError(message)

    def _get_option_tuples(self, option_string: str) -> list:
        # No option is reachable by a prefix: argparse would take `-l` for `-lc` (and, for
        # single-dash options, does so even with allow_abbrev=False), silently changing the
        # score. What is kept: a one-letter option with its value attached (`-j2`, `-isys.txt`)
        # and grouped one-letter flags (`-qb`).
        prefix = option_string.split("=", 1)[0]
        longer = sorted(name for name in self._option_string_actions if name.startswith(prefix) and name != prefix)
        if longer:
            self.error(f"unknown option {prefix} (options are never abbreviated): did you mean {' or '.join(longer)}?")
        return [
            found
            for found in super()._get_option_tuples(option_string)
            if option_string.startswith(found[1]) and not isinstance(found[0], _Answer)
        ]


class _Answer(argparse.Action):
    """A sacrebleu option that has no meaning here: refused with what to do instead."""

    def __init__(self, option_strings: list[str], dest: str, answer: str = "", nargs: Any = "*", **kwargs: Any):
        super().__init__(
            option_strings, argparse.SUPPRESS, nargs=nargs, default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )
        self.answer = answer

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        raise UsageError(f"{option_string}: {self.answer}")


class _Done(Exception):
    """An option that prints something and ends the run (``--citation``)."""


class _Citation(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        raise _Done(citation())


def citation() -> str:
    """The BibTeX of the paper that defines GLEU (Wu et al. 2016), as the metric card gives it.

    Read from the metric script's text, so that the command does not import evaluate.
    """
    script = Path(__file__).resolve().parent.parent / "google_bleu.py"
    for node in ast.parse(script.read_text("utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["_CITATION"]:
            return ast.literal_eval(node.value)
    raise RuntimeError(f"no _CITATION in {script}")  # a broken install, not a user error


def _encoding(text: str) -> str:
    try:
        name = codecs.lookup(text).name
    except LookupError:
        name = None
    if name != "utf-8":
        raise argparse.ArgumentTypeError(
            f"files are read as UTF-8 only, got {text!r}: convert them first (iconv -f {text} -t utf-8 FILE > NEW)"
        )
    return text


def _metrics(text: str) -> str:
    if text.lower() not in ("gleu", "google_bleu", "google-bleu"):
        raise argparse.ArgumentTypeError(f"this command computes GLEU only, got {text!r}: use sacrebleu -m {text}")
    return text


#: sacrebleu's test-set options: each is refused with this answer.
TEST_SETS = "test sets are not downloaded here: pass reference files (sacrebleu -t TEST -l PAIR --echo ref > ref.txt writes one)"


def _stdin(stdin: BinaryIO | None) -> BinaryIO:
    if stdin is not None:
        return stdin
    if sys.stdin is None:  # started with standard input closed (<&-)
        raise UsageError("standard input is closed: give the system output with -i HYP")
    return sys.stdin.buffer


def _input(read: Any, *args: Any, **kwargs: Any) -> Any:
    """Runs a step that reads the input files: their problems (missing, unreadable, not
    UTF-8, lines that differ in number) become one-line usage errors."""
    try:
        return read(*args, **kwargs)
    except OSError as error:
        raise UsageError(f"cannot read {error.filename or 'the input'}: {error.strerror or error}") from None
    except (LineError, FileError) as error:  # not UTF-8; unreadable; lines that differ in number
        raise UsageError(str(error)) from None


def _width(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 17:
        raise argparse.ArgumentTypeError(f"must be an integer from 0 to 17, got {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


#: Default decimals per scale: a score shows the same digits on either.
WIDTHS = {100: 1, 1: 3}


def _scale(text: str) -> int:
    if text not in ("1", "100"):
        raise argparse.ArgumentTypeError(f"must be 100 (0-100, as sacrebleu) or 1 (0-1, as the API), got {text!r}")
    return int(text)


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
        epilog="sacrebleu's spellings are accepted where they mean something here (-pbsn, -parn, -sh, -e utf-8, "
        "-m gleu, -nc, --force, --paired-jobs, --citation); its test-set, BLEU, chrF and TER options are refused "
        "with what to do instead. No option may be abbreviated.",
        allow_abbrev=False,
    )
    parser.add_argument("refs", nargs="+", metavar="REF", help="reference files, one segment a line (before -i)")
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
    parser.add_argument(
        "-nr",
        "--num-refs",
        type=_positive,
        default=1,
        help="references per line of the one REF file, tab-separated (as sacrebleu; default 1)",
    )
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("--min-len", type=int, default=1, help="lowest n-gram order (default 1)")
    parser.add_argument("--max-len", type=int, default=4, help=f"highest n-gram order (default 4, at most {MAX_ORDER})")
    parser.add_argument(
        "-j", "--jobs", type=_jobs, default=1, help="worker processes (default 1; 0 = all cores); same output"
    )
    parser.add_argument(
        "--paired-jobs", dest="jobs", type=_jobs, default=argparse.SUPPRESS, help="sacrebleu's name of --jobs"
    )
    parser.add_argument("-sl", "--sentence-level", action="store_true", help="print one score per segment")
    parser.add_argument(
        "-e", "--encoding", type=_encoding, default="utf-8", help="encoding of the files: UTF-8 only (as the default)"
    )
    parser.add_argument(
        "-m", "--metrics", type=_metrics, nargs="+", default=["gleu"], help="gleu, the only metric computed here"
    )
    stats = parser.add_argument_group("statistics")
    stats.add_argument("-ci", "--confidence", action="store_true", help="add a 95%% bootstrap confidence interval")
    stats.add_argument(
        "-cin",
        "--confidence-n",
        type=int,
        default=DEFAULT_N_BOOTSTRAP,
        help=f"bootstrap resamples for intervals (default %(default)s, at most {MAX_SAMPLES})",
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
        metavar="N",
        help=f"resamples (bs, default {DEFAULT_N_BOOTSTRAP}) or trials (ar, default {DEFAULT_N_RANDOMIZATION}), "
        f"at most {MAX_SAMPLES}",
    )
    stats.add_argument(
        "-pbsn", "--paired-bs-n", type=int, default=None, metavar="N", help="resamples of --paired-bs (sacrebleu's name)"
    )
    stats.add_argument(
        "-parn", "--paired-ar-n", type=int, default=None, metavar="N", help="trials of --paired-ar (sacrebleu's name)"
    )
    stats.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the resampling (default %(default)s)")
    output = parser.add_argument_group("output")
    output.add_argument(
        "-f", "--format", default="json", choices=["json", "text", "latex"], help="output format (default json)"
    )
    output.add_argument(
        "--scale",
        type=_scale,
        default=100,
        help="scale of printed scores: 100 (default, as sacrebleu) or 1 (the API's 0-1 fractions)",
    )
    output.add_argument("-b", "--score-only", action="store_true", help="print only the score(s)")
    output.add_argument(
        "--by-order",
        action="store_true",
        help="also each n-gram order's own score (the exact corpus GLEU of --min-len = --max-len = n)",
    )
    output.add_argument(
        "-w",
        "--width",
        type=_width,
        default=None,
        help=f"decimals of printed scores, 0-17 (default {WIDTHS[100]} on the 0-100 scale, {WIDTHS[1]} on 0-1: "
        "the same digits)",
    )
    output.add_argument(
        "-sh", "--short", action="store_true", help="short signature in text and LaTeX (as sacrebleu: #, c, n, v)"
    )
    output.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    output.add_argument("-nc", "--no-color", action="store_true", help="accepted: nothing is printed in colour")
    output.add_argument(
        "--force", action="store_true", help="accepted: tokenized input is scored as given, never refused"
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--citation", "--cite", action=_Citation, help="print the BibTeX of the GLEU paper and exit")
    # sacrebleu's options that mean nothing here, each refused with what to do instead.
    answers = {
        ("-t", "--test-set"): TEST_SETS,
        ("-l", "--language-pair"): TEST_SETS + "; choose the tokenizer with -tok (sacrebleu picks zh, ja-mecab "
        "or ko-mecab from -l)",
        ("--list", "--download", "--echo", "-ol", "--origlang", "--subset"): TEST_SETS,
        ("-d", "--detail"): "test sets are not downloaded, so there is no split by original language: "
        "score each subset's files",
        ("-s", "--smooth-method", "-sv", "--smooth-value"): "GLEU needs no smoothing (a segment with no match "
        "scores 0, and the corpus sums counts): drop the option",
        (
            *("-cc", "--chrf-char-order", "-cw", "--chrf-word-order", "--chrf-beta", "--chrf-whitespace"),
            *("--chrf-lowercase", "--chrf-eps-smoothing"),
        ): "chrF is not computed here: use sacrebleu -m chrf",
        ("--ter-case-sensitive", "--ter-asian-support", "--ter-no-punct", "--ter-normalized"): "TER is not "
        "computed here: use sacrebleu -m ter",
    }
    for names, answer in answers.items():
        parser.add_argument(*names, action=_Answer, answer=answer)
    return parser


class _NoProgress:
    """What the run calls on a progress bar, when none is drawn (tqdm is not imported)."""

    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        pass

    def update(self, n: int = 1) -> None:
        pass


def _progress(total: int, enabled: bool) -> tqdm | _NoProgress:
    try:
        enabled = enabled and sys.stderr.isatty()
    except (AttributeError, ValueError):  # no stderr, or a closed one
        enabled = False
    if not enabled:
        return _NoProgress()
    from tqdm import tqdm

    # disable=None: tqdm draws only when stderr is a terminal; mininterval=0 draws every step
    # (there are few: one per system and test).
    return tqdm(
        total=total,
        desc=PROG,
        file=sys.stderr,
        disable=None if enabled else True,
        leave=False,
        mininterval=0,
        bar_format="{desc} [{bar:30}] {n_fmt}/{total_fmt} {postfix}",
        **_default_size(),
    )


def _default_size() -> dict[str, int]:
    """80x24 for a terminal that reports no size (a fresh pty says 0x0, and tqdm would
    draw nothing); nothing (tqdm measures the terminal) otherwise."""
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):
        return {}
    return {} if size.columns > 0 and size.lines > 0 else {"ncols": 80, "nrows": 24}


def _settings(args: argparse.Namespace, n_systems: int) -> GLEU:
    """Checks every option and builds the scorer; a refused value becomes a :class:`UsageError`.

    Only these checks are translated: once the scorer exists, the scoring of lines read
    from files cannot meet an invalid input, so any error after this is a bug and keeps
    its traceback.
    """
    paired = args.paired_bs or args.paired_ar
    args.paired_n, paired_n_name = _paired_n(args)
    try:
        check_n_samples(args.confidence_n, "--confidence-n")
        if args.paired_n is not None:
            check_n_samples(args.paired_n, paired_n_name)
        check_seed(args.seed, "--seed")
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    if args.sentence_level and (n_systems > 1 or args.confidence or paired):
        raise UsageError("--sentence-level takes one system and no --confidence or paired test")
    if args.by_order and (args.sentence_level or args.score_only):
        raise UsageError("--by-order adds figures to corpus scores: it takes no --sentence-level or --score-only")
    if args.num_refs > 1 and len(args.refs) != 1:
        raise UsageError(f"--num-refs {args.num_refs} reads tab-separated references from one REF file, got {len(args.refs)}")
    if paired and n_systems < 2:
        raise UsageError("paired tests need at least two systems after -i (the first is the baseline)")
    try:
        return GLEU(args.tokenize, args.lowercase, args.min_len, args.max_len)
    except (ValueError, TypeError, ImportError) as error:  # ImportError: a tokenizer's extra is missing
        raise UsageError(str(error)) from None


def _paired_n(args: argparse.Namespace) -> tuple[int | None, str]:
    """The resamples or trials of the paired test and the option that gave them: ours
    (``--paired-n``, either test) or sacrebleu's (``--paired-bs-n``, ``--paired-ar-n``), each
    only with its own test, so that none is silently left unused."""
    given = [
        (name, value)
        for name, value in (
            ("--paired-n", args.paired_n), ("--paired-bs-n", args.paired_bs_n), ("--paired-ar-n", args.paired_ar_n)
        )
        if value is not None
    ]
    if len(given) > 1:
        raise UsageError(f"give the resamples once: {' and '.join(name for name, _ in given)} were both given")
    if not given:
        return None, "--paired-n"
    name, value = given[0]
    for option, what, flag, test in (
        ("--paired-bs-n", "resamples", "paired_bs", "-pbs/--paired-bs"),
        ("--paired-ar-n", "trials", "paired_ar", "-par/--paired-ar"),
    ):
        if name == option and not getattr(args, flag):
            raise UsageError(f"{option} gives the {what} of {test}, which was not given (for either test: --paired-n)")
    return value, name


def short_signature(signature: str) -> str:
    """sacrebleu's ``--short`` form of a signature: each field's name abbreviated as
    sacrebleu abbreviates it (``nrefs`` ``#``, ``case`` ``c``, ``version`` ``v``, ``seed``
    ``rs``), and ``ngram`` as ``n``.

    Example:
        >>> short_signature("nrefs:1|case:mixed|tok:13a|ngram:1-4|bs:1000|seed:12345|version:0.1.0")
        '#:1|c:mixed|tok:13a|n:1-4|bs:1000|rs:12345|v:0.1.0'
    """
    names = {"nrefs": "#", "case": "c", "ngram": "n", "seed": "rs", "version": "v"}
    fields = (field.split(":", 1) for field in signature.split("|"))
    return "|".join(f"{names.get(name, name)}:{value}" for name, value in fields)


def run(argv: Sequence[str] | None, stdout: TextIO, stdin: BinaryIO | None = None) -> None:
    """Parses ``argv``, scores, and writes the output to ``stdout``."""
    try:
        args = build_parser().parse_args(argv)
    except _Done as done:
        output = _Output(stdout)
        output.write(str(done))
        output.flush()
        return
    if args.width is None:
        args.width = WIDTHS[args.scale]
    paths = args.input if args.input is not None else [STDIN]
    scorer = _settings(args, len(paths))
    paired = "bs" if args.paired_bs else "ar" if args.paired_ar else None

    # Each input is read once: checked and planned here (standard input, a pipe or a FIFO
    # copied once to a temporary file), then counted by at most --jobs workers that read
    # their own byte ranges; per-segment rows come back only where the output needs them.
    nrefs = args.num_refs if args.num_refs > 1 else len(args.refs)
    sources = [_stdin(stdin) if path == STDIN else path for path in paths]
    names = ["standard input" if path == STDIN else path for path in paths]
    rows = args.sentence_level or args.confidence or paired is not None
    files = _input(SystemFiles, sources, args.refs, scorer, args.jobs, _warn, names, args.num_refs, rows, args.by_order)

    work = len(paths) + (len(paths) - 1 if paired else 0) + (len(paths) if args.confidence and not paired else 0)
    with files, _progress(work, not args.quiet and files.lines * len(paths) >= PROGRESS_MIN_SEGMENTS) as progress:
        parts = _systems(files, names, progress)
        systems = [part[0] for part in parts]
        if args.sentence_level:
            text = _sentences(systems[0], args)
        else:
            scores = _scores(scorer, systems, paths, nrefs, paired, args, progress)
            if args.by_order:
                scores = _by_order(scorer, scores, parts, nrefs)
            text = _corpus(paths, scores, (scorer.min_len, scorer.max_len), paired, args)
    output = _Output(stdout)
    output.write(text)
    output.flush()


def _systems(files: SystemFiles, names: list[str], progress: tqdm | _NoProgress) -> list[tuple[GleuStats, ...]]:
    """Each system's statistics (and its orders' totals, with ``--by-order``), as counted."""
    parts = []
    counted = iter(files)
    for name in names:
        parts.append(_input(next, counted))
        progress.set_postfix_str(f"scored {name}", refresh=False)
        progress.update()
    _input(next, counted, None)  # the end: its workers stop here, not when it is collected
    return parts


def _by_order(scorer: GLEU, scores: list[GleuScore], parts: list[tuple[GleuStats, ...]], nrefs: int) -> list[GleuScore]:
    """``scores`` with each order's own score (:attr:`GleuScore.orders`): the totals of orders
    ``n-n`` counted from the same lines as the main score, as ``min_len = max_len = n`` scores them."""
    orders = range(scorer.min_len, scorer.max_len + 1)
    singles = [scorer.replace(min_len=n, max_len=n) for n in orders]
    return [
        dataclasses.replace(score, orders=tuple((n, single.score_stats(stats, nrefs)) for n, single, stats in zip(orders, singles, part[1:])))
        for score, part in zip(scores, parts)
    ]


def _scores(
    scorer: GLEU,
    systems: list[GleuStats],
    paths: list[str],
    nrefs: int,
    paired: str | None,
    args: argparse.Namespace,
    progress: tqdm | _NoProgress,
) -> list[GleuScore]:
    if not paired:
        n_bootstrap = args.confidence_n if args.confidence else None
        scores = []
        for path, stats in zip(paths, systems):
            scores.append(scorer.score_stats(stats, nrefs, n_bootstrap, args.seed))
            if n_bootstrap is not None:
                progress.set_postfix_str(f"bootstrap {path}", refresh=False)
                progress.update()
        return scores
    # Each comparison depends only on the baseline and that system, so testing pair by
    # pair equals one call on all systems and lets the bar advance.
    scores = []
    for path, stats in zip(paths[1:], systems[1:]):
        pair = scorer.paired_scores([systems[0], stats], paired, args.paired_n, args.seed, args.confidence_n, nrefs)
        scores += pair if not scores else pair[1:]
        progress.set_postfix_str(f"paired test {path}", refresh=False)
        progress.update()
    return scores


class _Output:
    """The output stream; an ``OSError`` while writing (not a closed pipe) becomes an :class:`OutputError`."""

    def __init__(self, stream: TextIO | None) -> None:
        if stream is None:  # started with standard output closed (>&-)
            raise OutputError("cannot write the output: standard output is closed")
        self.stream = stream

    def write(self, text: str) -> None:
        self._do(self.stream.write, text)

    def flush(self) -> None:
        self._do(self.stream.flush)

    @staticmethod
    def _do(method: Any, *args: Any) -> None:
        try:
            method(*args)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(f"cannot write the output: {error.strerror or error}") from None


def _sentences(stats: GleuStats, args: argparse.Namespace) -> str:
    lines = []
    for row, score in zip(stats.rows.tolist(), stats.sentence_scores().tolist()):
        if args.score_only or args.format != "json":
            lines.append(scaled_text(score, args.width, args.scale) + "\n")
        else:
            counts = dict(zip(("n_match", "n_hyp", "n_ref", "n_all"), row))
            obj = {"score": round(args.scale * score, args.width), "scale": f"0-{args.scale}", **counts}
            lines.append(json.dumps(obj) + "\n")
    return "".join(lines)


def _corpus(
    paths: list[str], scores: list[GleuScore], orders: tuple[int, int], paired: str | None, args: argparse.Namespace
) -> str:
    width = args.width
    names = ["stdin" if path == STDIN else path for path in paths]
    if args.short and args.format != "json":  # as sacrebleu: JSON keeps the full signature
        scores = [dataclasses.replace(score, signature=short_signature(score.signature)) for score in scores]
    if args.score_only:
        return "".join(score.format(width, score_only=True, scale=args.scale) + "\n" for score in scores)
    if args.format == "json":
        objects = []
        for index, (name, score) in enumerate(zip(names, scores)):
            # GleuScore's object, with the system's name and the orders beside the totals.
            labels = {"system": name, **({"baseline": index == 0} if paired else {})}
            obj = score.json_object(width, args.scale, labels=labels, settings={"min_len": orders[0], "max_len": orders[1]})
            if paired:
                obj.setdefault("p_value", None)  # the baseline has none
            objects.append(obj)
        document: Any = objects[0] if len(objects) == 1 else objects
        return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    if args.format == "latex":
        return _table(names, scores, paired, width, args.scale, latex=True)
    if len(scores) == 1 and not paired:
        return scores[0].format(width, scale=args.scale) + "\n"
    return _table(names, scores, paired, width, args.scale)


def _table(
    names: list[str], scores: list[GleuScore], paired: str | None, width: int, scale: int = 100, latex: bool = False
) -> str:
    with_ci = any(score.ci_low is not None for score in scores)
    orders = scores[0].orders
    header = ["System", f"GLEU ({scale_name(scale)})", "P", "R"]
    header += [f"orders {orders[0][0]}-{orders[-1][0]}"] if orders else []
    header += ["95% CI"] * with_ci + ["p-value"] * bool(paired)
    rows = []
    for index, (name, score) in enumerate(zip(names, scores)):
        figures = score.figures(width, scale)
        row = [f"Baseline: {name}" if paired and index == 0 else name]
        row += [figures["score"], figures["precision"], figures["recall"]]
        if orders:
            row.append(figures["orders"])
        if score.ci_low is not None:
            row.append(f"[{figures['ci_low']}, {figures['ci_high']}]")
        if paired:
            p_value = score.p_value
            row.append("" if p_value is None else figures["p_value"] + ("*" if p_value <= 0.05 else ""))
        rows.append(row)
    # Names left, numbers right, p-values left (so the digits align whether or not a * follows).
    align = ["left"] + ["right"] * (len(header) - 1 - bool(paired)) + ["left"] * bool(paired)
    from tabulate import tabulate

    if latex:
        # tabulate's "latex" format escapes the names (_ & % $ # { } ~ ^ \\) for LaTeX.
        table = tabulate(rows, header, tablefmt="latex", colalign=align, disable_numparse=True)
        return f"% GLEU|{scores[0].signature}\n{table}\n"
    table = tabulate(rows, header, tablefmt=_table_format(), colalign=align, disable_numparse=True)
    text = "\n".join(line.rstrip() for line in table.splitlines()) + "\n\n"
    text += f"GLEU|{scores[0].signature}\n"
    if paired:
        test = "bootstrap resampling" if paired == "bs" else "approximate randomization"
        text += (
            f"Paired {test} against the baseline, two-sided, p = (c+1)/(n+1); "
            "* marks p <= 0.05. The interval is the 95% bootstrap percentile interval.\n"
        )
    return text


def _silence_stdout() -> None:
    # What is still buffered for a stream that cannot take it goes to /dev/null, so the
    # interpreter's final flush does not print a second error.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # no real stdout (closed, or captured in-process)
        pass


class Terminated(BaseException):
    """SIGTERM (``kill PID``, ``Popen.terminate()``, ``subprocess.run(timeout=)``): the run
    unwinds as on Ctrl-C, so the worker pool is stopped, not orphaned."""


#: The stop signals: the exception the first one raises in the run, and the line it prints.
STOPS = {
    signal.SIGINT: (KeyboardInterrupt, f"{PROG}: interrupted"),
    signal.SIGTERM: (Terminated, f"{PROG}: terminated"),
}


class _StopSignals:
    """Ctrl-C and SIGTERM while the command runs.

    The first one raises its exception (:data:`STOPS`) where the run is, once, so the run
    unwinds and its workers are killed; any later one is only noted, so it cannot break
    into that clean-up. The exit status follows the first signal whatever the run ended
    with (a SIGTERM sent to the whole process group also ends the workers, which the run
    may see first). The handlers in place before are restored at the end, unless the
    process ends there (``restore=False``): then later signals are only noted. A signal
    that is ignored when the run starts (inherited as ignored, as a background job's
    Ctrl-C) is left ignored.
    """

    def __init__(self, restore: bool = True) -> None:
        self.received: int | None = None
        self.armed = False
        self.restore = restore
        self.previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: Any) -> None:
        if self.received is None:
            self.received = signum
        if self.armed:
            self.armed = False
            raise STOPS[signum][0]

    def __enter__(self) -> _StopSignals:
        try:
            for signum in STOPS:
                if signal.getsignal(signum) is not signal.SIG_IGN:
                    self.previous[signum] = signal.signal(signum, self._handle)
        except ValueError:  # not the main thread: the caller owns the signals
            pass
        self.armed = True
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.armed = False
        if self.restore:
            for signum, handler in self.previous.items():
                signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


def _stderr_or_null() -> None:
    """With standard error closed (``2>&-``) ``sys.stderr`` is None and ``print(file=None)``
    would write warnings and errors to standard output, into the JSON. They go nowhere
    instead, and file descriptor 2 is held by /dev/null, so no file opened later takes it."""
    if sys.stderr is not None:
        return
    try:
        os.fstat(2)
    except OSError:
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            if fd != 2:
                os.dup2(fd, 2)
                os.close(fd)
        except OSError:
            pass
    sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the whole process


def _outcome(argv: Sequence[str] | None) -> tuple[int, str | None]:
    """Runs the command: its exit status and the line for standard error."""
    try:
        run(argv, sys.stdout)
    except UsageError as error:
        message = " ".join(str(error).split())
        return 2, f"{PROG}: error: {message}"
    except (OutputError, WorkerError) as error:
        _silence_stdout()
        return 1, f"{PROG}: error: {error}"
    except BrokenPipeError:
        # `google-bleu ... | head` closes the pipe early; that is not an error.
        _silence_stdout()
        return 0, None
    except KeyboardInterrupt:
        return 128 + signal.SIGINT, STOPS[signal.SIGINT][1]
    except Terminated:
        return 128 + signal.SIGTERM, STOPS[signal.SIGTERM][1]
    return 0, None


def main(argv: Sequence[str] | None = None, *, restore_signals: bool = True) -> int:
    """Entry point: returns the exit status (0 ok, 2 usage or input error, 1 output not
    written or a worker process killed, 130 Ctrl-C, 143 SIGTERM).

    ``restore_signals=False`` (for a process that ends when this returns) leaves the
    command's handlers of SIGINT and SIGTERM in place, disarmed: a signal that comes after
    the run changes nothing, where the handlers from before would act on it again.
    """
    _stderr_or_null()
    status, message = 0, None
    with _StopSignals(restore_signals) as signals:
        # A stop signal raises at most once (see _StopSignals): wherever it lands, in the
        # run or in the lines that disarm it, the outer handler takes it.
        try:
            try:
                status, message = _outcome(argv)
            finally:
                signals.armed = False
        except KeyboardInterrupt:
            status, message = 128 + signal.SIGINT, STOPS[signal.SIGINT][1]
        except Terminated:
            status, message = 128 + signal.SIGTERM, STOPS[signal.SIGTERM][1]
        except BaseException:
            # A stop signal that struck inside a library which made it an error of its own
            # (numpy's import turns KeyboardInterrupt into ImportError) is still the signal.
            if signals.received is None:
                raise
        if signals.received is not None:
            status, message = 128 + signals.received, STOPS[signals.received][1]
        if message is not None:
            print(message, file=sys.stderr)
    return status
