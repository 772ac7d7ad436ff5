"""Worker processes (a :class:`concurrent.futures.ProcessPoolExecutor`) and the jobs policy: docs/design.md,
"Worker processes". A task is ``(function, args)``, called as ``function(scorer, *args)`` in a worker."""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from ..settings import GLEU
from ..validation import check_type, describe, integer

#: CPU seconds for a worker to start and take its first task: a fork then numpy's import; a
#: fresh interpreter importing google_bleu and numpy (2-core AMD EPYC).
WORKER_START_SECONDS = {"fork": 0.08, "spawn": 0.16}
#: Seconds of work a byte of input, systems and references together (``benchmarks/results/jobs.json``).
SECONDS_PER_BYTE = 0.03e-6
#: The variables that size numpy's BLAS and OpenMP thread pools: one thread a worker.
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: The name a worker takes (``/proc/PID/comm``, what ``ps`` shows; at most 15 bytes).
WORKER_NAME = b"google-bleu-wkr"


def one_thread_by_default() -> None:
    """Sets the :data:`ONE_THREAD` variables to 1 where the environment does not set them."""
    for name in ONE_THREAD:
        os.environ.setdefault(name, "1")


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity where the OS reports one)."""
    if hasattr(os, "process_cpu_count"):  # Python 3.13+
        return os.process_cpu_count() or 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def whole_number(value: Any, name: str, least: int = 1, what: str = "a positive integer") -> int:
    """``value`` as an int of at least ``least``, else an error naming ``name``."""
    number = integer(value)
    if number is None:
        raise TypeError(f"{name} must be an int, got {describe(value)}")
    if number < least:
        raise ValueError(f"{name} must be {what}, got {value}")
    return number


def resolve_jobs(jobs: Any) -> int:
    """The worker processes of a ``jobs`` setting (``0``: every available core)."""
    return whole_number(jobs, "jobs", 0, "0 (all cores) or a positive integer") or available_cores()


def start_method() -> str:
    """``fork`` on Linux where this process runs one thread, else ``spawn``."""
    deadline = time.monotonic() + 0.02
    while sys.platform.startswith("linux") and threading.active_count() == 1 and time.monotonic() < deadline:
        try:
            if len(os.listdir("/proc/self/task")) == 1:
                return "fork"
        except OSError:
            break
        time.sleep(0.001)  # a thread that has ended leaves /proc a moment after Python's join
    return "spawn"


def workers_for(size: int, jobs: int) -> int:
    """The workers worth starting on ``size`` bytes of input: each where its share of the work
    outlasts its start-up, at most ``jobs`` and the usable cores.

    Example:
        >>> workers_for(800_000, 16), workers_for(100_000_000, 16) == min(16, available_cores())
        (1, True)
    """
    useful = int(size * SECONDS_PER_BYTE / WORKER_START_SECONDS[start_method()])
    return max(1, min(jobs, available_cores(), useful))


def check_scorer(scorer: Any, jobs: int) -> None:
    """A :class:`~google_bleu.GLEU`, and one that pickles when workers will get it."""
    check_type(scorer, GLEU, "scorer", "a google_bleu.GLEU (e.g. GLEU(tokenizer='char'))")
    try:
        pickle.dumps(scorer if jobs > 1 else None)
    except Exception as error:  # PicklingError, AttributeError, TypeError...
        raise TypeError(
            f"jobs={jobs} sends the scorer to worker processes, but its tokenizer does not pickle "
            f"({type(error).__name__}: {error}); use a tokenizer name or a module-level function"
        ) from None


class WorkerError(RuntimeError):
    """A worker process that ended while it had work, or that could not start."""


def _ended(code: int | None) -> WorkerError:
    if code is not None and code > 0:
        return WorkerError(
            f"a worker process failed to start (exit code {code}; its error is above, on standard error); "
            'a script that uses jobs > 1 needs the guard if __name__ == "__main__": (workers are spawned)'
        )
    why = f"exit code {code}"
    if code is not None and -code in signal.valid_signals():
        cause = "the out-of-memory killer, or by hand" if -code == signal.SIGKILL else signal.strsignal(-code)
        why = f"killed by {signal.Signals(-code).name}: {cause}"
    return WorkerError(f"a worker process ended unexpectedly ({why}); retry with fewer --jobs or jobs=1")


class _Context:
    """The executor's ``mp_context``, which keeps the processes it starts and its result queue."""

    def __init__(self, method: str) -> None:
        import multiprocessing

        self.base, self.processes = multiprocessing.get_context(method), []

    def __getattr__(self, name: str) -> Any:  # Queue, get_start_method...
        return getattr(self.base, name)

    def Process(self, *args: Any, **kwargs: Any) -> Any:  # noqa: N802 - the context's names
        self.processes.append(self.base.Process(*args, **kwargs))
        return self.processes[-1]

    def SimpleQueue(self) -> Any:  # noqa: N802
        self.results = self.base.SimpleQueue()
        return self.results


_scorer: Any = None  # in a worker, its pool's


def _start(scorer: Any, inputs: tuple[Any, ...]) -> None:
    """A worker's start (the executor's initializer); ``inputs`` stay open in it from now on."""
    global _scorer
    _scorer = scorer
    one_thread_by_default()  # before numpy's import here; the caller's own settings stand
    gc.freeze()  # its collections never write to the pages a fork shares with the caller
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group: the parent stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker has the caller's handler
    try:
        with open("/proc/self/comm", "wb") as comm:
            comm.write(WORKER_NAME)
    except OSError:
        pass
    import multiprocessing.connection

    def orphaned(parent: Any) -> None:
        multiprocessing.connection.wait([parent.sentinel])  # ready once the parent has ended, however it ended
        os._exit(1)

    threading.Thread(target=orphaned, args=(multiprocessing.parent_process(),), daemon=True).start()


def _call(function: Callable[..., Any], args: tuple) -> Any:
    return function(_scorer, *args)


class WorkerPool:
    """At most ``jobs`` worker processes (and the usable cores), each given the scorer and the
    descriptors ``keep`` once; none with one, or in a daemonic process (the work is then done
    here). Close it, or use ``with``, to end them."""

    def __init__(self, scorer: Any, jobs: int, keep: tuple[Any, ...] = ()) -> None:
        self.scorer, self.keep, self.executor, self.processes = scorer, keep, None, min(jobs, available_cores())
        if self.processes > 1:
            import multiprocessing

            self.processes = 1 if multiprocessing.current_process().daemon else self.processes

    def run(self, tasks: Iterator[tuple[Callable[..., Any], tuple]]) -> Iterator[Any]:
        """Each task's result, in order; a task that raised raises when its turn comes. Tasks are
        taken as workers need them; leaving the loop before the last result ends the workers."""
        if self.processes == 1:
            yield from (function(self.scorer, *args) for function, args in tasks)
            return
        pending: deque[Any] = deque()
        try:
            for task in tasks:
                pending.append(self._submit(*task))
                if len(pending) > 2 * self.processes:
                    yield self._result(pending.popleft())
            while pending:
                yield self._result(pending.popleft())
        except BaseException as error:  # GeneratorExit: the caller left the loop, done or not
            if pending or not isinstance(error, GeneratorExit):
                self.close(kill=True)
            raise

    def _submit(self, function: Callable[..., Any], args: tuple) -> Any:
        import multiprocessing
        from concurrent.futures import BrokenExecutor, ProcessPoolExecutor

        method = multiprocessing.get_start_method(allow_none=True)
        try:
            if self.executor is None:
                self.context = _Context(start_method())
                self.executor = ProcessPoolExecutor(self.processes, self.context, _start, (self.scorer, self.keep))
            return self.executor.submit(_call, function, args)
        except (OSError, NotImplementedError) as error:  # descriptors, processes or semaphores ran out
            reason = getattr(error, "strerror", None) or error
            raise WorkerError(f"cannot start a worker process ({reason}); retry with fewer --jobs or jobs=1") from None
        except BrokenExecutor:
            raise self._broken() from None
        finally:
            if method is None:  # a spawn sets the process-wide start method, which is the caller's
                multiprocessing.set_start_method(None, force=True)

    def _result(self, future: Any) -> Any:
        from concurrent.futures import BrokenExecutor, wait

        while not wait([future], 0.1).done:
            for process in self.context.processes:  # (the executor waits for ever on a half-written result)
                if process.exitcode is not None:
                    raise _ended(process.exitcode)
        try:
            return future.result()
        except BrokenExecutor:
            raise self._broken() from None

    def _broken(self) -> WorkerError:
        self.close()  # the executor has ended the others (SIGTERM): another end names the cause
        codes = [process.exitcode for process in self.context.processes if process.exitcode is not None]
        return _ended(next((code for code in codes if code != -signal.SIGTERM), codes[0] if codes else None))

    def close(self, kill: bool = False) -> None:
        """Ends the workers once their tasks are done, or at once with ``kill``."""
        executor, self.executor = self.executor, None
        if executor is not None and kill:
            for process in self.context.processes:
                if process.pid is not None:  # started
                    process.kill()
            # The ends of the executor's pipes that a killed worker leaves it waiting on: a result
            # half-written, a task written to a pipe no one reads (before Python 3.11, gh-94777).
            self.context.results._writer.close()
            executor._call_queue._reader.close()
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        self.close(kill=kind is not None)
