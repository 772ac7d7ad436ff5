"""What the scale room owes its caller: the files as they were opened, workers that live as
long as their pool, the caller's process left as it was (gc freeze, sys.modules), a daemonic
caller served, resource limits and failures reported in one line, the earliest error named.
"""

from __future__ import annotations

import faulthandler
import io
import os
import resource
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from google_bleu import GLEU
from google_bleu.scale.parallel import SystemFiles, file_stats, files_stats, parallel_stats
from google_bleu.scale.pool import WorkerError, available_cores
from tests.helpers.oracles import REPO, SAMPLES, read_lines
from tests.scale.test_parallel import big_input, workers_of

WMT17 = SAMPLES / "wmt17_en_de"
REF, HYP, OTHER = WMT17 / "ref0.txt", WMT17 / "sys_online-B.0.txt", WMT17 / "sys_uedin-nmt.4722.txt"
two_cores = pytest.mark.skipif(available_cores() < 2, reason="workers start only with two usable cores")
linux = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")


def script(code: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], cwd=REPO, capture_output=True, text=True, timeout=300, **kwargs
    )


# -- 1. the file as it was opened -----------------------------------------------------------
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_replaced_mid_run_is_read_as_it_was_opened(tmp_path, jobs):
    # Before, each task opened the path again: the same path given twice, replaced (mv)
    # between the two systems' tasks, gave the two "identical" systems different scores.
    path = tmp_path / "hyp.txt"
    path.write_bytes(HYP.read_bytes())
    replacement = tmp_path / "new.txt"
    replacement.write_bytes(OTHER.read_bytes())
    expected = GLEU().stats(read_lines(HYP), read_lines(REF))
    with SystemFiles([str(path), str(path)], str(REF), jobs=jobs, chunk_lines=100) as files:
        assert files.workers == min(jobs, available_cores())
        counted = iter(files)
        first = next(counted)[0]
        os.replace(replacement, path)  # what `mv new.txt hyp.txt` does
        second = next(counted)[0]
    assert first == second == expected


def test_a_file_rewritten_in_place_mid_run_is_an_error(tmp_path):
    path = tmp_path / "ref.txt"
    path.write_bytes(REF.read_bytes())
    systems = [str(HYP), str(OTHER)]
    counted = files_stats(systems, str(path), chunk_lines=100)
    next(counted)
    with open(path, "r+b") as handle:  # the same size, other bytes
        handle.write(b"X")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    with pytest.raises(ValueError, match=rf"^{path} changed while it was read; score it again once it is written$"):
        next(counted)


@linux
@two_cores
def test_the_command_scores_the_file_it_opened_when_it_is_moved_over(tmp_path):
    ref, hyp = big_input(tmp_path)
    expected = subprocess.run([sys.executable, "-m", "google_bleu", ref, "-i", hyp, "-b"], cwd=REPO, capture_output=True, text=True)
    other = tmp_path / "other.txt"
    other.write_bytes(OTHER.read_bytes() * 200)
    process = subprocess.Popen(
        [sys.executable, "-m", "google_bleu", ref, "-i", hyp, "-b", "--jobs", "2"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while len(workers_of(process.pid)) < 2 and process.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.replace(other, hyp)
    out, err = process.communicate(timeout=300)
    assert (process.returncode, out, err) == (0, expected.stdout, "")


# -- 2. workers live as long as their pool, whichever thread started them -------------------
@two_cores
def test_workers_started_in_a_thread_that_ended_still_serve():
    # PR_SET_PDEATHSIG follows the thread that made the worker: a web server's worker thread
    # that ended took the workers with it, and the next use said "killed by SIGKILL".
    made = []
    thread = threading.Thread(target=lambda: made.append(SystemFiles([str(HYP), str(OTHER)], str(REF), jobs=2, chunk_lines=50)))
    thread.start()
    thread.join()
    with made[0] as files:
        assert files.workers == 2
        got = [part[0] for part in files]
    assert got == [GLEU().stats(read_lines(path), read_lines(REF)) for path in (HYP, OTHER)]


# -- 3, 8, 9: the caller's process as it was; many threads at once; one start method --------
def test_the_callers_gc_freeze_is_kept():
    done = script(
        """
        import gc
        from google_bleu import GLEU
        from google_bleu.scale import parallel_stats

        def score():
            return parallel_stats(GLEU(), ["a b c"] * 40, [["a b"]] * 40, jobs=2, chunk_size=5)

        if __name__ == "__main__":
            score()  # the imports and caches of a first call, made before the freeze
            keep = [[i] for i in range(1000)]
            gc.freeze()
            frozen = gc.get_freeze_count()
            stats = score()
            print(frozen > 0, gc.get_freeze_count() == frozen, stats.score())
        """
    )
    assert (done.returncode, done.stdout.split()) == (0, ["True", "True", str(GLEU().stats(["a b c"], [["a b"]]).score())]), done.stderr


def test_eight_threads_that_first_score_together_all_score():
    # importlib's LazyLoader module in sys.modules["numpy"] was seen half-built by the other
    # threads while one ran numpy's __init__ (AttributeError: no attribute 'zeros').
    code = """
        import sys, threading
        import google_bleu
        print(type(sys.modules.get("numpy")).__name__ if "numpy" in sys.modules else "absent")
        barrier, results = threading.Barrier(8), []
        def first_use():
            barrier.wait()
            results.append(google_bleu.GLEU().stats(["the cat sat on the mat"] * 50, [["the cat ate the mat"]] * 50).score())
        threads = [threading.Thread(target=first_use) for _ in range(8)]
        for thread in threads: thread.start()
        for thread in threads: thread.join()
        import numpy
        print(len(results), len(set(results)), sys.modules["numpy"] is numpy and type(numpy).__name__)
    """
    for _ in range(4):  # each a fresh interpreter: numpy is imported by the threads themselves
        done = script(code)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert done.stdout.split() == ["absent", "8", "1", "module"], done.stdout


@linux
@two_cores
def test_one_pool_starts_every_worker_the_same_way():
    # Before, the start method was asked before each worker: the index of small files took
    # one forked worker, then numpy's import here (the rows' arrays) started BLAS threads, and
    # the second worker was spawned (a fresh interpreter, and a resource tracker beside it).
    done = script(
        """
        import os, sys
        from pathlib import Path
        from google_bleu.scale.parallel import SystemFiles

        def children():
            return {int(pid) for task in Path("/proc/self/task").glob("*/children") for pid in task.read_text().split()}

        if __name__ == "__main__":
            os.environ["OPENBLAS_NUM_THREADS"] = "2"
            mine = Path("/proc/self/cmdline").read_bytes()
            with SystemFiles(sys.argv[1:3], sys.argv[3], jobs=2, chunk_lines=50) as files:
                parts = list(files)
                kinds = [Path(f"/proc/{pid}/cmdline").read_bytes() == mine for pid in children()]
            print(len(parts), kinds)
        """,
        str(HYP),
        str(OTHER),
        str(REF),
    )
    assert (done.returncode, done.stdout.split("\n")[0]) == (0, "2 [True, True]"), (done.stdout, done.stderr)


# -- 4. a daemonic caller ------------------------------------------------------------------
def test_jobs_from_a_daemonic_process_count_in_that_process():
    done = script(
        """
        import multiprocessing
        from google_bleu import GLEU
        from google_bleu.scale import parallel_stats

        def score(_):
            return parallel_stats(GLEU(), ["a b c"] * 40, [["a b"]] * 40, jobs=2, chunk_size=5).score()

        if __name__ == "__main__":
            with multiprocessing.get_context("fork").Pool(1) as pool:  # its worker is daemonic
                print(pool.map(score, [0]), multiprocessing.active_children() != [])
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [f"[{GLEU().stats(['a b c'], [['a b']]).score()}]", "True"]


# -- 5. resource limits said as such -------------------------------------------------------
@linux
@two_cores
@pytest.mark.parametrize("limit", [5, 8])
def test_too_few_descriptors_for_workers_is_said_in_one_line(tmp_path, limit):
    ref, hyp = big_input(tmp_path)

    def few() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-m", "google_bleu", ref, "-i", hyp, "--jobs", "2"], cwd=REPO, capture_output=True, text=True, preexec_fn=few
    )
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    # Workers that cannot start are said so; with 5, even numpy's files cannot be opened.
    assert done.stderr.count("\n") == 1 and "Too many open files" in done.stderr, done.stderr
    if limit == 8:
        assert done.stderr == (
            "google-bleu: error: cannot start a worker process (Too many open files); retry with fewer --jobs or jobs=1\n"
        )
        one = subprocess.run(
            [sys.executable, "-m", "google_bleu", ref, "-i", hyp, "--jobs", "1"], cwd=REPO, capture_output=True, text=True,
            preexec_fn=few,
        )  # fmt: skip
        assert one.returncode == 0, one.stderr


def _out_of_memory(scorer: GLEU, *task: object) -> None:
    raise MemoryError()


def test_memory_exhausted_in_a_worker_is_one_line(tmp_path, monkeypatch, capsys):
    # A worker's MemoryError reaches the caller as MemoryError (not a dead pool), and the
    # command says it in one line.
    from google_bleu.cli import main as command
    from google_bleu.scale import plan

    monkeypatch.setattr(plan, "count_ranges", _out_of_memory)
    ref, hyp = big_input(tmp_path)
    assert command.main([ref, "-i", hyp, "--jobs", "2"]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        "google-bleu: error: out of memory; retry with fewer --jobs (each worker holds its own text and counts) or --jobs 1\n",
    )


# -- 6. a path without line breaks stops after the limit -------------------------------------
@linux
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_without_line_breaks_stops_after_the_limit(tmp_path, jobs):
    from google_bleu.scale.lines import MAX_LINE_BYTES

    sparse = tmp_path / "sparse.txt"
    with open(sparse, "wb") as handle:
        handle.truncate(4 << 30)  # 4 GiB of zeros on no disk
    ref = tmp_path / "ref.txt"
    ref.write_bytes(b"a\n")
    before = _bytes_read()
    with pytest.raises(ValueError, match=rf"sparse.txt: line 1 is longer than {MAX_LINE_BYTES} bytes"):
        file_stats(str(sparse), [str(ref)], jobs=jobs, chunk_lines=1)
    # This process's reads and its reaped workers': the limit and a few blocks, not 4 GiB.
    assert _bytes_read() - before < MAX_LINE_BYTES + (32 << 20)


def _bytes_read() -> int:
    return int(next(line.split()[1] for line in Path("/proc/self/io").read_text().splitlines() if line.startswith("rchar:")))


# -- 10. a process that is not dumpable ------------------------------------------------------
@linux
@two_cores
@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="drops its privileges: needs root")
def test_a_stream_with_workers_in_a_process_that_dropped_its_privileges():
    # Workers opened a copied stream as /proc/<parent>/fd/N, which the kernel refuses for a
    # process that dropped privileges (not dumpable): "cannot read stream: Permission denied".
    done = script(
        """
        import os, sys
        # Imported before the privileges go (this interpreter's files may be root's only), with
        # one BLAS thread: a process that runs one thread forks its workers.
        os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = "1"
        import concurrent.futures.process, multiprocessing.popen_fork, multiprocessing.popen_spawn_posix, multiprocessing.synchronize, numpy, sacrebleu
        from google_bleu.scale.parallel import file_stats

        if __name__ == "__main__":
            expected = file_stats(sys.argv[1], [sys.argv[2]]).total()
            with open(sys.argv[1], "rb") as hyp, open(sys.argv[2], "rb") as ref:
                os.setgid(65534)
                os.setuid(65534)  # as a daemon does once it has what it needs
                print(file_stats(hyp, [ref], jobs=2, chunk_lines=50).total() == expected)
        """,
        str(HYP),
        str(REF),
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\n", "")


# -- 11. the earliest bad line, whatever the worker count ----------------------------------
def picky(text: str) -> list[str]:
    """A tokenizer that takes its time and refuses one word (a module-level function: it pickles)."""
    if "POISON" in text:
        raise ValueError("a line this tokenizer refuses")
    time.sleep(0.0005)
    return text.split()


@two_cores
def test_jobs_name_the_earliest_failing_task(tmp_path):
    # Two bad lines in two tasks: the first task fails late (its tokenizer refuses line 1,900
    # after a second of work), the second at once (line 2,001 is not UTF-8). Before, the
    # error that arrived first was raised: the later line.
    # Each line made unique, so the line store's cache spares the tokenizer no call.
    lines = [line + b" %d" % number for number, line in enumerate((HYP.read_bytes() * 10).splitlines())]
    lines[1_899] = b"POISON " + lines[1_899]
    lines[2_000] = b"\xff" + lines[2_000]
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\n".join(lines))
    ref = tmp_path / "ref.txt"
    ref.write_bytes(REF.read_bytes() * 10)
    for _ in range(3):
        with pytest.raises(ValueError, match="a line this tokenizer refuses"):
            file_stats(str(bad), [str(ref)], GLEU(picky), jobs=2, chunk_lines=1_990)


def test_a_stream_is_read_through_its_copy_with_workers():
    data = HYP.read_bytes()
    expected = GLEU().stats(read_lines(HYP), read_lines(REF))
    assert file_stats(io.BytesIO(data), [str(REF)], jobs=2, chunk_lines=100) == expected


# -- 12. what a second audit found -------------------------------------------------------------
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_rewritten_in_place_with_its_size_and_time_put_back_is_an_error(tmp_path, jobs):
    # `cp -p`, `rsync --inplace -t` or `touch -r` put the size and modification time back:
    # before, the run then scored half the old file and half the new one, with no error.
    path = tmp_path / "ref.txt"
    path.write_bytes(REF.read_bytes())
    counted = files_stats([str(HYP), str(OTHER)], str(path), jobs=jobs, chunk_lines=100)
    next(counted)
    time.sleep(0.05)  # file times move by the kernel's clock tick
    before = os.stat(path)
    with open(path, "r+b") as handle:  # the same size, other bytes
        handle.write(b"X")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    with pytest.raises(ValueError, match=rf"^{path} changed while it was read; score it again once it is written$"):
        next(counted)


def test_workers_that_are_spawned_leave_the_start_method_unset():
    # Python's spawn records the process-wide start method ('fork' where none was set), so a
    # caller's later set_start_method("spawn") raised "context has already been set".
    done = script(
        """
        import multiprocessing, sys, threading
        from google_bleu import GLEU
        from google_bleu.scale import files_stats, parallel_stats
        from google_bleu.scale.pool import start_method

        if __name__ == "__main__":
            threading.Thread(target=threading.Event().wait, daemon=True).start()  # so workers are spawned
            parallel_stats(GLEU(), ["a b c"] * 40, [["a b"]] * 40, jobs=2, chunk_size=5)
            list(files_stats(sys.argv[1:2], sys.argv[2], jobs=2, chunk_lines=50))
            print(start_method(), multiprocessing.get_start_method(allow_none=True))
            multiprocessing.set_start_method("spawn")
            print(multiprocessing.get_start_method())
        """,
        str(HYP),
        str(REF),
    )
    assert (done.returncode, done.stdout.split(), done.stderr) == (0, ["spawn", "None", "spawn"], "")


def _crash(text: str) -> list[str]:
    """A tokenizer that crashes its process on one word (a module-level function: it pickles)."""
    if "CRASH" in text:
        faulthandler.disable()  # (pytest's would print this worker's stack on the test's terminal)
        os.kill(os.getpid(), signal.SIGSEGV)
    return text.split()


@two_cores
def test_a_worker_that_crashes_is_said_to_have_crashed():
    # Before: "killed by SIGSEGV: the out-of-memory killer, or by hand".
    predictions = ["a b c"] * 30 + ["CRASH"] + ["a b c"] * 9
    with pytest.raises(WorkerError) as error:
        parallel_stats(GLEU(tokenizer=_crash), predictions, [["a b"]] * 40, jobs=2, chunk_size=5)
    assert str(error.value) == (
        "a worker process ended unexpectedly (killed by SIGSEGV: Segmentation fault); retry with fewer --jobs or jobs=1"
    )


def test_parallel_stats_without_a_scorer_says_so():
    # Before: AttributeError: 'NoneType' object has no attribute 'tokenizer'.
    for jobs in (1, 2):
        with pytest.raises(TypeError, match=r"^scorer must be a google_bleu.GLEU \(e.g. GLEU\(tokenizer='char'\)\), got NoneType None$"):
            parallel_stats(None, ["a b"] * 4, [["a b"]] * 4, jobs=jobs, chunk_size=1)


@pytest.mark.skipif(not hasattr(os, "set_blocking"), reason="needs non-blocking pipes")
@pytest.mark.parametrize("first_part_waits", [True, False])
def test_a_non_blocking_stream_that_comes_late_and_in_parts_is_read_whole(first_part_waits):
    # Before: a non-blocking pipe with nothing in it yet read as its end ("standard input has
    # 0 lines but ref0.txt has 300"); with its first part in, the rest was cut off.
    data = HYP.read_bytes()  # less than a pipe holds
    parts = [data[: len(data) // 3], data[len(data) // 3 :]]
    reader, writer = os.pipe()
    os.set_blocking(reader, False)
    if not first_part_waits:
        os.write(writer, parts.pop(0))

    def feed() -> None:
        for part in parts:
            time.sleep(0.3)
            os.write(writer, part)
        os.close(writer)

    thread = threading.Thread(target=feed)
    thread.start()
    with open(reader, "rb") as stream:
        stats = file_stats(stream, [str(REF)], name="standard input")
    thread.join()
    assert stats == GLEU().stats(read_lines(HYP), read_lines(REF))


@linux
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_command_reads_standard_input_that_is_non_blocking_and_comes_late(jobs):
    data = HYP.read_bytes()
    expected = subprocess.run(
        [sys.executable, "-m", "google_bleu", str(REF), "-i", str(HYP), "-b"], cwd=REPO, capture_output=True, text=True
    )
    reader, writer = os.pipe()
    os.set_blocking(reader, False)

    def feed() -> None:
        for part in (data[:1000], data[1000:]):
            time.sleep(1)
            os.write(writer, part)
        os.close(writer)

    thread = threading.Thread(target=feed)
    thread.start()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "google_bleu", str(REF), "-b", "--jobs", jobs], cwd=REPO, stdin=reader,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        os.close(reader)
        thread.join()
    assert (done.returncode, done.stdout, done.stderr) == (0, expected.stdout, "")
