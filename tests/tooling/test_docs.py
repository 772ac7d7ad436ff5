"""The documentation: the site builds strictly, every example runs, figures come from results.

The ``>>>`` examples of the README and ``docs/*.md`` are doctests (collected through
``--doctest-glob`` in pyproject.toml). This file runs the rest: every other python block
alone in a fresh interpreter (with its prelude, tests/helpers/readme_snippets.py), the
command-line sessions of ``docs/cli.md`` (their output must be
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
from tests.helpers.readme_snippets import marked_blocks, python_blocks, readme_snippet, run_script

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
    # sessions are replayed below; json: only the results schema; bash: the README's
    # set-up commands; text: diagrams.
    allowed = {"python", "console", "json", "bash", "text", "bibtex"}
    for lang, code, _ in fenced_blocks(page):
        assert lang in allowed, f"{page.name}: a ```{lang} block is neither run nor allowed"
        if lang == "python":  # a doctest session, or a script run alone (below)
            assert (">>>" in code) == code.lstrip().startswith(">>>"), f"{page.name}: >>> inside a script:\n{code}"
        if lang == "console":
            assert page.name in CONSOLE_PAGES, f"{page.name}: console sessions are replayed only in {CONSOLE_PAGES}"
        if lang == "json":
            assert page.name == "performance.md", f"{page.name}: a json block that no test reads"
        if lang == "bash":
            targets = [re.fullmatch(r"make (\w+) +# .+", line) for line in code.split("\n")]
            assert page.name == "README.md" and [t and t[1] for t in targets] == ["run", "test"], (
                f"{page.name}: a bash block other than the two set-up commands (make run, make test)"
            )


# Every python block that is not a >>> session runs alone, with its prelude (see
# tests/helpers/readme_snippets.py), in a fresh interpreter, as a reader would run it.
# These need a running server, a cluster, several processes or a framework's machinery and
# are run by their own tests (as written, with their names given); for them the check here
# is that every name they use is defined by the block or its prelude.
SPECIAL_RUNNERS = {
    "space-client": "the Space's server (test_space_client_block)",
    "ray-recipe": "a Ray cluster (tests/scale/test_ray.py)",
    "torchmetrics": "torchmetrics (tests/integrations/test_harnesses.py)",
    "lm-eval-utils": "lm-eval (tests/integrations/test_harnesses.py)",
    "lm-eval": "lm-eval (tests/integrations/test_harnesses.py)",
    "lighteval": "LightEval 0.13 (tests/frameworks/lighteval, make framework-lighteval)",
    "rl-trl": "TRL (tests/integrations/test_rewards.py)",
    "rl-trl-ids": "TRL (tests/integrations/test_rewards.py)",
    "rl-verl": "veRL's reward call (tests/integrations/test_rewards.py)",
    "rl-openrlhf": "OpenRLHF's reward call (tests/integrations/test_rl_frameworks.py)",
    "rl-verifiers": "verifiers 0.4 (tests/frameworks/verifiers, make framework-verifiers)",
    "rl-slime": "slime 0.3.1 (tests/frameworks/slime, make framework-slime)",
    "rl-skyrl": "skyrl-gym 0.4 (tests/frameworks/skyrl, make framework-skyrl)",
    "rl-areal": "AReaL 1.0 (tests/frameworks/areal, make framework-areal)",
    "daft-recipe": "Daft 0.7 (tests/frameworks/daft, make framework-daft)",
    "spark-recipe": "PySpark 4.3 on a local cluster (tests/frameworks/spark, make framework-spark)",
}
# evaluate-distributed and torch-distributed run alone as one process of one (their
# preludes) and as several in tests/integrations/test_distributed.py.

SCRIPTS = [block for block in python_blocks() if not block.is_doctest]


def run_alone(source: str, cwd: Path) -> subprocess.CompletedProcess:
    """A script in a fresh ``python`` from an empty folder, the repository importable, offline."""
    env = dict(os.environ, PYTHONPATH=str(REPO), REPO=str(REPO))
    for flag in ("HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
        env[flag] = "1"
    return run_script(source, cwd, env)


def undefined_names(source: str) -> set[str]:
    """Names a script reads that neither it nor the builtins define."""
    import builtins
    import symtable

    table = symtable.symtable(source, "block", "exec")
    bound = {symbol.get_name() for symbol in table.get_symbols() if symbol.is_assigned() or symbol.is_imported()}
    bound |= {child.get_name() for child in table.get_children()}
    missing, tables = set(), [table]
    while tables:
        current = tables.pop()
        tables.extend(current.get_children())
        for symbol in current.get_symbols():
            name = symbol.get_name()
            if symbol.is_referenced() and (current is table or symbol.is_global()) and name not in bound:
                if not hasattr(builtins, name) and name != "__file__":
                    missing.add(name)
    return missing


def test_undefined_names_are_found():
    assert undefined_names("import os\nx = os.sep\nprint(x, len(y))\ndef f():\n    return z + x\n") == {"y", "z"}
    assert undefined_names("[w for w in range(3)]\nclass C:\n    a = 1\nC()\n") == set()


def _param(block):
    return pytest.param(block, id=block.where)


@pytest.mark.parametrize("block", [_param(b) for b in SCRIPTS if b.name not in SPECIAL_RUNNERS])
def test_python_block_runs_alone(block, tmp_path):
    done = run_alone(block.source(), tmp_path)
    assert done.returncode == 0, f"{block.where} fails alone:\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("block", [_param(b) for b in SCRIPTS if b.name in SPECIAL_RUNNERS])
def test_python_block_for_a_special_runner_defines_its_names(block):
    assert undefined_names(block.source()) == set(), f"{block.where} uses names neither it nor its prelude defines"


def test_a_block_for_a_framework_environment_says_what_to_install():
    # A reader of the RL page runs these blocks where the framework is installed: the text just
    # before each says what that takes (the suite runs them in tests/frameworks/<name>).
    for name, runner in SPECIAL_RUNNERS.items():
        page, _ = marked_blocks()[name]
        if "make framework-" not in runner or page.name != "rl-rewards.md":
            continue
        text = page.read_text("utf-8")
        before = text[: text.index(f"<!-- test: {name} -->")].rsplit("\n\n", 2)[-2:]
        assert "pip install" in " ".join(before), f"{page.name}: nothing says what the block {name!r} needs installed"


def test_the_scale_guide_gives_its_recipes_first_each_after_what_it_needs_installed():
    # docs/scale.md: a section a tool, opening with its install line, before any figure; the
    # results tables all under Figures, last.
    sections = (REPO / "docs" / "scale.md").read_text("utf-8").split("\n## ")[1:]
    assert [section.split("\n", 1)[0] for section in sections][-1] == "Figures"
    for section in sections[:-1]:
        name, first = section.split("\n", 1)[0], section.split("\n\n")[1]
        assert "<!-- results:" not in section, f"{name}: figures before the recipes end"
        assert first.startswith("Install: `pip install "), f"{name}: the section does not open with what to install"
    assert sum("<!-- test:" in section for section in sections[:-1]) == len(sections) - 1


def test_a_block_that_needs_an_earlier_one_fails_alone(tmp_path):
    done = run_alone("scorer = GLEU()\n", tmp_path)
    assert done.returncode == 1 and "NameError: name 'GLEU' is not defined" in done.stderr


def test_special_runners_name_marked_blocks():
    assert set(SPECIAL_RUNNERS) <= set(marked_blocks())


def test_every_marked_block_is_run_by_a_test():
    # A script that is not a special runner's runs alone above; every other marked block
    # (a doctest-free block read by name) must be named by the test that runs it.
    alone = {block.name for block in SCRIPTS if block.name and block.name not in SPECIAL_RUNNERS}
    sources = "\n".join(path.read_text("utf-8") for path in (REPO / "tests").rglob("*.py"))
    for name in set(marked_blocks()) - alone:
        assert re.search(rf"[\"']{re.escape(name)}[\"']", sources), f"no test runs the block marked {name!r}"


def test_how_to_use_block(tmp_path, monkeypatch, capsys):
    # From a folder that is not the repository root; the offline flags are tests/conftest.py's.
    from tests.helpers.oracles import hf_google_bleu

    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(readme_snippet("how-to-use"), namespace)
    printed = capsys.readouterr().out
    result = namespace["metric"].compute(predictions=namespace["predictions"], references=namespace["references"])
    assert printed == f"{result}\n"
    assert result["google_bleu"] == hf_google_bleu(namespace["predictions"], namespace["references"])
    assert result["precision"] != result["recall"]  # the example shows that they differ


def test_readme_blocks_pasted_in_order_into_one_interpreter_all_work(tmp_path):
    # A reader pastes every python block of the README, in order, into one interpreter, in a
    # folder of their own, offline: each works with what the blocks before it bound.
    readme = REPO / "README.md"
    done = run_alone(f"from tests.helpers.readme_snippets import run_in_order\nrun_in_order({str(readme)!r})\n", tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    blocks = [block.where for block in python_blocks() if block.page == readme]
    assert [line[:-3] for line in done.stdout.splitlines() if line.endswith(" ok")] == blocks and len(blocks) >= 6


def test_run_in_order_fails_on_a_name_an_earlier_block_rebinds(tmp_path, capsys):
    # The README's old shape: a script block binds the package's name to the metric, and the
    # next block's google_bleu.load() finds no such attribute.
    from tests.helpers.readme_snippets import run_in_order

    page = tmp_path / "page.md"
    page.write_text(
        "```python\n>>> import json\n>>> json.dumps(1)\n'1'\n\n```\n\n"
        "```python\njson = {'a': 1}\n```\n\n"
        "```python\n>>> json.dumps(2)\n'2'\n\n```\n",
        "utf-8",
    )
    with pytest.raises(AssertionError, match=r"page\.md:12 fails after the blocks before it:(?s:.*)AttributeError"):
        run_in_order(page)
    assert capsys.readouterr().out == "page.md:1 ok\npage.md:8 ok\n"


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
    session = [
        ("cd google_bleu/samples/wmt17_en_de", ""),
        ("head -2 ref0.txt | google-bleu ref0.txt", ""),
        ("echo $?", ""),
    ]
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


_FIGURE = re.compile(r"^[-+~≈]?\d[\d,]*(\.\d+)?\s*(s|ms|µs|us|x|%|KiB|MiB|GiB|MB|GB)?$")


def hand_typed_tables(text: str) -> list[str]:
    """Rows of markdown tables holding a figure outside the regions ``report.py`` writes."""
    text = report._REGION.sub("", text)
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # code output is checked where it runs
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not re.fullmatch(r"\|[\s:|-]+\|", line):
            # A pipe escaped inside a cell (`--scale 100\|1`) does not end the cell.
            cells = [cell.strip().strip("`*") for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if any(_FIGURE.match(cell) for cell in cells):
                rows.append(line)
    return rows


def test_hand_typed_table_is_found():
    generated = report.render_run("pairwise", report.load_results()["pairwise"])
    page = f"# P\n\n<!-- results: pairwise -->\n{generated}\n<!-- /results -->\n\n| to | read |\n|---|---|\n| a | b |\n"
    assert hand_typed_tables(page) == []
    typed = page + "\n| rows | time |\n|---:|---:|\n| 256 | 5.5 ms |\n"
    assert hand_typed_tables(typed) == ["| 256 | 5.5 ms |"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_table_of_figures_is_generated_by_report(page):
    assert hand_typed_tables(page.read_text("utf-8")) == [], f"{page.name}: a table of figures typed by hand"


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
    page.write_text(
        "# P\n\n<!-- results: all -->\n<!-- /results -->\n\n<!-- results: pairwise -->\nold\n<!-- /results -->\n"
    )
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
    assert len(text.splitlines()) <= 295
    headings = re.findall(r"^## (.+)$", text, re.M)
    template = ["Metric Description", "How to Use", "Limitations and Bias", "Citation", "Further References"]
    assert [h for h in headings if h in template] == template
    assert {"Inputs", "Output Values", "Examples"} <= set(re.findall(r"^### (.+)$", text, re.M))
    # What GLEU is, how to call it and what comes back, before the first section.
    first_screen = text.split("---\n", 2)[2].split("\n## ")[0]
    assert "minimum of n-gram precision" in first_screen and ".compute(" in first_screen
    assert "{'google_bleu': " in first_screen


# -- install ------------------------------------------------------------------------
def pyproject_extras() -> set[str]:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    return set(tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"])


def test_readme_extras_table_names_every_extra_and_only_those():
    text = (REPO / "README.md").read_text("utf-8")
    install = text.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in install.splitlines() if line.startswith("| `")]
    named = {name for row in rows for name in re.findall(r"`([\w-]+)`", row.split("|")[1])}
    assert named == pyproject_extras()
    assert "OWNER" not in install


def test_the_readme_install_line_installs_the_clone_whatever_its_origin(tmp_path):
    # The README's line, run in a clone of a local path (where a `git+$(git remote get-url
    # origin)` address is refused), asks pip for this package from the clone, with the extra.
    install = (REPO / "README.md").read_text("utf-8").split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    (line,) = set(re.findall(r"`(pip install \"\$\(pwd\)\[evaluate\]\")`", install))
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True, capture_output=True)
    # A dry run from the clone's files only: no index, no download, this environment's setuptools.
    dry = " --dry-run --no-deps --no-index --no-build-isolation --quiet --report -"
    pip = line.replace("pip install", f"{shlex.quote(sys.executable)} -m pip install", 1) + dry
    out = subprocess.run(["bash", "-c", pip], cwd=clone, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    (wanted,) = json.loads(out.stdout)["install"]
    assert wanted["metadata"]["name"] == "google-bleu" and wanted["requested_extras"] == ["evaluate"]
    assert wanted["download_info"]["url"] == clone.as_uri()


# -- what a reader meets --------------------------------------------------------------------
def test_user_pages_show_no_test_plumbing():
    # The values that run a fragment alone live in tests/helpers/readme_snippets.py, not in
    # the pages (not even as HTML comments), and no page points the reader at them.
    from tests.helpers.readme_snippets import PRELUDES

    for page in PAGES:
        text = page.read_text("utf-8")
        assert "<!-- prelude" not in text and "page source" not in text, page.name
    assert set(PRELUDES) <= set(marked_blocks())  # every prelude still has its block


def test_the_pages_give_the_bundled_samples_size():
    from tests.helpers.oracles import SAMPLES, read_lines

    lines = len(read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt"))
    claims = []
    for page in PAGES:
        text = page.read_text("utf-8")
        claims += re.findall(r"wmt17_en_de`?, (\d+) segments", text)
        claims += re.findall(r"WMT17 sample \((\d+) segments", text)
    assert claims and {int(n) for n in claims} == {lines} == {300}


def test_the_readme_says_what_evaluate_load_does_elsewhere(tmp_path):
    # Offline, from a folder that is not the repository root, evaluate.load("google_bleu")
    # fails with the message the README quotes; google_bleu.load() works there.
    readme = (REPO / "README.md").read_text("utf-8")
    quoted = re.search(r'fails offline \("(Couldn\'t find a module script at)\s+\.\.\./google_bleu/google_bleu\.py"\)', readme)
    assert quoted and "google_bleu.load()` loads this metric from anywhere" in readme
    code = (
        "import evaluate, google_bleu\n"
        "try:\n    evaluate.load('google_bleu')\nexcept FileNotFoundError as error:\n    print(error)\n"
        "print(google_bleu.load().compute(predictions=['a b'], references=[['a b']])['google_bleu'])\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO), HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    message, score = out.stdout.strip().splitlines()[-2:]
    assert message.startswith(f"{quoted[1]} {tmp_path}/google_bleu/google_bleu.py") and score == "1.0"


_HINT = re.compile(r"pip install '(google-bleu|\.)\[([\w,-]+)\]'")


def install_hints() -> list[tuple[str, str]]:
    """``(where, text)`` of every message the package prints that names an extra."""
    from google_bleu.tokenizers import EXTRAS

    hints = [(f"tokenizers.EXTRAS[{name!r}]", text) for name, text in EXTRAS.items()]
    for path in sorted((REPO / "google_bleu").rglob("*.py")):
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if _HINT.search(line) and "EXTRAS" not in str(path):
                hints.append((f"{path.relative_to(REPO)}:{number}", line))
    return hints


def test_every_install_hint_names_an_extra_that_exists():
    extras = pyproject_extras()
    hints = [(where, text) for where, text in install_hints() if _HINT.search(text)]
    assert len(hints) >= 3
    for where, text in hints:
        for _, names in _HINT.findall(text):
            assert set(names.split(",")) <= extras, f"{where}: {text}"


def test_install_hints_work_from_a_clone_and_from_an_index(tmp_path):
    # Until the package is on an index, `pip install 'google-bleu[ja]'` fails: every hint
    # also names the command that works from a clone.
    from google_bleu.tokenizers import EXTRAS

    for name, text in EXTRAS.items():
        for extra in re.findall(r"google-bleu\[([\w-]+)\]", text):
            assert f"from a clone: pip install '.[{extra}]'" in text, f"tokenizers.EXTRAS[{name!r}]: {text}"
    # A folder whose evaluate.py hides the real one, as where evaluate is not installed.
    (tmp_path / "evaluate.py").write_text("raise ModuleNotFoundError(\"No module named 'evaluate'\", name='evaluate')\n")
    code = "import google_bleu\ntry:\n    google_bleu.load()\nexcept ImportError as error:\n    print(error)\n"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={"PYTHONPATH": f"{tmp_path}:{REPO}", "PATH": "/usr/bin:/bin"},
    ).stdout
    assert "pip install 'google-bleu[evaluate]' (from a clone: pip install '.[evaluate]')" in out


# -- the site -------------------------------------------------------------------------
@pytest.mark.skipif(
    any(importlib.util.find_spec(name) is None for name in ("mkdocs", "material", "mkdocstrings_handlers")),
    reason="mkdocs, mkdocs-material and mkdocstrings[python] are not installed (pip install '.[docs]')",
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
    # The API reference, from the docstrings: the top level, ids, scale and the integrations.
    api = (site / "api" / "index.html").read_text("utf-8")
    for name in (
        "google_bleu.GLEU.corpus_score",
        "google_bleu.GleuStats",
        "google_bleu.explain",
        "google_bleu.load",
        "google_bleu.ids.BatchScorer",
        "google_bleu.scale.parallel.file_stats",
        "google_bleu.integrations.columns.GleuColumns",
    ):
        assert f'id="{name}"' in api, name
    assert "&gt;&gt;&gt;" in api.split('id="google_bleu.GLEU.paired_scores"')[1].split('id="google_bleu.GleuScore"')[0]
    # Wide tables and code scroll inside their box (docs/extra.css, on every page).
    assert "overflow-x: auto" in (site / "extra.css").read_text("utf-8")
    assert 'href="../extra.css"' in (site / "performance" / "index.html").read_text("utf-8")
    for page in (REPO / "docs").glob("*.md"):
        target = site / ("" if page.stem == "index" else page.stem) / "index.html"
        assert target.exists(), f"{page.name} was not built"
