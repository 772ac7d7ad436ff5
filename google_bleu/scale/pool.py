"""The worker processes and the jobs policy. A task is ``(function, args)``, called as
``function(scorer, *args)`` in a worker (or here, with one): docs/design.md, "Worker processes".
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from ..settings import scorer_from_options
from ..validation import describe, integer

#: Seconds of CPU for a worker to start and take its first task, by start method: a fork
#: then numpy's import (0.003 + 0.07 s), a fresh interpreter importing google_bleu and numpy
#: (0.15-0.16 s) (``getrusage`` of two workers, minus their work; 2-core AMD EPYC, 2026-11-27).
WORKER_START_SECONDS = {"fork": 0.08, "spawn": 0.16}
#: Seconds of work per byte of input, systems and references together: 2.6 s of CPU for the
#: 400,000-line pair (99 MB), 1.2 s for 100 WMT17 systems and their reference (37.4 MB), 13a
#: and --jobs 1, on the same machine (``benchmarks/results/jobs.json``): about 0.03 s a megabyte.
SECONDS_PER_BYTE = 0.03e-6
#: Variables that size the thread pools of numpy's BLAS and of OpenMP. A worker is one process
#: on one core: a thread per core cost 2.2 s of CPU each at numpy's import on a 16-core Xeon.
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: The name a worker takes (``/proc/PID/comm``: what ``ps`` and ``top`` show; at most 15 bytes).
WORKER_NAME = b"google-bleu-wkr"


def one_thread_by_default() -> None:
    """Sets the :data:`ONE_THREAD` variables to 1 where the environment does not set them;
    before numpy's import (the command's entry point, each worker)."""
    for name in ONE_THREAD:
        os.environ.setdefault(name, "1")


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
    resolved ``jobs``: each where its share of the work outlasts its start-up
    (:data:`WORKER_START_SECONDS`; they start side by side), never more than the usable cores.
    So 100 WMT systems (37 MB) take 14 forked workers and one system stays in this process.

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


class WorkerError(RuntimeError):
    """A worker process ended while it had work (killed, or failed to start), or none could
    be started (a resource limit)."""


class RemoteTraceback(Exception):
    """A worker's traceback, as text: the ``__cause__`` of its exception re-raised here."""


class Descriptor:
    """A descriptor the workers read: a forked one inherits it, a spawned one gets it passed
    as it starts (:func:`multiprocessing.reduction.DupFd`, at the same number on POSIX)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, tuple]:
        from multiprocessing.reduction import DupFd

        return _passed, (DupFd(self.fd),)


def _passed(dup: Any) -> Descriptor:
    return Descriptor(dup.detach())


def _serve(connection: Any, scorer: Any, inherited: tuple[int, ...], kept: tuple[Descriptor, ...]) -> None:
    """A worker's life: tasks in, results (or exceptions) out, until its connection reads as
    end of file: the pool closed it, or the pool's process ended (only it holds that end; a
    forked worker closes the ``inherited`` copies). ``kept``: the inputs, held while it lives."""
    for descriptor in inherited:
        os.close(descriptor)
    one_thread_by_default()  # before numpy's import here; the caller's own settings stand
    gc.freeze()  # its collections never write to the pages a fork shares with the caller
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group: the parent stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker has the caller's handler
    try:
        with open("/proc/self/comm", "wb") as comm:
            comm.write(WORKER_NAME)
    except OSError:
        pass
    while True:
        try:
            function, args = pickle.loads(connection.recv_bytes())
        except (EOFError, OSError):
            return
        try:
            data = pickle.dumps((True, function(scorer, *args)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as error:  # MemoryError too: raised as such in the caller
            text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            try:
                data = pickle.dumps((False, (error, text)))
            except Exception:  # an exception's arguments may not pickle (any type)
                data = pickle.dumps((False, (RuntimeError(f"{type(error).__name__}: {error}"), text)))
        try:
            connection.send_bytes(data)
        except OSError:
            return


class _Worker:
    """A worker process and this process's end of its socket pair, which reads as end of file
    when the worker dies, however and whenever."""

    def __init__(self, context: Any, scorer: Any, inherited: tuple[int, ...], kept: tuple[Descriptor, ...]) -> None:
        here, there = context.Pipe(duplex=True)
        inherited = (*inherited, here.fileno()) if context.get_start_method() == "fork" else ()
        self.process = context.Process(target=_serve, args=(there, scorer, inherited, kept), name="google-bleu-worker")
        try:
            self.process.start()
        except BaseException:
            here.close()
            raise
        finally:
            there.close()
        self.connection, self.task, self.answered = here, None, False

    def failure(self) -> WorkerError:
        """Why the worker ended, from its exit status."""
        self.process.join(2)
        code = self.process.exitcode
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            why = f"ended unexpectedly (killed by {name}: the out-of-memory killer, or by hand)"
        elif code is not None and not self.answered:
            return WorkerError(
                f"a worker process failed to start (exit code {code}; its error is above, on standard error); "
                "a script that uses jobs > 1 needs the guard if __name__ == \"__main__\": (workers are spawned)"
            )
        else:
            why = f"ended unexpectedly (exit code {code})"
        return WorkerError(f"a worker process {why}; retry with fewer --jobs or jobs=1")

    def stop(self, kill: bool) -> None:
        """Ends the worker: closing the connection ends an idle one; ``kill`` ends it at once."""
        if kill:
            self.process.kill()
        self.connection.close()
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.process.close()


def _cannot_start(error: Exception) -> WorkerError:
    reason = getattr(error, "strerror", None) or error
    return WorkerError(f"cannot start a worker process ({reason}); retry with fewer --jobs or jobs=1")


class WorkerPool:
    """Worker processes for a run of tasks, started as the tasks need them: at most ``jobs``
    and the usable cores, forked or spawned as :func:`start_method` says when the pool is made
    (or ``start``). None in a daemonic process (multiprocessing forbids its children): then,
    as with one, the work is done here. ``keep``: descriptors the workers read.

    A :meth:`run` left by an exception kills the workers; :meth:`close` (or the end of a
    ``with`` block) ends the idle ones and kills those still holding a task.

    Example:
        >>> from google_bleu import GLEU
        >>> with WorkerPool(GLEU(), jobs=1) as pool:
        ...     [stats.score() for stats in pool.run(iter([(GLEU.stats, (["a b"], [["a b"]]))]))]
        [1.0]
    """

    def __init__(self, scorer: Any, jobs: int, start: str | None = None, keep: tuple[Descriptor, ...] = ()) -> None:
        if start not in (None, "fork", "spawn"):
            raise ValueError(f"start must be None, 'fork' or 'spawn', got {start!r}")
        self.scorer, self.keep, self._workers = scorer, keep, []
        self.processes = min(jobs, available_cores())
        if self.processes > 1:
            try:
                import multiprocessing
                import multiprocessing.connection
            except OSError as error:  # no descriptor left to read the modules with
                raise _cannot_start(error) from None
            if multiprocessing.current_process().daemon:
                self.processes = 1
            self.context = multiprocessing.get_context(start or start_method())

    def _start(self) -> _Worker:
        inherited = tuple(worker.connection.fileno() for worker in self._workers)
        try:
            worker = _Worker(self.context, self.scorer, inherited, self.keep)
        except OSError as error:  # descriptors, processes or memory ran out
            raise _cannot_start(error) from None
        self._workers.append(worker)
        return worker

    def run(self, tasks: Iterator[tuple[Callable[..., Any], tuple]]) -> Iterator[Any]:
        """Each task's result, in order; a task that raised raises when its turn comes (so the
        earliest failing task is the one seen). Tasks are taken lazily: one per worker, and
        the next one made while they work."""
        if self.processes == 1:
            for function, args in tasks:
                yield function(self.scorer, *args)
            return
        from multiprocessing.connection import wait

        for worker in self._workers:  # holding a task of an abandoned run: its answer is not ours
            if worker.task is not None:
                worker.stop(kill=True)
        self._workers = [worker for worker in self._workers if worker.task is None]
        done: dict[int, tuple[bool, Any]] = {}
        staged: deque[tuple[int, bytes]] = deque()
        count = returned = 0
        finished = False
        try:
            while True:
                idle = [worker for worker in self._workers if worker.task is None]
                while not finished and len(staged) <= len(idle) + self.processes - len(self._workers):
                    task = next(tasks, None)
                    finished = task is None
                    if task is not None:
                        staged.append((count, pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)))
                        count += 1
                while len(staged) > len(idle) and len(self._workers) < self.processes:
                    idle.append(self._start())
                for worker in idle[: len(staged)]:
                    worker.task, data = staged.popleft()
                    try:
                        worker.connection.send_bytes(data)
                    except OSError:  # it died before reading: its answer is the end of file
                        pass
                busy = {worker.connection: worker for worker in self._workers if worker.task is not None}
                if not busy:
                    return
                for connection in wait(list(busy)):
                    worker = busy[connection]
                    try:
                        ok, value = pickle.loads(connection.recv_bytes())
                    except (EOFError, OSError):
                        raise worker.failure() from None
                    done[worker.task], worker.task, worker.answered = (ok, value), None, True
                    finished = finished or not ok  # no new task after a failure
                while returned in done:
                    ok, value = done.pop(returned)
                    if not ok:
                        raise value[0] from RemoteTraceback(value[1])
                    yield value
                    returned += 1
        except GeneratorExit:  # the caller stopped: idle workers stay for close() or the next run
            raise
        except BaseException:
            self.close(kill=True)
            raise

    def close(self, kill: bool = False) -> None:
        """Stops the workers: the idle ones end as their connection closes; those holding a
        task, or every one with ``kill``, are killed."""
        workers, self._workers = self._workers, []
        for worker in workers:
            if kill or worker.task is not None:
                worker.process.kill()
        for worker in workers:
            worker.stop(kill=False)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        self.close(kill=kind is not None)
