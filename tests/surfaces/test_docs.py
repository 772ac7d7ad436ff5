"""The documentation: the site builds strictly, every example runs, figures come from results.

The ``>>>`` examples of the README and ``docs/*.md`` are doctests (collected through
``--doctest-glob`` in pyproject.toml). This file runs the rest: the marked recipe blocks
that are not doctests, the command-line sessions of ``docs/cli.md`` (their output must be
what the tool prints), the results-file schema example, the generated performance tables
(``benchmarks/report.py --check``) and the strict MkDocs build.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.oracles import REPO
from tests.helpers.readme_snippets import marked_blocks, readme_snippet

sys.path.insert(0, str(REPO / "benchmarks"))
import report  # noqa: E402

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_FENCE = re.compile(r"(?P<mark><!-- test: [\w-]+ -->\n)?```(?P<lang>\w*)\n(?P<code>.*?)\n```", re.DOTALL)


def fenced_blocks(page: Path) -> list[tuple[str, str, bool]]:
    """``(language, code, marked)`` of every fenced block of a page."""
    return [(m["lang"], m["code"], bool(m["mark"])) for m in _FENCE.finditer(page.read_text("utf-8"))]


# -- every example runs ---------------------------------------------------------------
@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_code_block_is_run_somewhere(page):
    # python: a doctest (>>>) or a marked block run by a test; console: only pages whose
    # sessions are replayed below; json: only the results schema; bash: the README's two
    # set-up commands; text: diagrams.
    allowed = {"python", "console", "json", "bash", "text", "bibtex"}
    for lang, code, marked in fenced_blocks(page):
        assert lang in allowed, f"{page.name}: a ```{lang} block is neither run nor allowed"
        if lang == "python":
            assert ">>>" in code or marked, f"{page.name}: a python block is neither a doctest nor marked:\n{code}"
        if lang == "console":
            assert page.name in CONSOLE_PAGES, f"{page.name}: console sessions are replayed only in {CONSOLE_PAGES}"
        if lang == "json":
            assert page.name == "performance.md", f"{page.name}: a json block that no test reads"
        if lang == "bash":
            assert page.name == "README.md" and code.split("\n") == [
                "make run    # creates .venv, installs, scores the bundled real WMT17 sample, prints JSON",
                "make test   # creates .venv with the test extras, runs the whole suite",
            ], f"{page.name}: a bash block other than the two set-up commands"


def test_every_marked_block_is_run_by_a_test():
    sources = "\n".join(path.read_text("utf-8") for path in (REPO / "tests").rglob("*.py"))
    for name in marked_blocks():
        assert re.search(rf"[\"']{re.escape(name)}[\"']", sources), f"no test runs the block marked {name!r}"


def test_how_to_use_block(tmp_path, monkeypatch):
    from tests.helpers.oracles import CARD_PREDICTIONS, CARD_REFERENCES

    monkeypatch.chdir(REPO)  # evaluate.load("google_bleu") resolves the folder from here
    namespace = {"predictions": CARD_PREDICTIONS, "references": CARD_REFERENCES}
    exec(readme_snippet("how-to-use"), namespace)
    assert round(namespace["result"]["google_bleu"], 2) == 0.61


def test_space_client_block(app_url):
    # The session's one server of the Space (tests/conftest.py): a Blocks serves once at a time.
    code = readme_snippet("space-client")
    assert '"http://127.0.0.1:7860/"' in code
    namespace: dict = {}
    exec(code.replace('"http://127.0.0.1:7860/"', repr(app_url)), namespace)
    import google_bleu

    expected = google_bleu.load().compute(
        predictions=["the cat sat on the mat"], references=[["the cat ate the mat"]], return_sentence_scores=True
    )
    result = namespace["result"]
    assert {key: result[key] for key in expected} == expected  # the evaluate module's dict, exactly
    totals = google_bleu.GLEU().corpus_score(["the cat sat on the mat"], [["the cat ate the mat"]])
    assert (result["n_match"], result["n_hyp"], result["n_ref"], result["n_all"]) == (
        totals.n_match,
        totals.n_hyp,
        totals.n_ref,
        totals.n_all,
    )


# -- command-line sessions --------------------------------------------------------------
CONSOLE_PAGES = ("cli.md",)


def console_sessions(page: Path) -> list[list[tuple[str, str]]]:
    """Each ```console block as ``(command, expected output)`` pairs."""
    sessions = []
    for lang, code, _ in fenced_blocks(page):
        if lang != "console":
            continue
        steps: list[tuple[str, list[str]]] = []
        for line in code.split("\n"):
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                assert steps, f"{page.name}: a console block must start with a $ command"
                steps[-1][1].append(line)
        sessions.append([(command, "\n".join(out)) for command, out in steps])
    return sessions


def replay(session: list[tuple[str, str]]) -> list[str]:
    """Runs a session's commands in one bash from the repository root; the output of each.

    ``google-bleu`` is this checkout's ``python -m google_bleu``; stderr goes with stdout,
    as a terminal shows them.
    """
    python = shlex.quote(sys.executable)
    lines = ["exec 2>&1", f'google-bleu() {{ {python} -m google_bleu "$@"; }}']
    for index, (command, _) in enumerate(session):
        lines += [command, "__status=$?", f"echo '@@@{index}@@@'", "(exit $__status)"]
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="200")
    out = subprocess.run(
        ["bash", "-c", "\n".join(lines)], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    ).stdout
    parts = re.split(r"@@@\d+@@@\n", out)
    assert len(parts) == len(session) + 1, out
    return [part.rstrip("\n") for part in parts[:-1]]


@pytest.mark.parametrize("page", [REPO / "docs" / name for name in CONSOLE_PAGES], ids=lambda page: page.name)
def test_console_sessions_print_what_the_page_shows(page):
    sessions = console_sessions(page)
    assert sessions
    for session in sessions:
        for (command, expected), got in zip(session, replay(session)):
            assert got == expected, f"{page.name}: `{command}` printed:\n{got}\n--- the page shows:\n{expected}"


def test_console_replay_sees_errors_and_status():
    session = [("cd google_bleu/samples/wmt17_en_de", ""), ("head -2 ref0.txt | google-bleu ref0.txt", ""), ("echo $?", "")]
    got = replay(session)[1:]
    assert got[0] == "google-bleu: error: standard input has 2 lines but ref0.txt has 300"
    assert got[1] == "2"


# -- figures come from results files ------------------------------------------------------
def test_performance_tables_are_generated_from_the_results_files():
    assert report.main(["--check"]) == 0, "run: python benchmarks/report.py"
    page = (REPO / "docs" / "performance.md").read_text("utf-8")
    runs = report.load_results()
    for name, run in runs.items():
        assert f"`benchmarks/results/{name}.json`" in page
        for table in run["tables"]:
            assert report.render_table(table) in page


def test_results_schema_example_renders(tmp_path):
    blocks = [code for lang, code, _ in fenced_blocks(REPO / "docs" / "performance.md") if lang == "json"]
    assert len(blocks) == 1
    results, docs = tmp_path / "results", tmp_path / "docs"
    results.mkdir()
    docs.mkdir()
    example = json.loads(blocks[0])
    (results / "pairwise.json").write_text(json.dumps(example), "utf-8")
    (results / "pairwise.png").write_bytes(b"\x89PNG figure")
    page = docs / "performance.md"
    page.write_text("# P\n\n<!-- results: all -->\n<!-- /results -->\n\n<!-- results: pairwise -->\nold\n<!-- /results -->\n")
    assert report.main(["--results", str(results), "--docs", str(docs), "--check"]) == 1
    assert report.main(["--results", str(results), "--docs", str(docs)]) == 0
    text = page.read_text("utf-8")
    assert text.count("### Pairwise GLEU for MBR") == 2 and "old" not in text
    assert "| 256 | 1.000 s | 0.0100 s | 100x | yes |" in text
    assert "Machine: cpu: AMD EPYC; cores: 2; python: 3.11.7" in text
    assert (docs / "figures" / "pairwise.png").read_bytes() == b"\x89PNG figure"
    assert report.main(["--results", str(results), "--docs", str(docs), "--check"]) == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ([], "holds one JSON object"),
        ({"schema": 2, "title": "t", "machine": {}, "tables": []}, "'schema' must be 1"),
        ({"schema": 1, "title": "t", "machine": {}, "tables": []}, "'tables' is empty"),
        ({"schema": 1, "title": "t", "machine": {}, "tables": [{"columns": [], "rows": []}]}, "non-empty 'columns'"),
        ({"schema": 1, "title": "t", "tables": [{"columns": [{"key": "a"}], "rows": []}]}, "'machine' must be a dict"),
    ],
)
def test_bad_results_file_is_refused_naming_it(tmp_path, capsys, content, message):
    (tmp_path / "bad.json").write_text(json.dumps(content), "utf-8")
    assert report.main(["--results", str(tmp_path), "--docs", str(tmp_path), "--check"]) == 2
    error = capsys.readouterr().err
    assert "bad.json" in error and message in error


def test_region_naming_a_missing_results_file_is_an_error(tmp_path, capsys):
    (tmp_path / "page.md").write_text("<!-- results: nothing -->\n<!-- /results -->\n", "utf-8")
    assert report.main(["--results", str(tmp_path), "--docs", str(tmp_path)]) == 2
    assert "nothing.json does not exist" in capsys.readouterr().err


# -- the card -------------------------------------------------------------------------
def test_readme_is_a_metric_card():
    text = (REPO / "README.md").read_text("utf-8")
    assert len(text.splitlines()) <= 250
    headings = re.findall(r"^## (.+)$", text, re.M)
    template = ["Metric Description", "How to Use", "Limitations and Bias", "Citation", "Further References"]
    assert [h for h in headings if h in template] == template
    assert {"Inputs", "Output Values", "Examples"} <= set(re.findall(r"^### (.+)$", text, re.M))
    # What GLEU is, how to call it and what comes back, before the first section.
    first_screen = text.split("---\n", 2)[2].split("\n## ")[0]
    assert "minimum of n-gram precision" in first_screen and ".compute(" in first_screen
    assert "{'google_bleu': " in first_screen


# -- the site -------------------------------------------------------------------------
@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="mkdocs and mkdocs-material are not installed (pip install '.[docs]')",
)
def test_site_builds_strictly(tmp_path):
    site = tmp_path / "site"
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert out.returncode == 0, out.stderr
    assert "WARNING" not in out.stderr, out.stderr
    card = (site / "card" / "index.html").read_text("utf-8")
    assert "Metric Card for Google-BLEU" in card and "sdk_version" not in card
    for page in (REPO / "docs").glob("*.md"):
        target = site / ("" if page.stem == "index" else page.stem) / "index.html"
        assert target.exists(), f"{page.name} was not built"
