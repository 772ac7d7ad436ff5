"""The worker processes: start, stop, Ctrl-C and SIGTERM, a worker that dies or fails to
start, and the jobs policy (:func:`workers_for`, from measured costs written beside it).

One task shape, ``(function, args)``: a worker calls ``function(scorer, *args)`` with the
:class:`~google_bleu.GLEU` it was started with and sends back what it returns (or raised);
with one worker the same call is made here. Why our own pool and not
:class:`concurrent.futures.ProcessPoolExecutor`: docs/design.md, "Worker processes".
"""

from __future__ import annotations

import ctypes
import gc
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..scorer import scorer_from_options
from ..validation import describe, integer

#: Seconds of CPU for a worker to start and take its first task, by start method: a fork
#: then numpy's import (0.003 + 0.07 s), a fresh interpreter importing google_bleu and numpy
#: (0.15-0.16 s) (``getrusage`` of two workers, minus their work; 2-core AMD EPYC, 2026-11-27).
WORKER_START_SECONDS = {"fork": 0.08, "spawn": 0.16}
#: Seconds of work per byte of input, systems and references together: 2.6 s of CPU for the
#: 400,000-line pair (99 MB), 1.2 s for 100 WMT17 systems and their reference (37.4 MB), 13a
#: and --jobs 1, on the same machine (``benchmarks/results/jobs.json``): about 0.03 s a megabyte.
SECONDS_PER_BYTE = 0.03e-6


#: Variables that size the thread pools of numpy's BLAS and of OpenMP. A worker is one
#: process on one core: a thread per core in each cost 2.2 s of CPU at numpy's import on a
#: 16-core Xeon, and 16 workers ran 256 threads. Workers get one each, unless the caller set them.
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_thread_by_default() -> None:
    """Sets the :data:`ONE_THREAD` variables to 1 for this process and those it starts, where
    the environment does not set them; before numpy's import (the command's entry point)."""
    for name in ONE_THREAD:
        os.environ.setdefault(name, "1")


@contextmanager
def one_thread_each() -> Iterator[None]:
    """Processes started inside this block get the :data:`ONE_THREAD` variables set to 1
    (those the environment does not set already)."""
    added = [name for name in ONE_THREAD if name not in os.environ]
    for name in added:
        os.environ[name] = "1"
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity where the OS reports one)."""
    if hasattr(os, "process_cpu_count"):  # Python 3.13+
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def resolve_jobs(jobs: Any) -> int:
    """The number of worker processes for a ``jobs`` setting (``0``: every available core).

    Example:
        >>> resolve_jobs(2)
        2
        >>> resolve_jobs(-1)
        Traceback (most recent call last):
        ...
        ValueError: jobs must be 0 (all cores) or a positive integer, got -1
        >>> resolve_jobs("2")
        Traceback (most recent call last):
        ...
        TypeError: jobs must be an int, got str '2'
    """
    number = integer(jobs)
    if number is None:
        raise TypeError(f"jobs must be an int, got {describe(jobs)}")
    if number < 0:
        raise ValueError(f"jobs must be 0 (all cores) or a positive integer, got {jobs}")
    return available_cores() if number == 0 else number


def start_method() -> str:
    """How workers start: ``fork`` on Linux where this process runs one thread (so no lock
    is held by another thread at the fork), else ``spawn``; docs/design.md, "Worker processes"."""
    if sys.platform.startswith("linux"):
        try:
            if len(os.listdir("/proc/self/task")) == 1:
                return "fork"
        except OSError:
            pass
    return "spawn"


def workers_for(size: int, jobs: int) -> int:
    """The workers worth starting on ``size`` bytes of input (systems and references), for a
    resolved ``jobs``.

    A worker is started only where its share of the work takes at least as long as starting
    it (:data:`WORKER_START_SECONDS`, by :func:`start_method`): the workers start side by
    side, so each one pays for itself once its share exceeds its own start-up. So a 50 MB
    system and its 50 MB reference (3 s of work) take 16 cores, 100 WMT systems (37 MB)
    take 14 forked workers, one WMT system (0.8 MB with its reference) stays in this
    process, and never more than the cores this process may run on.

    Example:
        >>> workers_for(800_000, 16), workers_for(100_000_000, 16) == min(16, available_cores())
        (1, True)
    """
    useful = int(size * SECONDS_PER_BYTE / WORKER_START_SECONDS[start_method()])
    return max(1, min(jobs, available_cores(), useful))


def check_scorer(scorer: Any, jobs: int) -> None:
    """A :class:`~google_bleu.GLEU`, and one that pickles when workers will get it."""
    scorer_from_options(scorer)
    if jobs > 1:
        try:
            pickle.dumps(scorer)
        except Exception as error:  # pickling raises several types (PicklingError, AttributeError, TypeError)
            raise TypeError(
                f"jobs={jobs} sends the scorer to worker processes, but its tokenizer does not pickle "
                f"({type(error).__name__}: {error}); use a tokenizer name or a module-level function"
            ) from None


# -- worker side ---------------------------------------------------------------------------
#: Seconds between a worker's checks that its parent is alive (where PR_SET_PDEATHSIG is missing).
PARENT_POLL_SECONDS = 0.5


#: The name of a worker process (``/proc/PID/comm``, what ``ps`` and ``top`` show; at most
#: 15 bytes), where the OS lets a process name itself.
WORKER_NAME = b"google-bleu-wkr"


def _die_with_parent(parent: int) -> None:
    """Ends this worker when the process that started it ends, however it ends (SIGKILL too):
    on Linux the kernel's ``PR_SET_PDEATHSIG``; everywhere, a daemon thread that checks
    ``os.getppid()`` (a dead parent's children are reparented). On Linux the worker also
    takes :data:`WORKER_NAME` (a forked worker would otherwise show its parent's)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
            libc.prctl(15, ctypes.c_char_p(WORKER_NAME), 0, 0, 0)  # 15 = PR_SET_NAME
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="google-bleu-parent-watch", daemon=True).start()


#: The signals the command line turns into exceptions (Ctrl-C, and SIGTERM).
_DEFERRED = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _signals_deferred(tracker: bool = False) -> Iterator[None]:
    """Holds SIGINT and SIGTERM back while the pool starts or kills processes (the command
    line turns both into exceptions, which could leave a worker unkilled or half started);
    a signal that arrives is delivered when the block ends. ``tracker``: processes will be
    spawned, so multiprocessing's resource tracker is started first (see below).

    Two holds, as Python runs a handler in the main thread whichever thread the signal
    reaches: the main thread's mask (which the workers inherit, so a Ctrl-C cannot strike
    one still starting), and a handler that notes a signal that reaches another thread."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    if tracker:
        # Started on first use, the tracker unblocks SIGINT and SIGTERM (CPython's bpo-33613
        # code), which would end the hold inside the block.
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    caught: list[int] = []
    handlers = {}
    for signum in _DEFERRED:
        handler = signal.getsignal(signum)
        if handler is not None and handler is not signal.SIG_IGN:  # None: set outside Python
            handlers[signum] = signal.signal(signum, lambda signum, frame: caught.append(signum))
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a pending signal is noted here
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(caught):
            signal.raise_signal(signum)  # through the handler restored


# -- the pool ------------------------------------------------------------------------------
#: The one task shape: a module-level function, called as ``function(scorer, *args)``, and its arguments.
Task = tuple[Callable[..., Any], tuple]


class WorkerError(RuntimeError):
    """A worker process ended while it had work: killed by a signal (e.g. by the out-of-memory
    killer), or failed to start (its exit code, and its error on standard error)."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, as text (the ``__cause__`` of the
    exception re-raised here, as :mod:`concurrent.futures` shows it)."""

    def __str__(self) -> str:
        return self.args[0]


def _reply(error: BaseException) -> bytes:
    """An exception raised in a worker, pickled for this process (as a ``RuntimeError`` with
    its text when the exception itself does not pickle)."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    try:
        return pickle.dumps((False, error, text))
    except Exception:  # an exception's arguments may not pickle (any type)
        return pickle.dumps((False, RuntimeError(f"{type(error).__name__}: {error}"), text))


def _serve(connection: Any, scorer: Any, parent: int, inherited: tuple[int, ...] = ()) -> None:
    """A worker's life: tasks in, their results (or exceptions) out, one at a time, until
    the pool closes its end of the connection. ``inherited``: descriptors a forked worker
    got from the pool that are not its own (the other workers' connections), closed first."""
    for descriptor in inherited:
        try:
            os.close(descriptor)
        except OSError:
            pass
    # Ctrl-C reaches the whole process group: the parent stops the workers, so they do not
    # print a KeyboardInterrupt traceback each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker has the caller's handler
    if hasattr(signal, "pthread_sigmask"):  # the parent blocked them while it started us
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _DEFERRED)
    _die_with_parent(parent)
    while True:
        try:
            function, args = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError):  # the pool closed: this worker's work is done
            return
        try:
            data = pickle.dumps((True, function(scorer, *args), None), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            data = _reply(error)
        try:
            connection.send_bytes(data)
        except OSError:  # the pool is gone
            return


class _Worker:
    """One worker process and this process's end of its connection (a socket pair). The
    worker's end is held by the worker alone, so when it dies, however and whenever (even
    mid-result), this end reads as end of file: nothing here waits for a lost message."""

    def __init__(self, context: Any, scorer: Any, inherited: tuple[int, ...] | None = None) -> None:
        here, there = context.Pipe(duplex=True)
        if inherited is not None:  # forked: this process's ends, its own included, are not the worker's
            inherited = (*inherited, here.fileno())
        self.process = context.Process(
            target=_serve, args=(there, scorer, os.getpid(), inherited or ()), name="google-bleu-worker", daemon=True
        )
        try:
            self.process.start()
        except BaseException:
            here.close()
            raise
        finally:
            there.close()
        self.connection = here
        #: The index of the task it holds (None: idle).
        self.task: int | None = None
        #: Whether it has answered a task (so it started).
        self.answered = False

    def failure(self) -> WorkerError:
        """Why the worker ended, from its exit status (it has closed its connection)."""
        try:
            self.process.join(2)
            code = self.process.exitcode
        except (OSError, ValueError, AssertionError):
            code = None
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            return WorkerError(
                f"a worker process ended unexpectedly (killed by {name}: the out-of-memory killer, or by hand); "
                "retry with fewer --jobs or jobs=1"
            )
        if code is not None and not self.answered:
            return WorkerError(
                f"a worker process failed to start (exit code {code}; its error is above, on standard error); "
                "a script that uses jobs > 1 needs the guard if __name__ == \"__main__\": (workers are spawned)"
            )
        return WorkerError(f"a worker process ended unexpectedly (exit code {code}); retry with fewer --jobs or jobs=1")

    def kill(self) -> None:
        try:
            self.process.kill()
        except (OSError, ValueError, AttributeError):  # already gone, or already closed
            pass
        self.connection.close()

    def stop(self, timeout: float) -> None:
        """Waits up to ``timeout`` seconds for the process to end, kills it if it has not, and
        releases what it held here."""
        try:
            self.process.join(timeout)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(timeout)
            self.process.close()
        except (OSError, ValueError, AssertionError):  # already closed, or still alive after a kill
            pass
        self.connection.close()


def _stop(workers: list[_Worker], kill: bool) -> None:
    """Stops workers taken out of a pool: an idle one reads the end of its connection and
    exits (killed if it has not within a few seconds); one holding a task, or every one
    with ``kill``, is killed at once."""
    doomed = [worker for worker in workers if kill or worker.task is not None]
    if doomed:
        # No signal turned into an exception may leave a worker unkilled.
        with _signals_deferred():
            for worker in doomed:
                worker.kill()
    for worker in workers:
        if worker not in doomed:
            worker.connection.close()
    for worker in workers:
        worker.stop(10 if worker in doomed else 5)


class WorkerPool:
    """Worker processes for a whole run, shared by every call given it.

    Processes start as tasks need them, at most ``jobs`` and the usable cores (with one, the
    work is done here), forked or spawned (:func:`start_method`, or ``start``). Each holds
    one task at a time over its own socket pair, read in the calling thread: Ctrl-C
    interrupts any wait, and a worker killed mid-result is a :class:`WorkerError`.

    They stop at :meth:`close` or the end of a ``with`` block. A :meth:`run` left by an
    exception kills them; one the caller stops iterating leaves the idle ones to the next
    call, and those holding its tasks are killed by the next call or :meth:`close`. A
    worker also ends when this process dies, even by SIGKILL (:func:`_die_with_parent`).
    The caller checked ``jobs`` (:func:`resolve_jobs`) and the scorer (:func:`check_scorer`).

    Example:
        >>> from google_bleu import GLEU
        >>> with WorkerPool(GLEU(), jobs=1) as pool:
        ...     [stats.score() for stats in pool.run(iter([(GLEU.stats, (["a b"], [["a b"]]))]))]
        [1.0]
    """

    def __init__(self, scorer: Any, jobs: int, start: str | None = None) -> None:
        if start not in (None, "fork", "spawn"):
            raise ValueError(f"start must be None, 'fork' or 'spawn', got {start!r}")
        self.scorer, self.start = scorer, start
        #: The most worker processes this pool starts (more than the cores would only wait).
        self.processes = min(jobs, available_cores())
        self._workers: list[_Worker] = []

    def _spawn(self) -> _Worker:
        import multiprocessing

        method = self.start or start_method()
        inherited = tuple(worker.connection.fileno() for worker in self._workers) if method == "fork" else None
        with _signals_deferred(tracker=method == "spawn"), one_thread_each():
            # A forked worker's garbage collector never walks this process's objects (it would
            # write to every page holding one, so each worker would copy this process's heap).
            gc.freeze()
            try:
                worker = _Worker(multiprocessing.get_context(method), self.scorer, inherited)
            finally:
                gc.unfreeze()
            self._workers.append(worker)
        return worker

    def _receive(self, worker: _Worker) -> tuple[int, Any]:
        """The answer of a worker that has one ready (or has died)."""
        index, worker.task = worker.task, None
        try:
            ok, value, text = pickle.loads(worker.connection.recv_bytes())
        except (EOFError, OSError):
            raise worker.failure() from None
        worker.answered = True
        if not ok:
            raise value from RemoteTraceback(text)
        return index, value

    def run(self, tasks: Iterator[Task]) -> Iterator[Any]:
        """The result of each task, in order. The tasks are consumed lazily: one per worker
        in flight, and the next one made (and pickled) while they work."""
        if self.processes == 1:
            for function, args in tasks:
                yield function(self.scorer, *args)
            return
        from multiprocessing.connection import wait

        # Workers still holding a task of a call that was abandoned: their answers are not ours.
        abandoned = [worker for worker in self._workers if worker.task is not None]
        self._workers = [worker for worker in self._workers if worker.task is None]
        _stop(abandoned, kill=True)
        done: dict[int, Any] = {}
        staged: deque[tuple[int, bytes]] = deque()
        count = returned = 0
        finished = False
        try:
            while True:
                idle = [worker for worker in self._workers if worker.task is None]
                # Tasks for every worker that can take one now (idle, or still to start), and one more.
                while not finished and len(staged) <= len(idle) + self.processes - len(self._workers):
                    try:
                        task = next(tasks)
                    except StopIteration:
                        finished = True
                    else:
                        staged.append((count, pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)))
                        count += 1
                # Start every worker needed before sending to any: a send waits until its
                # worker has started (a spawned one is a fresh interpreter), side by side.
                while len(staged) > len(idle) and len(self._workers) < self.processes:
                    idle.append(self._spawn())
                for worker in idle:
                    if not staged:
                        break
                    worker.task, data = staged.popleft()
                    try:
                        worker.connection.send_bytes(data)
                    except OSError:  # it died before reading: its answer is the end of file
                        pass
                busy = {worker.connection: worker for worker in self._workers if worker.task is not None}
                if not busy:
                    return
                for connection in wait(list(busy)):
                    index, result = self._receive(busy[connection])
                    done[index] = result
                while returned in done:
                    yield done.pop(returned)
                    returned += 1
        except GeneratorExit:  # the caller stopped iterating: idle workers stay for the next call
            raise
        except BaseException:
            self.close(kill=True)
            raise

    def close(self, kill: bool = False) -> None:
        """Stops the workers (:func:`_stop`); ``kill``: every one at once, without waiting."""
        workers, self._workers = self._workers, []
        _stop(workers, kill)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        self.close(kill=kind is not None)


