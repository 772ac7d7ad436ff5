"""Every core of one machine: worker processes and streamed files give exactly the rows of
one process, on real WMT data and adversarial input; memory of the streamed path; bad input."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from google_bleu import GLEU, GleuStats
from google_bleu.scale.files import GRAIN, count_breaks, open_source
from google_bleu.scale.files import read_lines as read_range
from google_bleu.scale.lines import lines_from_bytes as decode_lines
from google_bleu.scale.parallel import SystemFiles, file_stats, files_stats, parallel_stats
from google_bleu.scale.pool import ONE_THREAD, WORKER_NAME, WorkerPool, available_cores, resolve_jobs
from tests.helpers.oracles import REPO, SAMPLES, SHARED_DATA, read_lines
from tests.helpers.processes import alive

WMT17 = SAMPLES / "wmt17_en_de"
# The shared data beside the checkout (skipped with a reason when absent).
SHARED_WMT17 = SHARED_DATA / "wmt17_en_de"
ADVERSARIAL = [
    "",
    "the cat sat on the mat",
    "   ",
    "\ufeffa BOM inside a line",
    "x",
    "",
    "das ist gut , sehr gut .",
    "a a a a a a",
    "",
]


def references_of(lines: list[str]) -> list[list[str]]:
    # Up to three references per segment, the count varying, some empty.
    return [[line, line[::-1], ""][: 1 + i % 3] for i, line in enumerate(lines)]


def test_jobs_equals_one_process_on_real_data():
    references = read_lines(WMT17 / "ref0.txt")
    hypotheses = read_lines(WMT17 / "sys_online-A.0.txt")
    scorer = GLEU()
    one = scorer.stats(hypotheses, references)
    # chunk_size 7 puts boundaries all over the corpus; two real worker processes.
    parallel = parallel_stats(scorer, hypotheses, references, jobs=2, chunk_size=7)
    assert parallel == one
    # The chosen references come back from the workers too (== compares them when known).
    assert parallel.reference_index is not None and parallel.reference_index.tolist() == one.reference_index.tolist()
    assert scorer.score_stats(parallel_stats(scorer, hypotheses, references, jobs=2)) == scorer.corpus_score(
        hypotheses, references
    )


@pytest.mark.skipif(not SHARED_WMT17.is_dir(), reason=f"shared WMT17 data not found at {SHARED_WMT17}")
def test_jobs_equals_one_process_on_the_full_wmt17_test_set():
    references = read_lines(SHARED_WMT17 / "ref0.txt")
    systems = sorted(SHARED_WMT17.glob("sys_*.txt"))[:2]
    assert systems, "no system files in the shared WMT17 folder"
    scorer = GLEU(lowercase=True, min_len=2)
    for path in systems:
        hypotheses = read_lines(path)
        one = scorer.stats(hypotheses, references)
        assert parallel_stats(scorer, hypotheses, references, jobs=2, chunk_size=1000) == one


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5])
def test_chunks_inside_multi_reference_groups_and_empty_lines(chunk_size):
    references = references_of(ADVERSARIAL)
    scorer = GLEU(tokenizer="char", max_len=3)
    one = scorer.stats(ADVERSARIAL, references)
    assert parallel_stats(scorer, ADVERSARIAL, references, jobs=1, chunk_size=chunk_size) == one
    if chunk_size == 2:
        assert parallel_stats(scorer, ADVERSARIAL, references, jobs=2, chunk_size=chunk_size) == one
    assert len(one) == len(ADVERSARIAL) and one.rows[0].tolist() == [0, 0, 0, 0]


def test_empty_corpus_and_python_option_validation():
    scorer = GLEU()
    assert parallel_stats(scorer, [], [], jobs=2) == GleuStats.empty()
    with pytest.raises(ValueError, match=r"predictions has 2, references has 1"):
        parallel_stats(scorer, ["a", "b"], [["a"]], jobs=2)
    with pytest.raises(ValueError, match=r"jobs must be 0 \(all cores\) or a positive integer, got -1"):
        parallel_stats(scorer, ["a"], [["a"]], jobs=-1)
    with pytest.raises(TypeError, match=r"jobs must be an int, got str '2'"):
        parallel_stats(scorer, ["a"], [["a"]], jobs="2")
    for bad in (True, 1.0, None):
        with pytest.raises(TypeError, match="jobs must be an int"):
            parallel_stats(scorer, ["a"], [["a"]], jobs=bad)
    with pytest.raises(ValueError, match="chunk_size must be a positive integer, got 0"):
        parallel_stats(scorer, ["a"], [["a"]], chunk_size=0)
    with pytest.raises(TypeError, match="scorer must be a google_bleu.GLEU"):
        parallel_stats("13a", ["a"], [["a"]])
    with pytest.raises(TypeError, match="tokenizer does not pickle"):
        parallel_stats(GLEU(tokenizer=lambda text: text.split()), ["a"] * 3, [["a"]] * 3, jobs=2, chunk_size=1)
    # A lambda is fine in one process.
    assert parallel_stats(GLEU(tokenizer=lambda text: text.split()), ["a b"], [["a b"]]).score() == 1.0
    assert resolve_jobs(0) >= 1 and resolve_jobs(3) == 3


# -- files ---------------------------------------------------------------------------------
def write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


ADVERSARIAL_BYTES = [
    b"\xef\xbb\xbfthe cat sat on the mat \r\n\nx\t \n \nstra\xc3\x9fe \xe2\x80\x94 ok\nlast line without newline",
    b"\xef\xbb\xbfthe cat ate the mat\n\nx\n\nstrasse \xe2\x80\x94 ok\nlast line without newline\n",
    b"mat the\n\n\ny\n\xef\xbb\xbfa BOM in the middle\nlast\n",
]


def count_lines(paths: list[str]) -> int:
    with SystemFiles([], paths) as files:
        return files.lines


def indexed(path: str, name: str | None = None, grain: int | None = None):
    """An input indexed as the workers index it (``grain``: a smaller grain than its size gives)."""
    source = open_source(path, name)
    if grain is not None:
        source.grain = grain
    for span in source.spans():
        source.add(span, *count_breaks(span))
    source.indexed()
    return source


def test_a_workers_range_follows_the_shared_line_policy(tmp_path):
    # A range read by a worker gives the lines of the whole file's bytes, numbered from its
    # first line in messages, whatever grain the index has (a line may cross grains, a grain
    # may hold many lines or none).
    long_lines = b"".join(b"x" * n + b"\n" for n in (0, 1, 5, 7, 8, 9, 17, 0, 0, 3)) + b"tail"
    for index, data in enumerate([*ADVERSARIAL_BYTES, b"", b"\n", b"a\r\n\r\n", b"  \n\xc2\xa0\n", long_lines]):
        path = write(tmp_path / f"{index}.txt", data)
        expected = decode_lines(data, "f")
        for grain in (1, 2, 3, 8, None):
            source = indexed(path, grain=grain)
            assert source.lines == len(expected) and source.size == len(data), (data, grain)
            for start in range(source.lines + 1):
                for end in range(start, source.lines + 1):
                    got = read_range(source.where(start, end), start + 1, end - start)
                    assert got == expected[start:end], (data, grain, start, end)
    bad = write(tmp_path / "bad.txt", b"a\n" * 10 + b"ok\n\xc3(\n")
    source = indexed(bad, "f", grain=4)
    with pytest.raises(ValueError) as error:
        read_range(source.where(10, 12), 11, 2)
    with pytest.raises(Exception, match="line 12 ") as whole:
        decode_lines(Path(bad).read_bytes(), "f")
    assert str(error.value) == str(whole.value) == (
        "f: line 12 is not valid UTF-8 (invalid continuation byte at byte 0); convert it to UTF-8 first, e.g. iconv -f LATIN1 -t UTF-8 FILE > NEW"
    )
    # A file that changed between the index and the read is an error, never other lines.
    write(tmp_path / "bad.txt", b"a\n" * 5)
    for start, end in ((0, 10), (6, 8), (2, 12)):
        with pytest.raises(ValueError, match=r"^f changed while it was read"):
            read_range(source.where(start, end), start + 1, end - start)


def test_the_index_keeps_one_count_a_grain(tmp_path):
    # What this process keeps of an input: a count per grain, about 1,000 grains an input
    # within GRAIN's bounds, whatever its lines.
    low, high = GRAIN
    for size, grain in ((0, low), (100, low), (4 << 20, 4 << 10 << 1), (50 << 20, high), (1 << 30, high)):
        path = tmp_path / "sized.txt"
        with open(path, "wb") as handle:
            handle.truncate(size)
        assert open_source(str(path), None).grain == grain, size
    path = write(tmp_path / "lines.txt", b"ab\n" * 100_000)
    source = indexed(path)
    assert (source.grain, len(source.breaks), source.lines) == (low, -(-300_000 // low) + 1, 100_000)


@pytest.mark.parametrize("chunk_lines", [1, 2, 4, 1000])
def test_file_stats_equals_whole_files(tmp_path, chunk_lines):
    hyp, ref0, ref1 = (write(tmp_path / f"{i}.txt", data) for i, data in enumerate(ADVERSARIAL_BYTES))
    whole = GLEU().stats(
        decode_lines(ADVERSARIAL_BYTES[0], "h"),
        [list(refs) for refs in zip(*(decode_lines(data, "r") for data in ADVERSARIAL_BYTES[1:]))],
    )
    messages = []
    stats = file_stats(hyp, [ref0, ref1], GLEU(), chunk_lines=chunk_lines, warn=messages.append)
    assert stats == whole and len(stats) == 6
    # The BOMs at the start of the first reference and the hypothesis are kept and reported
    # once each, references first (as the command line reads them).
    assert messages == [
        f"{ref0} starts with a byte-order mark (U+FEFF); it is kept as part of line 1, as sacrebleu does",
        f"{hyp} starts with a byte-order mark (U+FEFF); it is kept as part of line 1, as sacrebleu does",
    ]
    if chunk_lines == 2:
        assert file_stats(hyp, [ref0, ref1], GLEU(), jobs=2, chunk_lines=chunk_lines, warn=messages.append) == whole
    with pytest.warns(UnicodeWarning, match="starts with a byte-order mark"):
        file_stats(io.BytesIO(ADVERSARIAL_BYTES[0]), ref1, GLEU(), name="standard input")


def test_file_stats_on_real_data_with_two_workers():
    references = [str(WMT17 / "ref0.txt"), str(WMT17 / "sys_online-B.0.txt")]
    hypothesis = str(WMT17 / "sys_online-A.0.txt")
    scorer = GLEU(min_len=1, max_len=3)
    lines = [decode_lines(Path(path).read_bytes(), path) for path in [hypothesis, *references]]
    whole = scorer.stats(lines[0], [list(refs) for refs in zip(*lines[1:])])
    assert file_stats(hypothesis, references, scorer, jobs=2, chunk_lines=37, warn=lambda message: None) == whole
    assert count_lines(references) == len(whole)


def test_files_of_different_lengths_are_refused(tmp_path):
    ref = write(tmp_path / "ref.txt", b"a\nb\nc\n")
    short = write(tmp_path / "short.txt", b"a\nb")
    longer = write(tmp_path / "long.txt", b"a\nb\nc\nd\n")
    with pytest.raises(ValueError, match=rf"^{short} has 2 lines but {ref} has 3$"):
        file_stats(short, [ref], chunk_lines=1)
    with pytest.raises(ValueError, match=rf"^{longer} has 4 lines but {ref} has 3$"):
        file_stats(longer, ref, jobs=2, chunk_lines=1)
    # References that disagree are reported first, as the command line does.
    with pytest.raises(ValueError, match=rf"^{ref} has 3 lines but {longer} has 4$"):
        file_stats(short, [ref, longer])
    with pytest.raises(ValueError, match=rf"^{ref} has 3 lines but {short} has 2$"):
        count_lines([ref, short])
    # A system after the first that differs: named, before any counting.
    with pytest.raises(ValueError, match=rf"^{short} has 2 lines but {ref} has 3$"):
        next(files_stats([ref, short], [ref], jobs=2))
    with pytest.raises(ValueError, match=r"^standard input has 2 lines but .* has 3$"):
        file_stats(io.BytesIO(b"a\nb\n"), [ref], name="standard input")


def test_file_bad_input(tmp_path):
    ref = write(tmp_path / "ref.txt", b"a\nb\n")
    bad = write(tmp_path / "bad.txt", b"a\n\xff\n")
    with pytest.raises(ValueError, match=r"bad.txt: line 2 is not valid UTF-8"):
        file_stats(bad, [ref], jobs=2, chunk_lines=1)
    with pytest.raises(ValueError, match=r"^cannot read .*missing.txt: No such file"):
        file_stats(str(tmp_path / "missing.txt"), [ref])
    with pytest.raises(TypeError, match="references must be a path or a non-empty list of paths"):
        file_stats(ref, [])
    with pytest.raises(TypeError, match="files must be paths or binary streams, got int 3"):
        file_stats(ref, [3])
    with pytest.raises(TypeError, match="binary mode"):
        file_stats(io.StringIO("a\nb\n"), [ref])
    with pytest.raises(ValueError, match="jobs must be 0"):
        file_stats(ref, [ref], jobs=-2)
    with pytest.raises(TypeError, match="chunk_lines must be an int"):
        file_stats(ref, [ref], chunk_lines="10")
    with pytest.raises(TypeError, match="warn must be a callable"):
        file_stats(ref, [ref], warn="print")


MEMORY_SCRIPT = textwrap.dedent(
    """
    import io, json, sys
    from google_bleu import GLEU
    from google_bleu.scale.parallel import file_stats

    def status(key):  # KiB; VmHWM is this process's own peak (ru_maxrss survives fork + exec)
        with open("/proc/self/status") as lines:
            return next(int(line.split()[1]) for line in lines if line.startswith(key + ":"))

    hyp, ref = sys.argv[1], sys.argv[2]
    scorer = GLEU()
    head = b"".join(open(hyp, "rb").readlines(100_000))
    file_stats(io.BytesIO(head), [io.BytesIO(head)], scorer)  # warm up: imports, tokenizer caches
    before = status("VmRSS")
    stats = file_stats(hyp, [ref], scorer)
    peak = status("VmHWM")
    print(json.dumps({"segments": len(stats), "growth_kib": peak - before, "n_match": stats.totals()[0]}))
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc to read the resident set size")
def test_streamed_files_memory_grows_with_rows_not_text(tmp_path):
    # 1M segments of ~90 bytes: 90 MB of text per file, 32 MB of rows.
    n = 1_000_000
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    with open(hyp, "w", encoding="utf-8") as h, open(ref, "w", encoding="utf-8") as r:
        for i in range(0, n, 1000):
            h.write("".join(f"segment{j:010d}xxxxxxxxxx alphabetagammadelta{j % 7} epsilonzetaetatheta\n" for j in range(i, i + 1000)))
            r.write("".join(f"segment{j:010d}xxxxxxxxxx alphabetagammadelta{j % 5} epsilonzetaetatheta\n" for j in range(i, i + 1000)))
    text_mb = (hyp.stat().st_size + ref.stat().st_size) / 2**20
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, str(hyp), str(ref)], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["segments"] == n
    growth_mb = report["growth_kib"] / 1024
    # Rows: 32 MB, plus their concatenation (32 MB) and a few chunks of text. Reading the
    # files whole would hold >120 MB of text and twice that as Python strings.
    print(f"peak RSS grew by {growth_mb:.1f} MB for {text_mb:.0f} MB of text and {n} segments")
    assert text_mb > 120
    assert growth_mb < 100, f"peak RSS grew by {growth_mb:.0f} MB for {text_mb:.0f} MB of text"


# -- docs/scale.md -------------------------------------------------------------------------
def scale_doc_blocks() -> dict[str, str]:
    from tests.helpers.readme_snippets import _BLOCK

    return {match["name"]: match["code"] for match in _BLOCK.finditer((REPO / "docs" / "scale.md").read_text("utf-8"))}


def test_scale_guide_examples_run(capsys):
    blocks = scale_doc_blocks()
    namespace = {"__name__": "__main__"}
    for name in ("python-jobs", "file-stats", "datasets-map", "scale-torch-distributed"):
        exec(compile(blocks[name], f"docs/scale.md:{name}", "exec"), namespace)
    printed = capsys.readouterr().out.split("\n")
    expected = GLEU().corpus_score(namespace["predictions"], namespace["references"]).score
    assert printed[0] == f"{expected:.4f}"
    assert printed[1] == f"{len(namespace['references'])} True"
    assert printed[2].startswith("google_bleu ")
    # ray-recipe runs in tests/scale/test_ray.py, daft-recipe and spark-recipe in tests/frameworks.
    assert set(blocks) == {
        "python-jobs", "file-stats", "ray-recipe", "daft-recipe", "spark-recipe", "datasets-map", "scale-torch-distributed"
    }


# -- the command line ----------------------------------------------------------------------
def cli(*argv: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "google_bleu", *argv], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.skipif(available_cores() < 2, reason="workers start only with two usable cores")
def test_cli_jobs_output_is_identical_with_two_workers(tmp_path):
    # 36,000 lines of each file: enough for --jobs 2 (and --jobs 4, on at least two cores) to
    # start two real workers, forked or spawned (a WMT17 sample alone is scored in the command's
    # own process whatever --jobs says).
    def repeated(path: Path, name: str, head: bytes = b"") -> str:
        return write(tmp_path / name, head + path.read_bytes() * 120)

    ref0, ref1 = repeated(WMT17 / "ref0.txt", "ref0.txt"), repeated(WMT17 / "sys_online-B.0.txt", "ref1.txt")
    # online-A as WMT17 published it: line 1 starts with a byte-order mark (the sample's copy has none).
    original = repeated(WMT17 / "sys_online-A.0.txt", "sys_online-A.0.txt", b"\xef\xbb\xbf")
    systems = [original, repeated(WMT17 / "sys_uedin-nmt.4722.txt", "sys_uedin.txt")]
    for jobs in (2, 4):  # the worker processes that the command's plan starts on these files
        with SystemFiles(systems, [ref0, ref1], jobs=jobs, rows=False, warn=lambda message: None) as files:
            assert len(list(files)) == 2
            started = {process.pid for process in files.pool.context.processes if process.pid is not None}
            assert 2 <= len(started) <= jobs and os.getpid() not in started, started
    for options in (["-f", "text", "--confidence"], ["--sentence-level"]):
        chosen = systems if "--sentence-level" not in options else systems[:1]
        one = cli(ref0, ref1, "-i", *chosen, *options)
        assert one[0] == 0
        for jobs in ("2", "4"):
            assert cli(ref0, ref1, "-i", *chosen, *options, "--jobs", jobs) == one
    # The BOM of online-A is still reported once, as without --jobs.
    assert one[2].count("byte-order mark") == 1


def test_cli_jobs_errors(tmp_path):
    ref = str(WMT17 / "ref0.txt")
    short = write(tmp_path / "short.txt", b"a\nb\n")
    code, out, err = cli(ref, "-i", short, "--jobs", "2")
    assert (code, out, err) == (2, "", f"google-bleu: error: {short} has 2 lines but {ref} has 300\n")
    for bad in ("-1", "two"):
        code, _, err = cli(ref, "-i", ref, "--jobs", bad)
        assert code == 2 and err == (
            f"google-bleu: error: argument -j/--jobs: must be 0 (all cores) or a positive integer, got '{bad}'\n"
        )


# -- one pool per run; workers never outlive the command (issues 23 and 25) ------------------
def big_input(tmp_path: Path, repeat: int = 200) -> tuple[str, str]:
    """60,000 lines (6.6 MB a file) of real WMT17 text: a run that takes a while, so signals
    arrive mid-run, and large enough for two workers (``pool.workers_for``)."""
    ref = (WMT17 / "ref0.txt").read_bytes()
    hyp = (WMT17 / "sys_online-B.0.txt").read_bytes()
    write(tmp_path / "big_ref.txt", ref * repeat)
    write(tmp_path / "big_hyp.txt", hyp * repeat)
    return str(tmp_path / "big_ref.txt"), str(tmp_path / "big_hyp.txt")


def children(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found.update(int(child) for child in task.read_text().split())
        except OSError:
            pass
    return found


def semaphores() -> set[str]:
    return {path.name for path in Path("/dev/shm").glob("sem.*")}


def mapped_semaphores(pids: set[int]) -> set[str]:
    """The named semaphores these processes have mapped (from /proc/PID/maps): the ones the
    command made, whatever other programs on the machine create meanwhile."""
    names = set()
    for pid in pids:
        try:
            maps = Path(f"/proc/{pid}/maps").read_text()
        except OSError:
            continue
        names.update(line.rsplit("/", 1)[1].removesuffix(" (deleted)") for line in maps.splitlines() if "/dev/shm/sem." in line)
    return names


def as_a_foreground_job() -> None:
    """A child's SIGINT as a terminal's foreground job has it: this suite may run with SIGINT
    ignored (a background job of a non-interactive shell), which a child inherits and the
    command keeps (so a Ctrl-C would never reach it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_with_workers(tmp_path: Path) -> tuple[subprocess.Popen, set[int]]:
    ref, hyp = big_input(tmp_path)
    # The system comes on standard input (copied once to a temporary file, then planned).
    process = subprocess.Popen(
        [sys.executable, "-m", "google_bleu", ref, "--jobs", "2", "-q"],
        cwd=REPO,
        stdin=open(hyp, "rb"),  # noqa: SIM115 - the child owns it
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=as_a_foreground_job,
    )
    deadline = time.monotonic() + 120
    # Two workers (forked: the command runs one thread, so no resource tracker either).
    while len(workers_of(process.pid)) < 2:
        assert process.poll() is None, process.stderr.read().decode()
        assert time.monotonic() < deadline, f"no workers after 120 s: {children(process.pid)}"
        time.sleep(0.05)
    return process, children(process.pid)


def assert_all_gone(pids: set[int], before: set[str], ours: set[str] = frozenset()) -> None:
    # New semaphores are ours when no other program makes any meanwhile; the ones the
    # command's processes had mapped are ours in any case.
    deadline = time.monotonic() + 30
    while {pid for pid in pids if alive(pid)} or (semaphores() & (ours or semaphores() - before)):
        if time.monotonic() > deadline:
            survivors = {pid: Path(f"/proc/{pid}/cmdline").read_bytes() for pid in pids if alive(pid)}
            left = semaphores() & (ours or semaphores() - before)
            raise AssertionError(f"after 30 s: processes {survivors}, semaphores {left}")
        time.sleep(0.1)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_killed_cli_leaves_no_worker_tracker_or_semaphore(tmp_path, signum):
    before = semaphores()
    process, kids = start_with_workers(tmp_path)
    ours = mapped_semaphores({process.pid, *kids})
    process.send_signal(signum)
    code = process.wait(timeout=60)
    err = process.stderr.read().decode()
    assert_all_gone(kids, before, ours)
    if signum == signal.SIGTERM:
        assert (code, err) == (143, "google-bleu: terminated\n")
    else:
        assert code == -signal.SIGKILL


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_ctrl_c_stops_everything_with_130_and_no_traceback(tmp_path):
    before = semaphores()
    process, kids = start_with_workers(tmp_path)
    # A terminal's Ctrl-C reaches the whole foreground group; here the command and its workers.
    for pid in {process.pid, *kids}:
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:
            pass
    code = process.wait(timeout=60)
    assert (code, process.stderr.read().decode()) == (130, "google-bleu: interrupted\n")
    assert_all_gone(kids, before)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_a_killed_worker_ends_the_cli_with_one_line(tmp_path):
    before = semaphores()
    process, kids = start_with_workers(tmp_path)
    workers = sorted(workers_of(process.pid))
    os.kill(workers[0], signal.SIGKILL)  # as the out-of-memory killer does
    code = process.wait(timeout=60)
    out, err = process.stdout.read().decode(), process.stderr.read().decode()
    assert code == 1 and out == ""
    assert err.startswith("google-bleu: error: a worker process ended unexpectedly") and err.count("\n") == 1, err
    assert_all_gone(kids, before)


def test_cli_jobs_output_is_identical_across_jobs_with_one_pool(tmp_path, monkeypatch):
    # Small files are scored in-process by default; a start-up cost of nothing makes 2
    # workers score 4 systems through one pool, and the output must not change.
    from google_bleu.cli.main import run
    from google_bleu.scale import pool

    ref = str(WMT17 / "ref0.txt")
    systems = [str(path) for path in sorted(WMT17.glob("sys_*.txt"))[:4]]
    outputs, workers = [], []
    free = dict.fromkeys(pool.WORKER_START_SECONDS, 1e-9)
    for jobs, start in (("1", pool.WORKER_START_SECONDS), ("2", free), ("2", pool.WORKER_START_SECONDS)):
        monkeypatch.setattr(pool, "WORKER_START_SECONDS", start)
        for options in ([], ["--by-order", "-f", "text"], ["--confidence"]):
            stream = io.StringIO()
            run([ref, "-i", *systems, "--jobs", jobs, "-w", "6", *options], stream)
            outputs.append(stream.getvalue())
        with SystemFiles(systems, ref, jobs=int(jobs)) as files:
            workers.append(files.workers)
    assert outputs[:3] == outputs[3:6] == outputs[6:]
    # Small input: no pool at all, unless starting a worker cost nothing.
    assert workers == [1, min(2, available_cores()), 1]


def test_the_worker_count_follows_the_measured_costs():
    from google_bleu.scale.pool import SECONDS_PER_BYTE, WORKER_START_SECONDS, start_method, workers_for

    cores = available_cores()
    # Each worker's share of the work at least its start-up: one worker per start-up's worth.
    per_worker = WORKER_START_SECONDS[start_method()] / SECONDS_PER_BYTE
    assert workers_for(0, 16) == workers_for(int(per_worker * 1.9), 16) == 1
    assert workers_for(int(per_worker * 2.1), 16) == min(2, cores)
    assert workers_for(100_000_000, 16) == min(16, cores)  # a 50 MB system and its reference, on 16 cores
    assert workers_for(100_000_000, 3) == min(3, cores)  # never more than asked


def bytes_read() -> int:
    """Bytes this process has read with read() and its kind, files and sockets alike."""
    return int(next(line.split()[1] for line in Path("/proc/self/io").read_text().splitlines() if line.startswith("rchar:")))


@pytest.mark.skipif(not Path("/proc/self/io").is_file() or available_cores() < 2, reason="needs Linux /proc and 2 cores")
def test_the_parent_reads_no_line_data(tmp_path):
    # Before, the parent counted every line of every input itself (and before that, read and
    # sent every line). Now it reads a byte-order mark's worth of each file and the workers'
    # answers: the index's counts and the totals.
    # (Read before the count, not after the workers end: the kernel adds a reaped child's
    # reads to its parent's. The pool's modules are imported first, not to count their files.)
    import multiprocessing.connection  # noqa: F401
    import multiprocessing.popen_fork  # noqa: F401
    import multiprocessing.popen_spawn_posix  # noqa: F401

    ref, hyp = big_input(tmp_path)
    size = os.path.getsize(ref) + os.path.getsize(hyp)
    expected = GLEU().stats(read_lines(Path(hyp)), read_lines(Path(ref))).total()
    before = bytes_read()
    with SystemFiles([hyp], ref, jobs=2, rows=False) as files:
        assert files.workers == 2
        ((totals,),) = list(files)
        read = bytes_read() - before
    assert totals == expected
    assert read < size / 100, (read, size)  # the index: 8 bytes a grain of 8 KiB, and the totals


def test_files_stats_through_one_pool_equals_one_process(tmp_path):
    scorer = GLEU()
    ref = WMT17 / "ref0.txt"
    empty = write(tmp_path / "empty.txt", b"")
    systems = [str(path) for path in sorted(WMT17.glob("sys_*.txt"))[:3] if "online-A" not in path.name]
    expected = [scorer.stats(read_lines(Path(path)), read_lines(ref)) for path in systems]
    assert list(files_stats(systems, [str(ref)], jobs=2, chunk_lines=50)) == expected
    # Empty systems, through workers too.
    again = list(files_stats([empty, empty], [empty], jobs=2, chunk_lines=1))
    assert [len(stats.rows) for stats in again] == [0, 0]
    # Totals only, and each order's totals: equal to one process's and to re-scoring.
    with SystemFiles(systems, [str(ref)], scorer, jobs=2, rows=False, by_order=True, chunk_lines=70) as files:
        parts = list(files)
    for path, part, stats in zip(systems, parts, expected):
        assert part[0] == stats.total() and len(part) == 5
        for n, order in enumerate(part[1:], 1):
            assert order == GLEU(min_len=n, max_len=n).stats(read_lines(Path(path)), read_lines(ref)).total(), (path, n)


def user_13a(line: str) -> list[str]:
    # Named like the real 13a, but it is the user's function (issue 25, class 12).
    return line.lower().split()


def test_user_tokenizer_named_like_13a_gives_the_same_stats_with_workers():
    import google_bleu

    scorer = GLEU(google_bleu.Tokenizer("13a", user_13a, checked=True))
    references = read_lines(WMT17 / "ref0.txt")
    hypotheses = read_lines(WMT17 / "sys_online-B.0.txt")
    one = parallel_stats(scorer, hypotheses, references, jobs=1)
    two = parallel_stats(scorer, hypotheses, references, jobs=2, chunk_size=50)
    assert one == two
    assert two != GLEU("13a").stats(hypotheses, references)  # the user's function, not the real 13a


# -- inputs that are pipes are read once (issue 25, class 4) ------------------------------
def test_reference_fifo_is_read_once(tmp_path):
    ref, hyp = WMT17 / "ref0.txt", str(WMT17 / "sys_online-B.0.txt")
    expected = cli(str(ref), "-i", hyp, "-w", "6")
    assert expected[0] == 0
    fifo = tmp_path / "ref.fifo"
    os.mkfifo(fifo)
    data = ref.read_bytes()

    def feed() -> None:
        with open(fifo, "wb") as handle:  # blocks until the command opens it
            handle.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    # Two systems: the references are scored twice but read from the FIFO once.
    got = cli(str(fifo), "-i", hyp, hyp, "-w", "6")
    writer.join(timeout=60)
    assert got[0] == 0, got[2]
    objects = json.loads(got[1])
    single = json.loads(expected[1])
    for obj in objects:
        assert {k: v for k, v in obj.items() if k != "system"} == {
            k: v for k, v in single.items() if k != "system"
        }


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash for process substitution")
def test_process_substitution_and_dev_stdin_references():
    ref, hyp = str(WMT17 / "ref0.txt"), str(WMT17 / "sys_online-B.0.txt")
    expected = cli(ref, "-i", hyp, "-b", "-w", "6")
    python = f"{sys.executable} -m google_bleu"
    for command in (
        f"{python} <(cat {ref}) -i {hyp} -b -w 6",
        f"cat {ref} | {python} /dev/stdin -i {hyp} -b -w 6",
        f"{python} <(cat {ref}) <(cat {ref}) -i <(cat {hyp}) -b -w 6",
    ):
        done = subprocess.run(["/bin/bash", "-c", command], cwd=REPO, capture_output=True, text=True, timeout=300)
        assert (done.returncode, done.stdout, done.stderr) == (0, expected[1], ""), command


# -- a closed standard error never reaches standard output (issue 25, class 15) -------------
@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash")
def test_closed_stderr_keeps_warnings_and_errors_off_stdout(tmp_path):
    bom = write(tmp_path / "bom.txt", b"\xef\xbb\xbfa b c\n")
    python = f"{sys.executable} -m google_bleu"
    done = subprocess.run(
        ["/bin/bash", "-c", f"exec 2>&-; {python} {bom} -i {bom}"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and json.loads(done.stdout)["score"] == 100.0
    done = subprocess.run(
        ["/bin/bash", "-c", f"exec 2>&-; {python} {tmp_path / 'missing.txt'} -i {bom}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (done.returncode, done.stdout) == (2, "")


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_sigterm_while_the_workers_start_never_hangs(tmp_path):
    # A signal turned into an exception can strike inside the executor while it starts its
    # workers; the run must still end (143) with every process gone. The window is short,
    # so the command is started and stopped 30 times, each within 0.15 s of its
    # first worker (before the fix about one run in fifteen hung).
    ref, hyp = big_input(tmp_path)
    for attempt in range(30):
        process = subprocess.Popen(
            [sys.executable, "-m", "google_bleu", ref, "--jobs", "2", "-q"],
            cwd=REPO,
            stdin=open(hyp, "rb"),  # noqa: SIM115 - the child owns it
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 120
        while not children(process.pid):
            assert process.poll() is None and time.monotonic() < deadline, "no worker started"
            time.sleep(0.002)
        time.sleep(0.005 * attempt)
        kids = children(process.pid)
        ours = mapped_semaphores({process.pid, *kids})
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise AssertionError(f"attempt {attempt}: the command hung after SIGTERM") from None
        assert code in (143, -signal.SIGTERM), (attempt, code, process.stderr.read())
        assert_all_gone(kids | children(process.pid), set(), ours or {"none"})


# -- no wait on a message a killed worker left half-written; no thread; capped workers ----
WRITER = textwrap.dedent(
    """
    import multiprocessing, signal, sys, threading
    from google_bleu import GLEU
    from google_bleu.scale.parallel import WorkerError, parallel_stats

    if __name__ == "__main__":
        # Ctrl-C raises KeyboardInterrupt here, as in a notebook, even if whatever started
        # this process ignored SIGINT (an ignored signal stays ignored across exec).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        n = int(sys.argv[1])
        try:
            parallel_stats(GLEU(), ["a b c d"] * n, [["a b c d"]] * n, jobs=2, chunk_size=n // 3)
            print("finished")
        except WorkerError:
            print("WorkerError")
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        print(sorted(thread.name for thread in threading.enumerate()), multiprocessing.active_children(), flush=True)
    """
)


def written(pid: int) -> int:
    """Bytes a process has passed to write() so far (/proc/PID/io)."""
    try:
        fields = dict(line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines())
    except (OSError, ValueError):
        return 0
    return int(fields["wchar"])


#: What a worker has written before its first result's bytes: its name (``/proc/self/comm``),
#: then the length prefix multiprocessing's connections write before a message.
HEADER_BYTES = len(WORKER_NAME) + 4


def stop_while_a_worker_writes(process: subprocess.Popen, timeout: float = 120) -> int:
    """Stops ``process`` (SIGSTOP) while one of its workers is in the middle of writing its
    first result, and returns that worker.

    A result goes out as a 4-byte length, then its bytes in one ``write`` that blocks until
    the reader has taken them all (``wchar`` counts them when it returns). So a worker
    whose count stays at 4 while this process is stopped has written the length and part
    of the bytes, and waits with the rest.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for child in children(process.pid):
            if written(child) != HEADER_BYTES:
                continue
            process.send_signal(signal.SIGSTOP)
            time.sleep(0.1)
            if written(child) == HEADER_BYTES:
                return child
            process.send_signal(signal.SIGCONT)  # caught too late: the whole result was read
        time.sleep(0.0002)
    raise AssertionError("no worker was caught writing a result")


#: Segments of the writer's input, in 3 chunks: each comes back as 12 MB, far more than a
#: socket or a pipe holds.
SEGMENTS = 900_000


def start_writer(tmp_path: Path) -> subprocess.Popen:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    return subprocess.Popen(
        [sys.executable, str(script), str(SEGMENTS)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def ended_within(process: subprocess.Popen, seconds: float) -> tuple[str, str, float]:
    start = time.monotonic()
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError("the call never ended: it waits for the rest of a message that will never come") from None
    took = time.monotonic() - start
    assert took < seconds, (took, out, err)
    return out, err, took


@pytest.mark.skipif(not Path("/proc/self/io").exists() or available_cores() < 2, reason="needs Linux /proc and 2 cores")
def test_a_worker_killed_while_it_writes_a_result_ends_the_call(tmp_path):
    # The pool once read every result from one pipe that this process also held open: a
    # worker killed in the middle of a result left a message that was waited for for ever.
    process = start_writer(tmp_path)
    os.kill(stop_while_a_worker_writes(process), signal.SIGKILL)  # as the out-of-memory killer does
    process.send_signal(signal.SIGCONT)
    out, err, _ = ended_within(process, 5)
    assert out.splitlines() == ["WorkerError", "['MainThread'] []"], err


@pytest.mark.skipif(not Path("/proc/self/io").exists() or available_cores() < 2, reason="needs Linux /proc and 2 cores")
def test_ctrl_c_while_a_worker_writes_leaves_no_thread_or_process(tmp_path):
    # A notebook's Ctrl-C (KeyboardInterrupt in the calling thread) while a worker writes its
    # result: the workers are killed mid-write, and nothing is left waiting on them.
    before = semaphores()
    process = start_writer(tmp_path)
    writer = stop_while_a_worker_writes(process)
    kids = children(process.pid)
    ours = mapped_semaphores({process.pid, *kids})
    os.kill(writer, signal.SIGSTOP)  # its result stays half-written until the pool kills it
    process.send_signal(signal.SIGINT)  # taken when it resumes
    process.send_signal(signal.SIGCONT)
    out, err, _ = ended_within(process, 5)
    assert out.splitlines() == ["KeyboardInterrupt", "['MainThread'] []"], err
    assert_all_gone(kids, before, ours or {"none"})


def workers_of(pid: int) -> set[int]:
    """The worker processes of ``pid``: children that took the workers' name (a worker
    names itself when it has started; not multiprocessing's resource tracker)."""
    found = set()
    for child in children(pid):
        try:
            if Path(f"/proc/{child}/comm").read_bytes().strip() == WORKER_NAME:
                found.add(child)
        except OSError:
            pass
    return found


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or not Path("/proc/self/task").is_dir(), reason="needs Linux")
def test_jobs_are_capped_at_the_usable_cores(tmp_path):
    # `-j 1000` once started a worker for every chunk in flight (31 processes and 1.5 GB for
    # 38 MiB on standard input, on 2 cores). 78,000 lines on standard input are 4 chunks.
    ref, hyp = big_input(tmp_path, repeat=260)
    expected = subprocess.run(
        [sys.executable, "-m", "google_bleu", ref, "-i", hyp, "-b", "-w", "6"], cwd=REPO, capture_output=True, text=True
    )
    assert expected.returncode == 0, expected.stderr
    cpus = sorted(os.sched_getaffinity(0))
    for allowed in [{cpus[0]}, set(cpus[:2])][: len(cpus)]:
        process = subprocess.Popen(
            [sys.executable, "-m", "google_bleu", ref, "-j", "1000", "-q", "-b", "-w", "6"],
            cwd=REPO,
            stdin=open(hyp, "rb"),  # noqa: SIM115 - the child owns it
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda allowed=allowed: os.sched_setaffinity(0, allowed),
        )
        seen: set[int] = set()
        while process.poll() is None:
            seen |= workers_of(process.pid)
            time.sleep(0.01)
        out, err = process.communicate()
        assert (process.returncode, out, err) == (0, expected.stdout, "")
        # One usable core: scored in the command's own process, no worker at all.
        assert len(seen) <= (0 if len(allowed) == 1 else len(allowed)), (allowed, seen)


def test_a_pool_starts_no_more_workers_than_cores():
    from google_bleu.scale.pool import WorkerPool

    assert WorkerPool(GLEU(), jobs=1000).processes == available_cores()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_endless_input_is_refused_in_bounded_time_and_memory(tmp_path):
    # `-i /dev/zero` once counted lines for ever (a device says it can seek), and a stream
    # without line breaks was read into one line until memory ran out.
    from google_bleu.scale.lines import MAX_LINE_BYTES

    ref = write(tmp_path / "ref.txt", b"a b c\n")
    message = f"line 1 is longer than {MAX_LINE_BYTES} bytes (64 MiB) with no line break; is it a text file with one segment a line?"
    for args, stdin in (([ref, "-i", "/dev/zero"], None), (["/dev/zero", "-i", ref], None), ([ref], "/dev/zero")):
        done = subprocess.run(
            [sys.executable, "-m", "google_bleu", *args],
            cwd=REPO,
            stdin=open(stdin, "rb") if stdin else subprocess.DEVNULL,  # noqa: SIM115 - the child owns it
            capture_output=True,
            text=True,
            timeout=60,
        )
        name = "standard input" if stdin else "/dev/zero"
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"google-bleu: error: {name}: {message}\n"), args
    # The library's readers: a line of exactly the limit passes, one byte more does not.
    with open("/dev/zero", "rb") as zeros, pytest.raises(ValueError, match="zeros: line 1 is longer than"):
        open_source(zeros, "zeros")
    exact = write(tmp_path / "exact.txt", b"x" * MAX_LINE_BYTES + b"\ny\n")
    with open(exact, "rb") as stream:
        spooled = indexed(stream, "exact")
        read = read_range(spooled.where(0, 2), 1, 2)
        assert [len(line) for line in read] == [MAX_LINE_BYTES, 1]
        spooled.close()
    assert count_lines([exact]) == 2
    longer = write(tmp_path / "longer.txt", b"y\n" + b"x" * (MAX_LINE_BYTES + 1) + b"\n")
    with pytest.raises(ValueError, match="longer.txt: line 2 is longer than"):
        count_lines([longer])
    with open(longer, "rb") as stream, pytest.raises(ValueError, match="longer: line 2 is longer than"):
        open_source(stream, "longer")


def catches(pid: int, signum: int) -> bool:
    """Whether the process has a handler for ``signum`` (/proc/PID/status, SigCgt)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except OSError:
        pass
    return False


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


#: Tries of the test below (each about a second and a half on 2 cores); more to hunt a rare case.
SIGNAL_TRIES = int(os.environ.get("GOOGLE_BLEU_SIGNAL_TRIES", "40"))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_a_signal_at_any_moment_ends_the_command_within_a_second(tmp_path):
    # Ctrl-C (to the whole process group, as a terminal sends it) or SIGTERM (to the command)
    # at a random moment from the command's first line to its end, sometimes twice: every
    # run ends within a second, with 130 or 143 and one line, or had finished (0 and the
    # whole output), and leaves no process. Before, about one run in 25 hung for ever (a
    # worker killed in the middle of a result), and signals during the imports or at the
    # very end printed a traceback or ended the command by the signal itself (-2, -15).
    import random

    command = Path(sys.executable).with_name("google-bleu")
    if not command.exists():
        pytest.skip(f"the google-bleu command is not installed beside {sys.executable}")
    ref, hyp = big_input(tmp_path)
    start = time.monotonic()
    full = subprocess.run([str(command), ref, "--jobs", "2", "-q"], stdin=open(hyp, "rb"), capture_output=True, text=True)  # noqa: SIM115
    duration = time.monotonic() - start
    assert full.returncode == 0 and full.stderr == "", full.stderr
    seed = random.randrange(1 << 32)
    rng = random.Random(seed)
    for attempt in range(SIGNAL_TRIES):
        signum = (signal.SIGINT, signal.SIGTERM)[attempt % 2]
        process = subprocess.Popen(
            [str(command), ref, "--jobs", "2", "-q"],
            stdin=open(hyp, "rb"),  # noqa: SIM115 - the child owns it
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=as_a_foreground_job,
        )
        where = f"seed {seed}, attempt {attempt}, signal {signum}"
        # From the command's first line: it takes SIGTERM from then on (Python's own start-up,
        # before any line of the command runs, is the interpreter's).
        while not catches(process.pid, signal.SIGTERM) and process.poll() is None:
            time.sleep(0.001)
        time.sleep(rng.uniform(0, duration * 1.1))
        twice = attempt % 3 == 0
        sent = time.monotonic()
        for count in range(1 + twice):
            if count:
                time.sleep(rng.uniform(0, 0.05))  # a second signal while the first is handled
            try:
                os.killpg(process.pid, signum) if signum == signal.SIGINT else process.send_signal(signum)
            except ProcessLookupError:
                pass
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise AssertionError(f"{where}: the command hung") from None
        took = time.monotonic() - sent
        out, err = process.communicate()
        message = {signal.SIGINT: "google-bleu: interrupted\n", signal.SIGTERM: "google-bleu: terminated\n"}[signum]
        assert (process.returncode, err) in ((128 + signum, message), (0, "")), (where, process.returncode, err)
        if process.returncode == 0:
            assert out == full.stdout, where
        assert took < 1.0, (where, took)
        deadline = time.monotonic() + 10
        while group_alive(process.pid):
            assert time.monotonic() < deadline, f"{where}: a process of the command outlived it"
            time.sleep(0.01)


def _environment(scorer: GLEU, name: str) -> str | None:
    """A worker's task: the value of one of its environment variables."""
    return os.environ.get(name)


@pytest.mark.skipif(available_cores() < 2, reason="workers start only with two usable cores")
def test_workers_start_with_one_blas_thread_each_unless_the_caller_chose(monkeypatch):
    # numpy's import in each worker started a BLAS thread per core: 2.2 s of CPU per worker
    # on 16 cores, and 16 x 16 threads on 16 cores.
    for name in ONE_THREAD:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(ONE_THREAD[-1], "3")
    with WorkerPool(GLEU(), jobs=2) as pool:
        seen = list(pool.run(iter([(_environment, (name,)) for name in ONE_THREAD * 2])))
    assert seen == ["1"] * (len(ONE_THREAD) - 1) + ["3"] + ["1"] * (len(ONE_THREAD) - 1) + ["3"]
    assert [os.environ.get(name) for name in ONE_THREAD] == [None] * (len(ONE_THREAD) - 1) + ["3"]



@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux /proc")
def test_a_forked_worker_does_not_copy_the_callers_heap():
    # A forked worker shares its caller's memory until it writes to it, and a garbage
    # collection writes to every object it walks: without gc.freeze at the fork, each worker
    # copied the caller's heap (373 MB of a 721 MB heap, after one collection). A fresh
    # interpreter, so that it runs one thread and forks.
    script = textwrap.dedent(
        """
        import gc
        from google_bleu import GLEU
        from google_bleu.scale.pool import WorkerPool, start_method

        def private_after_collection(scorer):
            gc.collect()
            return int(next(line.split()[1] for line in open("/proc/self/smaps_rollup") if line.startswith("Private_Dirty:")))

        if __name__ == "__main__":
            heap = [[str(i), (i,)] for i in range(400_000)]  # about 70 MB of small containers
            with WorkerPool(GLEU(), jobs=2) as pool:
                print(start_method(), max(pool.run(iter([(private_after_collection, ())] * 2))), len(heap))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    method, private, size = done.stdout.split()
    assert (method, size) == ("fork", "400000")
    assert int(private) < 20 * 1024, private  # KiB: a few MB of its own, not the 70 MB heap
