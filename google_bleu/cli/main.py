"""The ``google-bleu`` command (docs/cli.md): :func:`run` parses the options (:mod:`.options`),
has the files counted by ``--jobs`` workers (:mod:`google_bleu.scale`) and prints the scores
(:mod:`.render`); :func:`main` turns errors into one line and an exit status (0 ok, 2 a usage or
input error, 1 the output or a worker failed).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from ..result import GleuScore
from ..scale.files import FileError
from ..scale.lines import LineError
from ..scale.parallel import SystemFiles
from ..scale.pool import WorkerError
from ..settings import GLEU
from ..stats import GleuStats
from ..tokenizers import TokenizerError
from .options import PROG, STDIN, Done, Options, UsageError, parse
from .options import warn as _warn
from .render import Output, OutputError, corpus, sentences

if TYPE_CHECKING:
    from tqdm import tqdm

#: A progress bar is drawn (on a terminal only) when systems x segments reach this.
PROGRESS_MIN_SEGMENTS = 10_000


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
    except (LineError, FileError, TokenizerError) as error:  # not UTF-8; unreadable; lines that differ in number; MeCab's limits
        raise UsageError(str(error)) from None


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



def run(argv: Sequence[str] | None, stdout: TextIO, stdin: BinaryIO | None = None) -> None:
    """Parses ``argv``, scores, and writes the output to ``stdout``."""
    try:
        options = parse(argv)
    except Done as done:
        output = Output(stdout)
        output.write(str(done))
        output.flush()
        return
    scorer, paths, paired = options.scorer, list(options.paths), options.paired

    # Each input is read once: checked and planned here (standard input, a pipe or a FIFO
    # copied once to a temporary file), then counted by at most --jobs workers that read
    # their own byte ranges; per-segment rows come back only where the output needs them.
    nrefs = options.num_refs if options.num_refs > 1 else len(options.refs)
    sources = [_stdin(stdin) if path == STDIN else path for path in paths]
    names = ["standard input" if path == STDIN else path for path in paths]
    rows = options.sentence_level or options.confidence or paired is not None
    files = _input(
        SystemFiles, sources, list(options.refs), scorer, options.jobs, _warn, names, options.num_refs, rows, options.by_order
    )

    work = len(paths) + (len(paths) - 1 if paired else 0) + (len(paths) if options.confidence and not paired else 0)
    with files, _progress(work, not options.quiet and files.lines * len(paths) >= PROGRESS_MIN_SEGMENTS) as progress:
        parts = _systems(files, names, progress)
        if options.sentence_level:
            text = sentences(parts[0][0], options)
        else:
            text = corpus(_system_scores(scorer, parts, paths, nrefs, paired, options, progress), options)
    output = Output(stdout)
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


def _system_scores(
    scorer: GLEU,
    parts: list[tuple[GleuStats, ...]],
    paths: list[str],
    nrefs: int,
    paired: str | None,
    args: Options,
    progress: tqdm | _NoProgress,
) -> list[GleuScore]:
    """Each system's score (with each order's, ``--by-order``) from the statistics its workers
    counted, the options as :func:`~.options.parse` checked them."""
    systems = [part[0] for part in parts]
    if not paired:
        n_bootstrap = args.confidence_n if args.confidence else None
        scores = []
        for path, (stats, *orders) in zip(paths, parts):
            scores.append(scorer.checked_score(stats, nrefs, n_bootstrap, args.seed, orders))
            if n_bootstrap is not None:
                progress.set_postfix_str(f"bootstrap {path}", refresh=False)
                progress.update()
        return scores
    # Each comparison depends only on the baseline and that system, so testing pair by
    # pair equals one call on all systems and lets the bar advance.
    scores = []
    for path, stats in zip(paths[1:], systems[1:]):
        pair = scorer.checked_paired_scores([systems[0], stats], paired, args.paired_n, args.seed, args.confidence_n, nrefs)
        scores += pair if not scores else pair[1:]
        progress.set_postfix_str(f"paired test {path}", refresh=False)
        progress.update()
    if args.by_order:
        orders = [scorer.checked_score(stats, nrefs, orders=rest).orders for stats, *rest in parts]
        scores = [dataclasses.replace(score, orders=each) for score, each in zip(scores, orders)]
    return scores


def _silence_stdout() -> None:
    # What is still buffered for a stream that cannot take it goes to /dev/null, so the
    # interpreter's final flush does not print a second error.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # no real stdout (closed, or captured in-process)
        pass


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


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command: returns the exit status (0 ok, 2 usage or input error, 1 output not
    written, a worker process killed or memory exhausted, 130 Ctrl-C) and writes the one line
    of an error on standard error. The ``google-bleu`` command ends on SIGINT and SIGTERM
    itself, killing its workers first (``google_bleu/__main__.py``); called here, Ctrl-C is
    Python's ``KeyboardInterrupt``."""
    _stderr_or_null()
    status, message = 0, None
    try:
        run(argv, sys.stdout)
    except UsageError as error:
        status, message = 2, " ".join(str(error).split())
    except (OutputError, WorkerError) as error:
        _silence_stdout()
        status, message = 1, str(error)
    except MemoryError:
        _silence_stdout()
        status, message = 1, "out of memory; retry with fewer --jobs (each worker holds its own text and counts) or --jobs 1"
    except BrokenPipeError:
        # `google-bleu ... | head` closes the pipe early; that is not an error.
        _silence_stdout()
    except OSError as error:  # a limit of the system (open files, memory) outside any input
        _silence_stdout()
        status, message = 1, f"{error.strerror or error}{f' ({error.filename})' if error.filename else ''}"
    except KeyboardInterrupt:
        status, message = 128 + signal.SIGINT, "interrupted"
    if message is not None:
        print(f"{PROG}: {'' if status == 130 else 'error: '}{message}", file=sys.stderr)
    return status
