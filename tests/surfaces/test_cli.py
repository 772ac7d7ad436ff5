"""The command-line tool through a real subprocess, on real WMT data."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import glob
import io
import json
import os
import pty
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from sacrebleu.utils import smart_open

import google_bleu
from google_bleu import GLEU
from google_bleu.cli.main import main
from google_bleu.cli.options import build_parser
from google_bleu.significance import bootstrap_ci
from tests.helpers.oracles import REPO, SAMPLES, decimal_figure, read_lines

SAMPLE = SAMPLES / "wmt17_en_de"
WMT17_SYSTEMS = ["sys_uedin-nmt.4722.txt", "sys_online-F.0.txt", "sys_KIT.4950.txt", "sys_PROMT-Rule-based.4735.txt"]


def run_cli(*args, stdin=None, **kwargs):
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "google_bleu", *map(str, args)], input=stdin, timeout=300, **kwargs)


def ok_json(*args, stdin=None):
    done = run_cli(*args, stdin=stdin)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def sacrebleu_lines(path) -> list[str]:
    """Lines exactly as sacrebleu's CLI reads a file (its smart_open, then rstrip)."""
    return [line.rstrip() for line in smart_open(str(path))]


@functools.cache
def wmt_stats(system, ref):
    """The Python API's statistics of a real system (cached: each is used by several tests)."""
    return GLEU().stats(sacrebleu_lines(system), sacrebleu_lines(ref))


def percent(value: float, width: int = 1) -> float:
    return round(100 * value, width)


def assert_equals_api(obj, stats, width=1):
    assert {key: obj[key] for key in ("n_match", "n_hyp", "n_ref", "n_all", "min_len", "max_len")} == stats.to_dict()
    assert obj["score"] == percent(stats.score(), width)
    assert obj["precision"] == percent(stats.precision(), width)
    assert obj["recall"] == percent(stats.recall(), width)


# -- scores ---------------------------------------------------------------------------


def test_json_equals_python_api():
    system = SAMPLE / "sys_online-B.0.txt"
    out = ok_json(SAMPLE / "ref0.txt", "-i", system)
    assert out["name"] == "GLEU" and out["system"] == str(system)
    assert out["signature"] == google_bleu.signature("1", "13a", False, 1, 4)
    assert_equals_api(out, GLEU().stats(read_lines(system), read_lines(SAMPLE / "ref0.txt")))


def test_all_wmt17_systems_equal_python_api(shared_data):
    folder = shared_data / "wmt17_en_de"
    systems = sorted(folder.glob("sys_*.txt"))
    assert len(systems) == 16
    # Half of the 16 systems (each costs about a second to tokenize on this machine),
    # the one with a BOM among them.
    systems = systems[::2]
    assert folder / "sys_online-A.0.txt" in systems
    done = run_cli(folder / "ref0.txt", "-i", *systems, "-w", "4")
    assert done.returncode == 0, done.stderr.decode()
    out = json.loads(done.stdout)
    assert [obj["system"] for obj in out] == [str(path) for path in systems]
    for obj, path in zip(out, systems):
        assert_equals_api(obj, wmt_stats(path, folder / "ref0.txt"), width=4)
    # The one file with a BOM is named on stderr; nothing else is printed there.
    assert done.stderr.decode().splitlines() == [
        f"google-bleu: warning: {folder / 'sys_online-A.0.txt'} starts with a byte-order mark (U+FEFF); "
        "it is kept as part of line 1, as sacrebleu does"
    ]


def assert_orders_rescored(obj, system, ref, min_len=1, max_len=4, width=1):
    """Each order's figures equal the corpus statistics of min_len = max_len = n."""
    hyps, refs = sacrebleu_lines(system), sacrebleu_lines(ref)
    assert [order["order"] for order in obj["orders"]] == list(range(min_len, max_len + 1))
    for order in obj["orders"]:
        n = order["order"]
        stats = GLEU(min_len=n, max_len=n).stats(hyps, refs)
        assert {key: order[key] for key in ("n_match", "n_hyp", "n_ref", "n_all")} == {
            key: value for key, value in stats.to_dict().items() if key.startswith("n_")
        }
        assert order["score"] == percent(stats.score(), width)
        assert order["precision"] == percent(stats.precision(), width)
        assert order["recall"] == percent(stats.recall(), width)


def test_by_order_equals_rescoring_each_order():
    system, ref = SAMPLE / "sys_online-B.0.txt", SAMPLE / "ref0.txt"
    out = ok_json(ref, "-i", system, "--by-order", "-w", "4")
    assert_equals_api(out, wmt_stats(system, ref), width=4)  # the corpus figures are unchanged
    assert_orders_rescored(out, system, ref, width=4)
    # From standard input (read once, kept for every order), and with other orders.
    out = ok_json(ref, "--by-order", "--min-len", "2", "--max-len", "3", stdin=system.read_bytes())
    assert_orders_rescored(out, system, ref, 2, 3)
    # The text line and the table show the same figures, sacrebleu's way.
    figures = "/".join(f"{order['score']:.1f}" for order in out["orders"])
    line = run_cli(ref, "--by-order", "--min-len", "2", "--max-len", "3", "-f", "text", stdin=system.read_bytes())
    assert f" 2-3: {figures} (P = " in line.stdout.decode()
    table = run_cli(ref, "-i", system, system, "--by-order", "--min-len", "2", "--max-len", "3", "-f", "text")
    assert table.stdout.decode().splitlines()[2].split("|")[-1].strip() == figures


def test_by_order_on_every_wmt17_system(shared_data):
    folder = shared_data / "wmt17_en_de"
    systems = sorted(folder.glob("sys_*.txt"))[1::4]
    out = ok_json(folder / "ref0.txt", "-i", *systems, "--by-order", "-w", "4", "-j", "2")
    for obj, system in zip(out, systems):
        assert_orders_rescored(obj, system, folder / "ref0.txt", width=4)


@pytest.mark.parametrize("option", ["--sentence-level", "--score-only"])
def test_by_order_is_refused_where_there_is_no_corpus_line(option):
    done = run_cli(SAMPLE / "ref0.txt", "-i", SAMPLE / "sys_online-B.0.txt", "--by-order", option)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "google-bleu: error: --by-order adds figures to corpus scores: it takes no --sentence-level or --score-only\n"
    )


def test_make_run_command_prints_json():
    # The exact command of `make run` (the shell expands the glob).
    systems = sorted(glob.glob(str(SAMPLE / "sys_*.txt")))
    done = subprocess.run(
        [sys.executable, "-m", "google_bleu", "google_bleu/samples/wmt17_en_de/ref0.txt", "-i", *systems],
        cwd=REPO,
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert [obj["system"] for obj in json.loads(done.stdout)] == systems
    # The project's own sample reads without a warning (a user's file with a byte-order mark
    # still gets one: test_bom_is_kept_as_sacrebleu_does).
    assert done.stderr == b""


def test_python_m_without_the_dependencies_says_what_to_run():
    # A clone's root with a Python that has none of the dependencies (-S: no site-packages):
    # one line naming `make run` and the command it installs, not a traceback.
    done = subprocess.run(
        [sys.executable, "-S", "-E", "-m", "google_bleu", "-V"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"google-bleu: numpy is not installed for {sys.executable}; in the clone, `make run` installs the package "
        "into .venv (then: .venv/bin/google-bleu, or .venv/bin/python -m google_bleu)\n"
    )
    # A library call, not the command, keeps Python's own error, when it first needs numpy.
    code = "import google_bleu; google_bleu.GLEU().stats(['a b'] * 5000, ['a b'] * 5000)"
    imported = subprocess.run([sys.executable, "-S", "-E", "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert imported.returncode == 1 and imported.stderr.splitlines()[-1] == "ModuleNotFoundError: No module named 'numpy'"


def test_the_editable_install_of_make_run_builds_without_a_warning(tmp_path):
    # What pip runs for `pip install -e .` (PEP 660), on a copy of the project: setuptools
    # warned about a flat layout ("BuildBackendWarning: Editable installation") until the
    # layout was declared (package-dir).
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, tmp_path / name)
    shutil.copytree(REPO / "google_bleu", tmp_path / "google_bleu", ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "import warnings\n"
        "from setuptools import build_meta\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    wheel = build_meta.build_editable('out')\n"
        "print(wheel)\n"
        "for warning in caught:\n"
        "    print('WARNING', warning.category.__name__, str(warning.message).splitlines()[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1].endswith(".whl") and "editable" in lines[-1], done.stdout
    assert [line for line in lines if line.startswith("WARNING")] == [] and "Warning" not in done.stderr


def test_the_wheel_ships_what_a_pip_user_imports(tmp_path):
    # The wheel carries the package and its samples: not the Space beside app.py (it imports
    # gradio), not a top-level module; the command's entry point is inside the package.
    import zipfile

    for name in ("pyproject.toml", "README.md", "LICENSE", "app.py"):
        shutil.copy(REPO / name, tmp_path / name)
    for folder in ("google_bleu", "space"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    code = "from setuptools import build_meta\nprint(build_meta.build_wheel('out'))\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(tmp_path / "out" / done.stdout.splitlines()[-1]) as wheel:
        names = [name for name in wheel.namelist() if not name.startswith("google_bleu-")]
        sources = {name: wheel.read(name).decode("utf-8") for name in names if name.endswith(".py")}
    assert names and all(name.startswith("google_bleu/") for name in names), names
    assert "google_bleu/__main__.py" in sources and "google_bleu/samples/wmt17_en_de/ref0.txt" in names
    assert [name for name, text in sources.items() if "gradio" in text] == []
    scripts = subprocess.run([sys.executable, "-c", "import tomllib; print(tomllib.load(open('pyproject.toml', 'rb'))['project']['scripts'])"], cwd=tmp_path, capture_output=True, text=True)
    assert scripts.stdout.strip() == "{'google-bleu': 'google_bleu.__main__:main'}"


def test_bom_is_kept_as_sacrebleu_does(shared_data, tmp_path):
    folder = shared_data / "wmt17_en_de"
    path = folder / "sys_online-A.0.txt"
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    lines = sacrebleu_lines(path)
    assert lines[0].startswith("\ufeff")  # sacrebleu keeps it
    refs = sacrebleu_lines(folder / "ref0.txt")
    out = ok_json(folder / "ref0.txt", "-i", path, "-w", "6")
    kept = wmt_stats(path, folder / "ref0.txt")
    stripped = GLEU().stats([lines[0][1:], *lines[1:]], refs)
    assert_equals_api(out, kept, width=6)
    assert out["n_match"] == stripped.totals()[0] - 1  # the BOM costs line 1 its first unigram match
    # A BOM in a reference file and on standard input is treated the same way.
    ref = tmp_path / "ref.txt"
    ref.write_bytes(b"\xef\xbb\xbfa b c\n")
    assert ok_json(ref, stdin=b"a b c\n")["n_match"] == 3  # of 6 n-grams, those with "a" do not match
    assert ok_json(ref, stdin=b"\xef\xbb\xbfa b c\n")["n_match"] == 6


def test_several_references(tmp_path):
    refs = read_lines(SAMPLE / "ref0.txt")
    second = read_lines(SAMPLE / "sys_online-B.0.txt")  # a second "reference" for the test
    system = SAMPLE / "sys_uedin-nmt.4722.txt"
    out = ok_json(SAMPLE / "ref0.txt", SAMPLE / "sys_online-B.0.txt", "-i", system)
    stats = GLEU().stats(read_lines(system), [[a, b] for a, b in zip(refs, second)])
    assert_equals_api(out, stats)
    assert out["signature"].startswith("nrefs:2|")


def test_stdin_equals_file():
    system = SAMPLE / "sys_uedin-nmt.4722.txt"
    from_stdin = ok_json(SAMPLE / "ref0.txt", stdin=system.read_bytes())
    from_file = ok_json(SAMPLE / "ref0.txt", "-i", system)
    assert from_stdin == {**from_file, "system": "stdin"}


@pytest.mark.parametrize(
    "options, kwargs, sig",
    [
        (["-tok", "intl", "-lc"], {"tokenizer": "intl", "lowercase": True}, "case:lc|tok:intl|ngram:1-4"),
        (
            ["--tokenize", "none", "--min-len", "2", "--max-len", "3"],
            {"tokenizer": "none", "min_len": 2, "max_len": 3},
            "tok:none|ngram:2-3",
        ),
        (["--tokenize", "char", "--lowercase"], {"tokenizer": "char", "lowercase": True}, "case:lc|tok:char"),
    ],
)
def test_options_reach_the_scoring(options, kwargs, sig):
    system = SAMPLE / "sys_PROMT-Rule-based.4735.txt"
    out = ok_json(SAMPLE / "ref0.txt", "-i", system, *options, "-w", "5")
    assert_equals_api(out, GLEU(**kwargs).stats(read_lines(system), read_lines(SAMPLE / "ref0.txt")), width=5)
    assert sig in out["signature"]


def test_sentence_level_equals_sentence_scores(shared_data):
    # Japanese with the char tokenizer; this system has two empty lines.
    folder = shared_data / "wmt22_en_ja"
    system = folder / "sys_Online-W.txt"
    stats = GLEU(tokenizer="char").stats(sacrebleu_lines(system), sacrebleu_lines(folder / "ref0.txt"))
    scores = stats.sentence_scores().tolist()
    done = run_cli(folder / "ref0.txt", "-i", system, "-tok", "char", "-sl")
    assert done.returncode == 0, done.stderr.decode()
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(lines) == len(scores) == 2037
    for line, row, score in zip(lines, stats.rows.tolist(), scores):
        assert [line["n_match"], line["n_hyp"], line["n_ref"], line["n_all"]] == row
        assert line["score"] == percent(score)
        assert (line["n_match"] / line["n_all"] if line["n_all"] else 0.0) == score
    done = run_cli(folder / "ref0.txt", "-i", system, "-tok", "char", "--sentence-level", "--score-only", "-w", "17")
    assert done.stdout.decode().splitlines() == [decimal_figure(m, a or 1, 17, 100) for m, _, _, a in stats.rows.tolist()]


def test_empty_files_score_zero(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    out = ok_json(empty, "-i", empty, "--confidence")
    assert (out["score"], out["n_all"], out["ci_low"], out["ci_high"]) == (0.0, 0, 0.0, 0.0)


# -- statistics -----------------------------------------------------------------------


def test_confidence_interval_equals_python_api():
    system = SAMPLE / "sys_online-A.0.txt"
    stats = GLEU().stats(read_lines(system), read_lines(SAMPLE / "ref0.txt"))
    out = ok_json(SAMPLE / "ref0.txt", "-i", system, "--confidence", "-w", "6")
    low, high = bootstrap_ci(stats, 1000, 12345)
    assert (out["ci_low"], out["ci_high"]) == (percent(low, 6), percent(high, 6))
    assert out["ci_low"] < out["score"] < out["ci_high"]
    assert "|bs:1000|seed:12345|" in out["signature"]
    out = ok_json(SAMPLE / "ref0.txt", "-i", system, "-ci", "-cin", "300", "--seed", "9", "-w", "6")
    low, high = bootstrap_ci(stats, 300, 9)
    assert (out["ci_low"], out["ci_high"]) == (percent(low, 6), percent(high, 6))
    assert "|bs:300|seed:9|" in out["signature"]


@pytest.mark.parametrize("test, flag, n", [("bs", "--paired-bs", 500), ("ar", "--paired-ar", 2000)])
def test_paired_tests_on_real_systems_equal_python_api(shared_data, test, flag, n):
    folder = shared_data / "wmt17_en_de"
    paths = [folder / name for name in WMT17_SYSTEMS]
    out = ok_json(folder / "ref0.txt", "-i", *paths, flag, "--paired-n", n, "-w", "6")
    # The Python API on the same statistics.
    stats = [wmt_stats(path, folder / "ref0.txt") for path in paths]
    expected = google_bleu.GLEU().paired_scores(stats, test=test, n_samples=n)
    assert [obj["system"] for obj in out] == [str(path) for path in paths]
    assert [obj["baseline"] for obj in out] == [True, False, False, False]
    for obj, system, result in zip(out, stats, expected):
        assert_equals_api(obj, system, width=6)
        assert (obj["ci_low"], obj["ci_high"]) == (percent(result.ci_low, 6), percent(result.ci_high, 6))
        assert obj["p_value"] == (None if result.p_value is None else round(result.p_value, 4))
    # uedin-nmt is far better than rule-based PROMT.
    assert out[3]["p_value"] == round(1 / (n + 1), 4)
    signature = {"bs": f"|bs:{n}|seed:12345|", "ar": f"|ar:{n}|bs:1000|seed:12345|"}[test]
    assert all(signature in obj["signature"] for obj in out)


def test_system_against_itself_in_the_cli():
    system = SAMPLE / "sys_online-B.0.txt"
    for flag in ("--paired-bs", "--paired-ar"):
        out = ok_json(SAMPLE / "ref0.txt", "-i", system, system, flag, "--paired-n", "200")
        assert out[1]["p_value"] == 1.0 and out[1]["score"] == out[0]["score"]


# -- text output ----------------------------------------------------------------------


def test_text_and_score_only_formats():
    ref, a, b = SAMPLE / "ref0.txt", SAMPLE / "sys_online-B.0.txt", SAMPLE / "sys_uedin-nmt.4722.txt"
    stats_a = GLEU().stats(read_lines(a), read_lines(ref))
    done = run_cli(ref, "-i", a, "-f", "text", "-w", "2")
    sig = google_bleu.signature("1", "13a", False, 1, 4)
    assert done.stdout.decode() == (
        f"GLEU|{sig} = {100 * stats_a.score():.2f} "
        f"(P = {100 * stats_a.precision():.2f}, R = {100 * stats_a.recall():.2f}), scale 0-100\n"
    )
    done = run_cli(ref, "-i", a, "-f", "text", "-ci")
    assert re.fullmatch(
        r"GLEU\|\S+\|bs:1000\|seed:12345\|\S+ = \d+\.\d \[\d+\.\d, \d+\.\d\] \(P = .*\), scale 0-100\n", done.stdout.decode()
    )
    done = run_cli(ref, "-i", a, "-b", "-w", "3")
    assert done.stdout.decode() == f"{100 * stats_a.score():.3f}\n"
    table = run_cli(ref, "-i", a, b, "-f", "text").stdout.decode().splitlines()
    assert table[0].split() == ["System", "|", "GLEU", "(scale", "0-100)", "|", "P", "|", "R"]
    assert table[2].startswith(str(a)) and f"{100 * stats_a.score():.1f}" in table[2]
    assert table[3].startswith(str(b)) and table[-1] == f"GLEU|{sig}"
    paired = run_cli(ref, "-i", a, b, "-f", "text", "-pbs", "--paired-n", "100").stdout.decode()
    assert "Baseline: " + str(a) in paired and "p-value" in paired and "|bs:100|seed:12345|" in paired


def test_progress_bar_only_on_a_terminal(tmp_path):
    # Long input: 2 systems x 6000 segments (the bar starts at 10,000 segment-systems).
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\n" * 6000, encoding="utf-8")
    hyp.write_text("the cat ate the mat\n" * 6000, encoding="utf-8")
    args = [ref, "-i", hyp, hyp]
    # stderr piped: nothing there.
    done = run_cli(*args)
    assert done.returncode == 0 and done.stderr == b""
    # stderr a terminal: a bar, and stdout still pure JSON.
    for extra, expect_bar in (([], True), (["--quiet"], False)):
        leader, follower = pty.openpty()
        try:
            done = run_cli(*args, *extra, stderr=follower, stdout=subprocess.PIPE)
        finally:
            os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        os.close(leader)
        assert done.returncode == 0
        assert len(json.loads(done.stdout)) == 2
        assert (b"google-bleu [" in seen and b"2/2" in seen) == expect_bar, seen[-300:]
    # A short input on a terminal: no bar either.
    leader, follower = pty.openpty()
    done = run_cli(SAMPLE / "ref0.txt", "-i", SAMPLE / "sys_online-B.0.txt", stderr=follower)
    os.close(follower)
    os.set_blocking(leader, False)
    try:
        assert os.read(leader, 65536) == b""
    except (BlockingIOError, OSError):
        pass
    os.close(leader)
    assert done.returncode == 0


# -- errors: one line on stderr, exit status 2, no traceback ------------------------


def assert_one_line_error(done, *fragments):
    message = done.stderr.decode()
    assert done.returncode == 2, message
    assert "Traceback" not in message
    lines = message.strip().splitlines()
    assert len(lines) == 1, message
    assert lines[0].startswith("google-bleu: error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert done.stdout == b""


def test_mismatched_line_counts_name_both_files(tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    ref = SAMPLE / "ref0.txt"
    assert_one_line_error(run_cli(ref, "-i", short), f"{short} has 1 lines but {ref} has 300")
    assert_one_line_error(run_cli(ref, short, "-i", short), f"{ref} has 300 lines but {short} has 1")
    assert_one_line_error(run_cli(ref, stdin=b"a\nb\n"), f"standard input has 2 lines but {ref} has 300")


def test_missing_and_unreadable_files(tmp_path):
    missing = tmp_path / "missing.txt"
    ref = SAMPLE / "ref0.txt"
    assert_one_line_error(run_cli(missing, "-i", ref), f"cannot read {missing}: No such file or directory")
    assert_one_line_error(run_cli(ref, "-i", missing), f"cannot read {missing}: No such file or directory")
    assert_one_line_error(run_cli(ref, "-i", tmp_path), f"cannot read {tmp_path}: Is a directory")


def test_invalid_utf8_names_the_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nalso fine\nbroken \xe9t\xe9\n")
    done = run_cli(bad, "-i", bad)
    assert_one_line_error(done, f"{bad}: line 3 is not valid UTF-8", "; convert it to UTF-8 first, e.g. iconv ")
    # It says how to go on (-e takes UTF-8 only): its command, run on this Latin-1 file, makes
    # one the command reads, with the text the file meant.
    iconv = done.stderr.decode().split("e.g. ", 1)[1].strip().replace("FILE", shlex.quote(str(bad)))
    converted = tmp_path / "NEW"
    subprocess.run(["bash", "-c", iconv], cwd=tmp_path, check=True)
    assert converted.read_text("utf-8") == "fine\nalso fine\nbroken été\n"
    assert ok_json(converted, "-i", converted)["score"] == 100.0
    good = tmp_path / "good.txt"
    good.write_text("a\nb\nc\n", encoding="utf-8")
    assert_one_line_error(run_cli(good, stdin=b"a\n\xff\nc\n"), "standard input: line 2 is not valid UTF-8")


@pytest.mark.parametrize(
    "options, fragments",
    [
        (["--min-len", "0"], ["min_len"]),
        (["--max-len", "101"], ["max_len", "101"]),
        (["--min-len", "3", "--max-len", "2"], ["min_len", "max_len"]),
        (["--min-len", "two"], ["--min-len", "invalid int value: 'two'"]),
        (["--width", "-1"], ["--width", "must be an integer from 0 to 17, got '-1'"]),
        (["--width", "x"], ["--width", "got 'x'"]),
        (["--confidence", "--confidence-n", "0"], ["--confidence-n must be a positive integer, got 0"]),
        (["--paired-bs", "--paired-n", "-3"], ["--paired-n must be a positive integer, got -3"]),
        (["--seed", "-1"], ["seed must be a non-negative integer"]),
        (["--tokenize", "moses"], ["--tokenize", "invalid choice: 'moses'"]),
        (["--format", "xml"], ["--format", "invalid choice: 'xml'"]),
        (["--paired-bs", "--paired-ar"], ["not allowed with argument"]),
        (["--paired-bs"], ["paired tests need at least two systems"]),
        (["--sentence-level", "--confidence"], ["--sentence-level takes one system"]),
        (["--no-such-option"], ["unrecognized arguments: --no-such-option"]),
        (["--num-refs", "0"], ["--num-refs", "must be a positive integer, got '0'"]),
        (["--num-refs", "x"], ["--num-refs", "got 'x'"]),
        (["--num-refs", "2"], ["line 1 has 1 tab-separated references, expected 2"]),
        (["--scale", "10"], ["--scale", "must be the integer 100", "got '10'"]),
        (["--format", "latex", "--width", "18"], ["--width", "got '18'"]),
    ],
)
def test_bad_option_values(options, fragments, capsys):
    # In-process through main() (the same code `python -m google_bleu` runs; the
    # subprocess path is covered by the other error tests).
    system = SAMPLE / "sys_online-B.0.txt"
    status = main([str(SAMPLE / "ref0.txt"), "-i", str(system), *options])
    captured = capsys.readouterr()
    done = subprocess.CompletedProcess([], status, captured.out.encode(), captured.err.encode())
    assert_one_line_error(done, *fragments)


def test_bad_option_value_through_subprocess():
    done = run_cli(SAMPLE / "ref0.txt", "-i", SAMPLE / "sys_online-B.0.txt", "--max-len", "0")
    assert_one_line_error(done, "max_len")


def test_more_usage_errors():
    system = SAMPLE / "sys_online-B.0.txt"
    assert_one_line_error(run_cli(), "no reference file: references come first, system outputs after -i")
    # sacrebleu's order mistake: the reference after -i is read as a system output.
    assert_one_line_error(
        run_cli("-i", system, SAMPLE / "ref0.txt"),
        "references come first, system outputs after -i (google-bleu REF [REF ...] -i HYP [HYP ...]",
    )
    assert_one_line_error(
        run_cli(SAMPLE / "ref0.txt", "-i", system, system, "-sl"), "--sentence-level takes one system"
    )


def test_missing_tokenizer_extra_is_one_line():
    pytest.importorskip("sacrebleu")
    try:
        import MeCab  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("MeCab is installed: ja-mecab works")
    done = run_cli(SAMPLE / "ref0.txt", "-i", SAMPLE / "sys_online-B.0.txt", "-tok", "ja-mecab")
    assert_one_line_error(done, "ja-mecab", "pip install")


def test_version_and_help():
    done = run_cli("--version")
    assert done.returncode == 0 and done.stdout.decode().strip() == f"google-bleu {google_bleu.__version__}"
    done = run_cli("--help")
    assert done.returncode == 0 and b"--paired-bs" in done.stdout and b"--confidence-n" in done.stdout


# -- sacrebleu's -nr, -f latex, and the scale (issue 23) ----------------------------------
def test_num_refs_tab_separated_equals_two_reference_files(tmp_path):
    first, second = read_lines(SAMPLE / "ref0.txt"), read_lines(SAMPLE / "sys_online-B.0.txt")
    tabbed = tmp_path / "refs.tsv"
    tabbed.write_text("".join(f"{a}\t{b}\n" for a, b in zip(first, second)), "utf-8")
    system = SAMPLE / "sys_online-A.0.txt"
    two_files = ok_json(SAMPLE / "ref0.txt", SAMPLE / "sys_online-B.0.txt", "-i", system, "-w", "6")
    one_file = ok_json(tabbed, "-nr", "2", "-i", system, "-w", "6")
    assert one_file == two_files
    # A line with another number of fields is named.
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\nc\n", "utf-8")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a\nc\n", "utf-8")
    done = run_cli(bad, "-nr", "2", "-i", hyp)
    assert done.returncode == 2 and done.stderr.decode() == (
        f"google-bleu: error: {bad}: line 2 has 1 tab-separated references, expected 2 (-nr)\n"
    )
    # -nr reads one REF file; two REF files with it are refused before anything is read.
    done = run_cli(tabbed, tabbed, "-nr", "2", "-i", hyp)
    assert done.returncode == 2 and done.stderr.decode() == (
        "google-bleu: error: --num-refs 2 reads tab-separated references from one REF file, got 2\n"
    )


def test_latex_and_scale_outputs():
    system = SAMPLE / "sys_online-A.0.txt"
    done = run_cli(SAMPLE / "ref0.txt", "-i", system, SAMPLE / "sys_online-B.0.txt", "-f", "latex")
    text = done.stdout.decode()
    assert done.returncode == 0 and "\\begin{tabular}" in text and "GLEU (scale 0-100)" in text
    assert "sys\\_online-A.0.txt" in text  # names are escaped for LaTeX
    out100 = ok_json(SAMPLE / "ref0.txt", "-i", system, "-w", "6")
    out1 = ok_json(SAMPLE / "ref0.txt", "-i", system, "-w", "8", "--scale", "1")
    assert out1["score"] == pytest.approx(out100["score"] / 100, abs=1e-8)
    line = run_cli(SAMPLE / "ref0.txt", "-i", system, "-f", "text", "--scale", "1", "-w", "4").stdout.decode()
    assert line.endswith(", scale 0-1\n")
    # Without -w a score shows the same digits on either scale: 29.3 and 0.293.
    default100 = ok_json(SAMPLE / "ref0.txt", "-i", system)
    default1 = ok_json(SAMPLE / "ref0.txt", "-i", system, "--scale", "1")
    assert default1["score"] == round(out100["score"] / 100, 3) != 0
    assert len(str(default1["score"]).split(".")[1]) == 3 and len(str(default100["score"]).split(".")[1]) == 1


# -- no abbreviation; sacrebleu's spellings ------------------------------------------------
def in_process(*options):
    """``main`` on the sample with these options: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(SAMPLE / "ref0.txt"), "-i", str(SAMPLE / "sys_online-B.0.txt"), *options])
    return subprocess.CompletedProcess([], status, out.getvalue().encode(), err.getvalue().encode())


def option_names():
    return sorted({name for action in build_parser()._actions for name in action.option_strings})


def test_no_option_is_reachable_by_a_prefix():
    # Every proper prefix of every option (that is not an option itself) is refused, alone
    # and in the --name=value form, and nothing is scored: argparse took -l for -lc (34.6
    # became 35.4) before allow_abbrev=False. For single-dash options argparse still
    # abbreviates, but each such prefix is ambiguous or names a refused option. This fails
    # when an argparse release lets a prefix reach an option that scores.
    names = option_names()
    tried = 0
    for name in names:
        for cut in range(2, len(name)):
            prefix = name[:cut]
            if prefix in names or prefix == "--":
                continue
            for argument in (prefix, f"{prefix}=2"):
                done = in_process(argument)
                assert_one_line_error(done)
                message = done.stderr.decode()
                assert any(part in message for part in ("unrecognized arguments", "ambiguous option", "-ol:", "-t:")), message
                tried += 1
    assert tried > 150
    # A one-letter option still takes its value attached, and one-letter flags still group.
    assert in_process("-j1").returncode == 0 and in_process("-qb").stdout.decode().count("\n") == 1


def sacrebleu_cli(*args):
    """sacrebleu's own command on the same files: its standard output."""
    command = [sys.executable, "-m", "sacrebleu", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=True).stdout


@pytest.mark.parametrize("target", ["de", "zh", "ja", "ko"])
def test_language_pair_chooses_the_tokenizer_as_sacrebleu(target):
    # Without a test set, sacrebleu's -l SRC-TRG chooses the default tokenizer from the target
    # language, and its signature records that tokenizer (tok:), not the pair.
    if target in ("ja", "ko"):
        pytest.importorskip("MeCab")
    ref, system = SAMPLE / "ref0.txt", SAMPLE / "sys_online-B.0.txt"
    theirs = sacrebleu_cli(ref, "-i", system, "-l", f"en-{target}", "-f", "text")
    fields = dict(field.split(":", 1) for field in theirs.split(" = ")[0].split("|")[1:])
    assert "l" not in fields and "lang" not in fields
    ours = in_process("-l", f"en-{target}")
    assert ours.returncode == 0 and ours.stderr == b"", ours.stderr
    tokenizer = dict(field.split(":", 1) for field in json.loads(ours.stdout)["signature"].split("|"))["tok"]
    # sacrebleu's signature adds the MeCab dictionary's version: ja-mecab-0.996-IPA.
    assert fields["tok"] == tokenizer or fields["tok"].startswith(f"{tokenizer}-"), (fields["tok"], tokenizer)
    assert tokenizer == {"de": "13a", "zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}[target]
    assert ours.stdout == in_process("-tok", tokenizer).stdout


def test_language_pair_with_another_tokenizer_warns_as_sacrebleu():
    ref, system = SAMPLE / "ref0.txt", SAMPLE / "sys_online-B.0.txt"
    command = [sys.executable, "-m", "sacrebleu", ref, "-i", system, "-l", "en-zh", "-tok", "13a"]
    assert "Consider using the 'zh'" in subprocess.run(command, capture_output=True, text=True, timeout=300).stderr
    done = in_process("-l", "en-zh", "-tok", "13a")
    assert done.returncode == 0 and done.stdout == in_process().stdout
    assert done.stderr.decode() == (
        "google-bleu: warning: -l en-zh chooses -tok zh for its target language; -tok 13a is used\n"
    )
    assert in_process("-l", "en-de", "-tok", "intl").stderr == b""  # German has no tokenizer of its own
    # -l is not -lc (it was once taken for it: 34.6 became 35.4); a pair that is not SRC-TRG
    # is refused (sacrebleu fails with an IndexError on "ende").
    assert in_process("-l", "en-de").stdout == in_process().stdout
    assert json.loads(in_process("-lc").stdout)["signature"].startswith("nrefs:1|case:lc|")
    for pair in ("ende", "en-", "en-de-fr"):
        message = f"argument -l/--language-pair: must be a language pair SRC-TRG (as en-de), got {pair!r}"
        assert_one_line_error(in_process("-l", pair), message)
    assert_one_line_error(in_process("-t", "wmt17", "-l", "en-de"), "-t: test sets are not downloaded here")


def test_score_only_names_each_system_as_sacrebleu():
    # sacrebleu -b prints a bare score for one system, and names each of several (JSON by
    # default, a table with -f text or latex); so does this command, with GLEU's figures.
    ref, a, b = SAMPLE / "ref0.txt", SAMPLE / "sys_online-B.0.txt", SAMPLE / "sys_uedin-nmt.4722.txt"
    theirs = json.loads(sacrebleu_cli(ref, "-i", a, b, "-b"))
    ours = ok_json(ref, "-i", a, b, "-b", "-w", "3")
    assert [obj["system"] for obj in ours] == [obj["system"] for obj in theirs] == [str(a), str(b)]
    stats = [GLEU().stats(read_lines(path), read_lines(ref)) for path in (a, b)]
    assert ours == [
        {"name": "GLEU", "system": str(path), "score": percent(system.score(), 3), "scale": "0-100"}
        for path, system in zip((a, b), stats)
    ]
    paired = ok_json(ref, "-i", a, b, "-b", "-pbs", "--paired-n", "100", "--scale", "1")
    assert [obj["baseline"] for obj in paired] == [True, False]
    assert [obj["score"] for obj in paired] == [round(system.score(), 3) for system in stats]
    text = run_cli(ref, "-i", a, b, "-b", "-f", "text", "-sh").stdout.decode().splitlines()
    assert text[0].split() == ["System", "|", "GLEU", "(scale", "0-100)"]
    assert [line.split("|")[0].strip() for line in text[2:4]] == [str(a), str(b)]
    assert [line.split("|")[1].strip() for line in text[2:4]] == [f"{100 * system.score():.1f}" for system in stats]
    assert text[-1].startswith("GLEU|#:1|c:mixed|tok:13a|n:1-4|v:")
    latex = run_cli(ref, "-i", a, b, "-b", "-f", "latex").stdout.decode()
    assert "sys\\_uedin-nmt.4722.txt" in latex and "GLEU (scale 0-100)" in latex and " P " not in latex


@pytest.mark.parametrize(
    "options, answer",
    [
        (["-t", "wmt17"], "-t: test sets are not downloaded here"),
        (["--test-set", "wmt17", "-l", "en-de"], "--test-set: test sets are not downloaded here"),
        (["--list"], "--list: test sets are not downloaded"),
        (["--echo", "src"], "--echo: test sets are not downloaded"),
        (["--download", "wmt17"], "--download: test sets are not downloaded"),
        (["-ol", "en"], "-ol: test sets"),
        (["--subset", "x"], "--subset: test sets"),
        (["-d"], "-d: test sets are not downloaded, so there is no split by original language"),
        (["-s", "floor"], "-s: GLEU needs no smoothing"),
        (["-sv", "0.1"], "-sv: GLEU needs no smoothing"),
        (["-cc", "6"], "-cc: chrF is not computed here: use sacrebleu -m chrf"),
        (["--chrf-whitespace"], "--chrf-whitespace: chrF is not computed here"),
        (["--ter-normalized"], "--ter-normalized: TER is not computed here: use sacrebleu -m ter"),
        (["-m", "bleu", "chrf"], "argument -m/--metrics: this command computes GLEU only, got 'bleu': use sacrebleu -m bleu"),
        (["-e", "latin-1"], "argument -e/--encoding: files are read as UTF-8 only, got 'latin-1': convert them first"),
        (["-e", "no-such-codec"], "got 'no-such-codec'"),
        (["-pbsn", "100"], "--paired-bs-n gives the resamples of -pbs/--paired-bs, which was not given"),
        (["-pbs", "-parn", "100"], "--paired-ar-n gives the trials of -par/--paired-ar, which was not given"),
        (["-pbs", "-pbsn", "10", "--paired-n", "10"], "give the resamples once: --paired-n and --paired-bs-n"),
        (["-pbs", "-pbsn", "0"], "--paired-bs-n must be a positive integer, got 0"),
    ],
)
def test_sacrebleu_options_without_a_meaning_here_get_an_answer(options, answer):
    if "-pbs" in options or "-par" in options:
        options = [str(SAMPLE / "sys_uedin-nmt.4722.txt"), *options]  # a second system to compare
    assert_one_line_error(in_process(*options), answer)


def test_sacrebleu_spellings_that_mean_something_here():
    base = ok_json(SAMPLE / "ref0.txt", "-i", SAMPLE / "sys_online-B.0.txt", SAMPLE / "sys_uedin-nmt.4722.txt", "-pbs",
                   "--paired-n", "200")
    for options in (["-pbsn", "200"], ["--paired-bs-n", "200"]):
        assert json.loads(in_process(str(SAMPLE / "sys_uedin-nmt.4722.txt"), "-pbs", *options).stdout) == base
    ar = json.loads(in_process(str(SAMPLE / "sys_uedin-nmt.4722.txt"), "-par", "--paired-n", "300").stdout)
    assert json.loads(in_process(str(SAMPLE / "sys_uedin-nmt.4722.txt"), "-par", "-parn", "300").stdout) == ar
    assert "|ar:300|" in ar[1]["signature"]
    # Options that change nothing here are accepted and change nothing.
    plain = in_process().stdout
    for options in (["-e", "utf-8"], ["--encoding", "UTF8"], ["-m", "gleu"], ["-nc"], ["--no-color"], ["--force"],
                    ["--paired-jobs", "1"]):
        assert in_process(*options).stdout == plain, options
    # --short abbreviates the signature in text and LaTeX (as sacrebleu), not in JSON.
    text = in_process("-f", "text", "-sh", "-ci").stdout.decode()
    assert text.startswith("GLEU|#:1|c:mixed|tok:13a|n:1-4|bs:1000|rs:12345|v:") and text.endswith(", scale 0-100\n")
    assert in_process("-f", "text", "-ci").stdout.decode().split(" = ")[1] == text.split(" = ")[1]
    assert json.loads(in_process("--short").stdout) == json.loads(plain)
    assert "% GLEU|#:1|" in in_process(str(SAMPLE / "sys_uedin-nmt.4722.txt"), "-f", "latex", "-sh").stdout.decode()
    # --citation prints the BibTeX of the GLEU paper (version.CITATION, the metric card's too) and exits 0.
    done = run_cli("--citation")
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.decode().startswith("@misc{wu2016googles,") and "eprint={1609.08144}" in done.stdout.decode()
    assert run_cli("--cite").stdout == done.stdout


def test_every_json_object_names_its_scale():
    assert ok_json(SAMPLE / "ref0.txt", "-i", SAMPLE / "sys_online-B.0.txt")["scale"] == "0-100"
    assert ok_json(SAMPLE / "ref0.txt", "-i", SAMPLE / "sys_online-B.0.txt", "--scale", "1")["scale"] == "0-1"
    two = ok_json(SAMPLE / "ref0.txt", "-i", SAMPLE / "sys_online-B.0.txt", SAMPLE / "sys_uedin-nmt.4722.txt", "-pbs")
    assert [obj["scale"] for obj in two] == ["0-100", "0-100"]
    lines = in_process("-sl", "--scale", "1", "-w", "4").stdout.decode().splitlines()
    assert len(lines) == 300 and all(json.loads(line)["scale"] == "0-1" for line in lines)


def test_a_short_file_is_scored_without_numpy_tabulate_or_tqdm(tmp_path):
    # A shell loop over many small files pays the command's start-up each time: a short
    # input never imports numpy (the engine's plain-Python strategy, rows kept as lists),
    # and tabulate and tqdm only load when a table (two systems) or a progress bar is drawn.
    (tmp_path / "ref.txt").write_text("The cat sat on the mat.\nHello world , this is a test.\n")
    (tmp_path / "hyp.txt").write_text("The cat is on the mat.\nHello world, this is one test.\n")
    code = (
        "import io, json, sys\n"
        "from google_bleu.cli.main import run\n"
        "out = io.StringIO()\n"
        f"run([{str(tmp_path / 'ref.txt')!r}, '-i', {str(tmp_path / 'hyp.txt')!r}], out)\n"
        "print(json.loads(out.getvalue())['n_match'])\n"
        "print('numpy' in sys.modules, 'tabulate' in sys.modules, 'tqdm' in sys.modules)\n"
        f"run([{str(tmp_path / 'ref.txt')!r}, '-i', {str(tmp_path / 'hyp.txt')!r}, {str(tmp_path / 'ref.txt')!r}, '-f', 'text'], out)\n"
        "print('numpy' in sys.modules, 'tabulate' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    refs = [["The cat sat on the mat."], ["Hello world , this is a test."]]
    expected = GLEU().stats(["The cat is on the mat.", "Hello world, this is one test."], refs).totals()[0]
    assert out[:3] == [str(expected), "False False False", "False True"]


def test_the_package_exposes_run_and_the_entry_point_is_its_module_s_main():
    # google_bleu.cli once re-exported main, which shadowed the submodule of that name.
    import importlib
    import types

    import google_bleu.cli

    module = importlib.import_module("google_bleu.cli.main")
    assert google_bleu.cli.__all__ == ["run"] and google_bleu.cli.run is module.run
    assert isinstance(google_bleu.cli.main, types.ModuleType) and callable(module.main)


def test_options_are_one_frozen_value_with_the_scorer_in_it():
    from google_bleu.cli.options import parse

    argv = [str(SAMPLE / "ref0.txt"), "-i", str(SAMPLE / "sys_online-B.0.txt"), "x.txt", "-pbsn", "50", "-pbs"]
    options = parse(argv)
    assert options == parse(argv)
    assert (options.paired, options.paired_n, options.width, options.scale) == ("bs", 50, 1, 100)
    assert options.scorer == google_bleu.GLEU() and parse([*argv, "--scale", "1"]).width == 3
    assert parse([*argv, "-l", "en-zh"]).scorer == google_bleu.GLEU("zh")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.width = 2
