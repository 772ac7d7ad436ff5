"""The Makefile's switches that decide what `make test` installs and runs: the browser test's
opt-out (``BROWSER=0``) and the framework environments of slime and ROLL, which need a source
checkout (by default ``../shared/frameworks``) and are not built without one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.oracles import REPO

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make(*arguments: str, **environment: str) -> subprocess.CompletedProcess:
    dropped = ("CI", "MAKEFLAGS", "MAKELEVEL", "SLIME_SOURCE", "ROLL_SOURCE", "BROWSER")
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    return subprocess.run(
        ["make", "--no-print-directory", *arguments],
        cwd=REPO,
        env={**env, **environment},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_browser_0_skips_the_browser_test_saying_why():
    env = dict(os.environ, GOOGLE_BLEU_BROWSER="0", CI="true")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests/surfaces/test_browser.py"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-2000:]
    assert "the browser test is off (make test BROWSER=0 installs no chromium)" in out.stdout
    assert " passed" not in out.stdout and " failed" not in out.stdout


@needs_make
def test_browser_0_installs_nothing():
    out = make("-n", "browser", "BROWSER=0")
    assert out.returncode == 0 and "apt-get" in out.stdout  # the recipe, shown and not run
    done = make("browser", "BROWSER=0")
    assert done.returncode == 0
    assert done.stdout.strip() == "BROWSER=0: chromium is not installed and the browser test is skipped"


@needs_make
@pytest.mark.parametrize(("name", "variable"), [("slime", "SLIME_SOURCE"), ("roll", "ROLL_SOURCE")])
def test_without_a_checkout_the_environment_is_not_built(name, variable, tmp_path):
    missing = tmp_path / "nothing"
    out = make(f"framework-{name}", f"{variable}={missing}")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        f"framework-{name}: skipped (its environment is not built): "
        f"{name} is not on PyPI and {variable}={missing} is no checkout of it"
    )
    under_ci = make(f"framework-{name}", f"{variable}={missing}", CI="true")
    assert under_ci.returncode != 0
    assert f"framework-{name}: CI must run these tests, but {name} is not on PyPI" in under_ci.stderr


SHARED_FRAMEWORKS = REPO.parent / "shared" / "frameworks"


@needs_make
@pytest.mark.skipif(not SHARED_FRAMEWORKS.is_dir(), reason=f"no source trees at {SHARED_FRAMEWORKS}")
def test_the_checkouts_default_to_the_shared_source_trees():
    out = make("-n", "framework-slime", "framework-roll")  # the commands, shown and not run
    assert out.returncode == 0, out.stderr
    for name in ("slime", "roll"):
        assert f"GOOGLE_BLEU_FRAMEWORK={name} .venvs/{name}/bin/python -m pytest" in out.stdout
        assert "skipped" not in out.stdout


@needs_make
def test_a_framework_environment_is_built_afresh_only_when_its_requirements_change(tmp_path):
    # The Makefile in a tree of its own: one framework whose environment is built and up to date.
    (tmp_path / "Makefile").write_text((REPO / "Makefile").read_text("utf-8"), "utf-8")
    folder = tmp_path / "tests" / "frameworks" / "toy"
    folder.mkdir(parents=True)
    stamps = tmp_path / ".venvs" / "toy"
    stamps.mkdir(parents=True)
    (tmp_path / ".venv").mkdir()
    files = [tmp_path / "pyproject.toml", tmp_path / ".venv" / ".test-installed", folder / "requirements.txt"]
    files += [stamps / ".requirements", stamps / ".installed"]
    for age, path in enumerate(files):
        path.touch()
        os.utime(path, (1_000_000 + age, 1_000_000 + age))

    def planned(newer: Path) -> str:
        now = max(path.stat().st_mtime for path in files) + 10
        os.utime(newer, (now, now))
        out = subprocess.run(["make", "-n", "framework-toy"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout

    assert "pip install" not in planned(stamps / ".installed")
    after_pyproject = planned(tmp_path / "pyproject.toml")
    assert "pip install --quiet --python .venvs/toy/bin/python" in after_pyproject and " -e ." in after_pyproject
    assert "rm -rf .venvs/toy" not in after_pyproject
    after_requirements = planned(folder / "requirements.txt")
    assert "rm -rf .venvs/toy" in after_requirements and "-r tests/frameworks/toy/requirements.txt" in after_requirements
