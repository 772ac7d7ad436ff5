"""The command's options, sacrebleu's names and spellings (docs/cli.md), and :func:`parse`, which checks
them all and returns one frozen :class:`Options` for the run."""

from __future__ import annotations

import argparse
import codecs
import contextlib
import dataclasses
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..result import SCALES, check_figures
from ..settings import GLEU, scorer_from_options
from ..significance import DEFAULT_N_BOOTSTRAP, DEFAULT_N_RANDOMIZATION, DEFAULT_SEED
from ..tokenizers import DEFAULT_TOKENIZER, SACREBLEU_TOKENIZERS
from ..validation import MAX_ORDER, MAX_SAMPLES, check_n_samples, check_seed
from ..version import CITATION, __version__

PROG = "google-bleu"
STDIN = "-"
#: Default decimals per scale: a score shows the same digits on either (29.3 and 0.293).
WIDTHS = dict(zip(SCALES, (1, 3)))
#: sacrebleu's default tokenizer for a target language given by ``-l``; others get ``DEFAULT_TOKENIZER``.
LANGUAGE_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
#: sacrebleu's test-set options: each is refused with this answer.
TEST_SETS = "test sets are not downloaded here: pass reference files (sacrebleu -t TEST -l PAIR --echo ref > ref.txt writes one)"


class UsageError(Exception):
    """A problem with the user's input: reported in one line, no traceback."""


class Done(Exception):
    """An option that prints something and ends the run (``--citation``): the text to print."""


@dataclasses.dataclass(frozen=True)
class Options:
    """Every option of one run, checked. ``paths`` are the system outputs (:data:`STDIN` when none is
    given), ``paired`` ``"bs"``, ``"ar"`` or None, ``paired_n`` the test's resamples or trials."""

    refs: tuple[str, ...]
    paths: tuple[str, ...]
    scorer: GLEU
    num_refs: int
    jobs: int
    sentence_level: bool
    by_order: bool
    confidence: bool
    confidence_n: int
    paired: str | None
    paired_n: int | None
    seed: int
    format: str
    scale: int
    width: int
    score_only: bool
    short: bool
    quiet: bool


def warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    # argparse prints the usage and exits; a one-line message is wanted instead.
    def error(self, message: str) -> None:  # type: ignore[override]
        if "required: REF" in message:
            message = (
                "no reference file: references come first, system outputs after -i "
                f"({PROG} REF [REF ...] -i HYP [HYP ...]; every file after -i is a system output)"
            )
        raise UsageError(message)


class _Answer(argparse.Action):
    """A sacrebleu option that has no meaning here: refused with what to do instead."""

    def __init__(self, option_strings: list[str], dest: str, answer: str = "", nargs: Any = "*", **kwargs: Any):
        super().__init__(option_strings, argparse.SUPPRESS, nargs, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        self.answer = answer

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        raise UsageError(f"{option_string}: {self.answer}")


class _Citation(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        raise Done(CITATION)


def _encoding(text: str) -> str:
    with contextlib.suppress(LookupError):
        if codecs.lookup(text).name == "utf-8":
            return text
    message = f"files are read as UTF-8 only, got {text!r}: convert them first (iconv -f {text} -t utf-8 FILE > NEW)"
    raise argparse.ArgumentTypeError(message)


def _metrics(text: str) -> str:
    if text.lower() not in ("gleu", "google_bleu", "google-bleu"):
        raise argparse.ArgumentTypeError(f"this command computes GLEU only, got {text!r}: use sacrebleu -m {text}")
    return text


def _language_pair(text: str) -> str:
    source, _, target = text.partition("-")
    if not source or not target or "-" in target:
        raise argparse.ArgumentTypeError(f"must be a language pair SRC-TRG (as en-de), got {text!r}")
    return text


def _integer(minimum: int, rule: str) -> Callable[[str], int]:
    """An option's type: an integer of at least ``minimum``, else "``rule``, got 'TEXT'"."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{rule}, got {text!r}")
        return value

    return parse


def _figure(check: Callable[[Any], int]) -> Callable[[str], int]:
    """An option's type checked by the scorer's rule for printed figures (its message, the text as given)."""

    def parse(text: str) -> int:
        try:
            value: Any = int(text)
        except ValueError:
            value = text  # refused by the check, with its message
        try:
            return check(value)
        except (ValueError, TypeError) as error:
            raise argparse.ArgumentTypeError(f"{str(error).rsplit(', got ', 1)[0]}, got {text!r}") from None

    return parse


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (sacrebleu's option names and short forms)."""
    parser = _Parser(
        prog=PROG,
        description="Google-BLEU (GLEU, Wu et al. 2016): corpus and sentence scores exact to nltk, "
        "bootstrap confidence intervals and paired significance tests.",
        epilog="sacrebleu's spellings are accepted where they mean something here (-l, -pbsn, -parn, -sh, -e utf-8, "
        "-m gleu, -nc, --force, --paired-jobs, --citation); its test-set, BLEU, chrF and TER options are refused "
        "with what to do instead. No option may be abbreviated.",
        allow_abbrev=False,
    )
    positive = _integer(1, "must be a positive integer")
    parser.add_argument("refs", nargs="+", metavar="REF", help="reference files, one segment a line (before -i)")
    parser.add_argument("-i", "--input", nargs="+", metavar="HYP", help="system output files (default: standard input)")
    parser.add_argument(
        "-tok", "--tokenize", choices=list(SACREBLEU_TOKENIZERS),
        help=f"tokenizer (default {DEFAULT_TOKENIZER}, or the one -l chooses)",
    )  # fmt: skip
    parser.add_argument(
        "-l", "--language-pair", type=_language_pair, metavar="SRC-TRG",
        help="as sacrebleu without a test set: the target language chooses the default tokenizer "
        f"({', '.join(f'{lang}: {tok}' for lang, tok in LANGUAGE_TOKENIZERS.items())}, else {DEFAULT_TOKENIZER})",
    )  # fmt: skip
    parser.add_argument(
        "-nr", "--num-refs", type=positive, default=1,
        help="references per line of the one REF file, tab-separated (as sacrebleu; default 1)",
    )  # fmt: skip
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("--min-len", type=int, default=1, help="lowest n-gram order (default 1)")
    parser.add_argument("--max-len", type=int, default=4, help=f"highest n-gram order (default 4, at most {MAX_ORDER})")
    jobs = _integer(0, "must be 0 (all cores) or a positive integer")
    parser.add_argument("-j", "--jobs", type=jobs, default=1, help="worker processes (default 1; 0 = all cores); same output")
    parser.add_argument("--paired-jobs", dest="jobs", type=jobs, default=argparse.SUPPRESS, help="sacrebleu's name of --jobs")
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
        "-cin", "--confidence-n", type=int, default=DEFAULT_N_BOOTSTRAP,
        help=f"bootstrap resamples for intervals (default %(default)s, at most {MAX_SAMPLES})",
    )  # fmt: skip
    paired = stats.add_mutually_exclusive_group()
    paired.add_argument("-pbs", "--paired-bs", action="store_true", help="paired bootstrap test against the first -i")
    paired.add_argument(
        "-par", "--paired-ar", action="store_true", help="paired approximate randomization test against the first -i"
    )
    stats.add_argument(
        "--paired-n", type=int, metavar="N",
        help=f"resamples (bs, default {DEFAULT_N_BOOTSTRAP}) or trials (ar, default {DEFAULT_N_RANDOMIZATION}), "
        f"at most {MAX_SAMPLES}",
    )  # fmt: skip
    stats.add_argument(
        "-pbsn", "--paired-bs-n", type=int, metavar="N", help="resamples of --paired-bs (sacrebleu's name)"
    )
    stats.add_argument("-parn", "--paired-ar-n", type=int, metavar="N", help="trials of --paired-ar (sacrebleu's name)")
    stats.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the resampling (default %(default)s)")
    output = parser.add_argument_group("output")
    output.add_argument(
        "-f", "--format", default="json", choices=["json", "text", "latex"], help="output format (default json)"
    )
    output.add_argument(
        "--scale", type=_figure(lambda scale: check_figures(0, scale)[1]), default=SCALES[0],
        help="scale of printed scores: 100 (default, as sacrebleu) or 1 (the API's 0-1 fractions)",
    )  # fmt: skip
    output.add_argument(
        "-b", "--score-only", action="store_true", help="print only the score(s), each system named when there are several"
    )
    output.add_argument(
        "--by-order", action="store_true",
        help="also each n-gram order's own score (the exact corpus GLEU of --min-len = --max-len = n)",
    )  # fmt: skip
    output.add_argument(
        "-w", "--width", type=_figure(lambda width: check_figures(width, SCALES[0])[0]),
        help=f"decimals of printed scores, 0-17 (default {WIDTHS[100]} on the 0-100 scale, {WIDTHS[1]} on 0-1: "
        "the same digits)",
    )  # fmt: skip
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
        ("-t", "--test-set", "--list", "--download", "--echo", "-ol", "--origlang", "--subset"): TEST_SETS,
        ("-d", "--detail"): "test sets are not downloaded, so there is no split by original language: "
        "score each subset's files",
        ("-s", "--smooth-method", "-sv", "--smooth-value"): "GLEU needs no smoothing (a segment with no match "
        "scores 0, and the corpus sums counts): drop the option",
        ("-cc", "--chrf-char-order", "-cw", "--chrf-word-order", "--chrf-beta", "--chrf-whitespace", "--chrf-lowercase",
         "--chrf-eps-smoothing"): "chrF is not computed here: use sacrebleu -m chrf",
        ("--ter-case-sensitive", "--ter-asian-support", "--ter-no-punct", "--ter-normalized"): "TER is not "
        "computed here: use sacrebleu -m ter",
    }
    for names, answer in answers.items():
        parser.add_argument(*names, action=_Answer, answer=answer)
    return parser


def parse(argv: Sequence[str] | None) -> Options:
    """The checked options of ``argv``; a refused value raises :class:`UsageError`, ``--citation``
    :class:`Done` with its text. Every check is here: any later error is a bug and keeps its traceback."""
    args = build_parser().parse_args(argv)
    paths = tuple(args.input) if args.input is not None else (STDIN,)
    paired = "bs" if args.paired_bs else "ar" if args.paired_ar else None
    paired_n, paired_n_name = _paired_n(args)
    try:
        check_n_samples(args.confidence_n, "--confidence-n")
        if paired_n is not None:
            check_n_samples(paired_n, paired_n_name)
        check_seed(args.seed, "--seed")
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    if args.sentence_level and (len(paths) > 1 or args.confidence or paired):
        raise UsageError("--sentence-level takes one system and no --confidence or paired test")
    if args.by_order and (args.sentence_level or args.score_only):
        raise UsageError("--by-order adds figures to corpus scores: it takes no --sentence-level or --score-only")
    if args.num_refs > 1 and len(args.refs) != 1:
        raise UsageError(f"--num-refs {args.num_refs} reads tab-separated references from one REF file, got {len(args.refs)}")
    if paired and len(paths) < 2:
        raise UsageError("paired tests need at least two systems after -i (the first is the baseline)")
    if paired and paired_n is None:
        paired_n = DEFAULT_N_BOOTSTRAP if paired == "bs" else DEFAULT_N_RANDOMIZATION
    try:
        settings = {"tokenizer": _tokenizer(args), "lowercase": args.lowercase, "min_len": args.min_len, "max_len": args.max_len}
        scorer = scorer_from_options(None, settings)
    except (ValueError, TypeError, ImportError) as error:  # ImportError: a tokenizer's extra is missing
        raise UsageError(str(error)) from None
    return Options(
        tuple(args.refs), paths, scorer, args.num_refs, args.jobs, args.sentence_level, args.by_order,
        args.confidence, args.confidence_n, paired, paired_n, args.seed, args.format, args.scale,
        WIDTHS[args.scale] if args.width is None else args.width, args.score_only, args.short, args.quiet,
    )  # fmt: skip


def _tokenizer(args: argparse.Namespace) -> str:
    """``-tok``, else what sacrebleu chooses from ``-l``'s target language; as sacrebleu, a
    ``-tok`` other than that language's own is used with a warning."""
    chosen = LANGUAGE_TOKENIZERS.get(args.language_pair.split("-")[1]) if args.language_pair is not None else None
    if args.tokenize is None:
        return chosen or DEFAULT_TOKENIZER
    if chosen is not None and args.tokenize != chosen:
        warn(f"-l {args.language_pair} chooses -tok {chosen} for its target language; -tok {args.tokenize} is used")
    return args.tokenize


def _paired_n(args: argparse.Namespace) -> tuple[int | None, str]:
    """The resamples or trials of the paired test and the option that gave them: ``--paired-n``, or
    sacrebleu's ``--paired-bs-n``/``--paired-ar-n`` only with its own test (none silently unused)."""
    values = (("--paired-n", args.paired_n), ("--paired-bs-n", args.paired_bs_n), ("--paired-ar-n", args.paired_ar_n))
    given = {name: value for name, value in values if value is not None}
    if len(given) > 1:
        raise UsageError(f"give the resamples once: {' and '.join(given)} were both given")
    for option, what, test, asked in (
        ("--paired-bs-n", "resamples", "-pbs/--paired-bs", args.paired_bs),
        ("--paired-ar-n", "trials", "-par/--paired-ar", args.paired_ar),
    ):
        if option in given and not asked:
            raise UsageError(f"{option} gives the {what} of {test}, which was not given (for either test: --paired-n)")
    name, value = next(iter(given.items()), ("--paired-n", None))
    return value, name
