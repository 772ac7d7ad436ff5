"""Each input read once, whatever it is; the errors of the way in; signals a process inherited.

Issue 41: ``--by-order`` re-opened each path once per order, so a FIFO hung and a process
substitution read as empty; a failed spool write was reported as a failed read; an inherited
"ignore" of SIGINT was undone by the entry module. Issue 39: a worker that failed to start
was reported as killed.
"""

from __future__ import annotations

import json
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

from tests.helpers.oracles import REPO, SAMPLES
from tests.scale.test_parallel import catches

WMT17 = SAMPLES / "wmt17_en_de"
REF, HYP = WMT17 / "ref0.txt", WMT17 / "sys_online-B.0.txt"


def cli(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "google_bleu", *argv], cwd=REPO, capture_output=True, text=True, timeout=120, **kwargs
    )


def expected_by_order() -> dict:
    done = cli(str(REF), "-i", str(HYP), "--by-order", "-w", "6")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def without_name(obj: dict) -> dict:
    return {key: value for key, value in obj.items() if key != "system"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_by_order_reads_a_fifo_once(tmp_path):
    # Before: the command opened the FIFO once per order and blocked until killed (rc 124).
    fifo = tmp_path / "sys.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as handle:  # blocks until the command opens it
            handle.write(HYP.read_bytes())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = cli(str(REF), "-i", str(fifo), "--by-order", "-w", "6")
    writer.join(timeout=10)
    assert done.returncode == 0, done.stderr
    assert without_name(json.loads(done.stdout)) == without_name(expected_by_order())


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash for process substitution")
def test_by_order_reads_a_process_substitution_once():
    # Before: "/dev/fd/63 has 0 lines but ref.txt has 300" (rc 2): the second order read an
    # emptied pipe.
    python = f"{sys.executable} -m google_bleu"
    done = subprocess.run(
        ["/bin/bash", "-c", f"{python} {REF} -i <(cat {HYP}) <(cat {HYP}) --by-order -w 6"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    expected = without_name(expected_by_order())
    assert [without_name(obj) for obj in json.loads(done.stdout)] == [expected, expected]


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE")
def test_a_failed_spool_write_is_not_called_a_failed_read():
    # The copy of standard input cannot grow past 1 KiB: the write fails (EFBIG), not the read.
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # kept across exec: write() fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    with open(HYP, "rb") as stdin:
        done = cli(str(REF), stdin=stdin, preexec_fn=limit)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("google-bleu: error: cannot copy standard input to a temporary file in "), done.stderr
    assert done.stderr.endswith(": File too large\n") and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_inherited_sigint_ignore_is_kept(tmp_path, jobs):
    # A background job of a non-interactive shell starts with SIGINT ignored; Ctrl-C to the
    # terminal's group must not stop it. Before, the entry module re-enabled SIGINT, so the
    # command ended with 130 ("interrupted").
    big = tmp_path / "big.txt"
    big.write_bytes(HYP.read_bytes() * 170)
    ref = tmp_path / "ref.txt"
    ref.write_bytes(REF.read_bytes() * 170)
    full = cli(str(ref), "-i", str(big), "--jobs", jobs)
    assert full.returncode == 0, full.stderr
    process = subprocess.Popen(
        [sys.executable, "-m", "google_bleu", str(ref), "-i", str(big), "--jobs", jobs],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    # Its handlers are in place (SIGTERM caught) from the command's first line; SIGINT never is.
    deadline = time.monotonic() + 60
    while not catches(process.pid, signal.SIGTERM) and process.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.001)
    for _ in range(5):  # Ctrl-C to the whole group, at moments through the run
        time.sleep(0.1)
        assert not catches(process.pid, signal.SIGINT)
        try:
            os.killpg(process.pid, signal.SIGINT)
        except ProcessLookupError:
            break
    out, err = process.communicate(timeout=120)
    assert (process.returncode, out, err) == (0, full.stdout, "")


NO_GUARD = textwrap.dedent(
    """
    import sys, threading
    from google_bleu import GLEU
    from google_bleu.scale import parallel_stats
    from google_bleu.scale.pool import WorkerError, start_method

    # A program that runs a thread gets spawned workers (a fork could copy a lock that thread
    # holds); one that does not gets forked ones.
    if sys.argv[1] == "thread":
        threading.Thread(target=threading.Event().wait, daemon=True).start()
    if __name__ == "__main__":  # (a spawned worker running this again prints nothing)
        print(start_method(), flush=True)
    # No `if __name__ == "__main__":` guard: a spawned worker runs this again and fails.
    try:
        print(parallel_stats(GLEU(), ["a b"] * 4, [["a b"]] * 4, jobs=2, chunk_size=1).score(), flush=True)
    except WorkerError as error:
        print(type(error).__name__, error, flush=True)
    """
)


def test_a_worker_that_fails_to_start_reports_its_exit_code(tmp_path):
    # Before: "a worker process ended unexpectedly (killed by a signal, or out of memory)".
    script = tmp_path / "no_guard.py"
    script.write_text(NO_GUARD)
    done = subprocess.run([sys.executable, str(script), "thread"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "spawn",
        "WorkerError a worker process failed to start (exit code 1; its error is above, on standard error); "
        'a script that uses jobs > 1 needs the guard if __name__ == "__main__": (workers are spawned)',
    ]
    # Its error: Python's own, from the worker, on standard error.
    assert "current process has finished its bootstrapping phase" in done.stderr
    # Forked workers run nothing of the script: the same script works without a thread.
    done = subprocess.run([sys.executable, str(script), "none"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.splitlines(), done.stderr) == (0, ["fork", "1.0"], "")
