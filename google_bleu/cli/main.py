"""The ``google-bleu`` command (docs/cli.md): :func:`run` parses the options (:mod:`.options`), has the
files counted (:mod:`google_bleu.scale`) and prints the scores (:mod:`.render`); :func:`main` is the process."""

from __future__ import annotations

import contextlib
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
    """Runs a step that reads the input files: their problems become one-line usage errors."""
    try:
        return read(*args, **kwargs)
    except (LineError, FileError, TokenizerError) as error:  # not UTF-8; unreadable; lines that differ in number; MeCab's limits
        raise UsageError(str(error)) from None


def _progress(total: int, enabled: bool) -> Any:
    """A tqdm bar on a terminal, else a context that gives None (and tqdm is not imported)."""
    try:
        enabled = enabled and sys.stderr.isatty()
    except (AttributeError, ValueError):  # no stderr, or a closed one
        enabled = False
    if not enabled:
        return contextlib.nullcontext()
    from tqdm import tqdm

    try:  # a terminal that reports no size (a fresh pty says 0x0) gets 80x24, where tqdm would draw nothing
        size = os.get_terminal_size(sys.stderr.fileno())
        shape = {} if size.columns > 0 and size.lines > 0 else {"ncols": 80, "nrows": 24}
    except (AttributeError, OSError, ValueError):
        shape = {}
    # mininterval=0 draws every step (there are few: one per system and test).
    return tqdm(
        total=total, desc=PROG, file=sys.stderr, disable=None, leave=False, mininterval=0,
        bar_format="{desc} [{bar:30}] {n_fmt}/{total_fmt} {postfix}", **shape,
    )


def _step(progress: tqdm | None, text: str) -> None:
    if progress is not None:
        progress.set_postfix_str(text, refresh=False)
        progress.update()


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

    # Each input is read once (docs/cli.md); per-segment rows come back only where the output needs them.
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


def _systems(files: SystemFiles, names: list[str], progress: tqdm | None) -> list[tuple[GleuStats, ...]]:
    """Each system's statistics (and its orders' totals, with ``--by-order``), as counted."""
    parts = []
    counted = iter(files)
    for name in names:
        parts.append(_input(next, counted))
        _step(progress, f"scored {name}")
    _input(next, counted, None)  # the end: its workers stop here, not when it is collected
    return parts


def _system_scores(
    scorer: GLEU, parts: list[tuple[GleuStats, ...]], paths: list[str], nrefs: int, paired: str | None, args: Options,
    progress: tqdm | None,
) -> list[GleuScore]:
    """Each system's score (with each order's, ``--by-order``) from the statistics counted."""
    systems = [part[0] for part in parts]
    if not paired:
        n_bootstrap = args.confidence_n if args.confidence else None
        scores = []
        for path, (stats, *orders) in zip(paths, parts):
            scores.append(scorer.checked_score(stats, nrefs, n_bootstrap, args.seed, orders))
            if n_bootstrap is not None:
                _step(progress, f"bootstrap {path}")
        return scores
    # Each comparison depends only on the baseline and that system, so testing pair by
    # pair equals one call on all systems and lets the bar advance.
    scores = []
    for path, stats in zip(paths[1:], systems[1:]):
        pair = scorer.checked_paired_scores([systems[0], stats], paired, args.paired_n, args.seed, args.confidence_n, nrefs)
        scores += pair if not scores else pair[1:]
        _step(progress, f"paired test {path}")
    if args.by_order:
        orders = [scorer.checked_score(stats, nrefs, orders=rest).orders for stats, *rest in parts]
        scores = [dataclasses.replace(score, orders=each) for score, each in zip(scores, orders)]
    return scores


def _silence_stdout() -> None:
    # What is still buffered for a stream that cannot take it goes to /dev/null: no second error at exit.
    with contextlib.suppress(AttributeError, OSError, ValueError):  # no real stdout (closed, or captured in-process)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _stderr_or_null() -> None:
    """With standard error closed (``2>&-``), warnings and errors go to /dev/null, not into the JSON on
    standard output (``print(file=None)``); /dev/null holds descriptor 2, so no file opened later takes it."""
    if sys.stderr is not None:
        return
    try:
        os.fstat(2)
    except OSError:
        with contextlib.suppress(OSError):
            fd = os.open(os.devnull, os.O_WRONLY)
            if fd != 2:
                os.dup2(fd, 2)
                os.close(fd)
    sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the whole process


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command: returns the exit status (0 ok, 2 usage or input error, 1 output not written, a
    worker killed or memory exhausted, 130 Ctrl-C) and writes an error's one line on standard error."""
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
