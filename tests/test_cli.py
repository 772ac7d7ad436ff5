"""The command-line tool through a real subprocess."""

import json
import subprocess
import sys

from google_bleu import text_stats
from tests.oracles import SAMPLES, read_lines

SAMPLE = SAMPLES / "wmt17_en_de"


def run_cli(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "google_bleu", *map(str, args)], input=stdin, capture_output=True, timeout=300
    )


def test_json_equals_python_api():
    system = SAMPLE / "sys_online-B.0.txt"
    done = run_cli(SAMPLE / "ref0.txt", "-i", system)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    stats = text_stats(read_lines(system), read_lines(SAMPLE / "ref0.txt"))
    assert out["n_match"] == stats.totals()[0]
    assert out["score"] == round(100 * stats.score(), 2)


def test_mismatched_line_counts_exit_with_one_line(tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    done = run_cli(SAMPLE / "ref0.txt", "-i", short)
    assert done.returncode == 2
    message = done.stderr.decode().strip()
    assert len(message.splitlines()) == 1
    assert "short.txt has 1 lines" in message and "300" in message
