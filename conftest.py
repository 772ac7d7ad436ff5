"""Doctest collection imports every module of the package. An adapter module that imports its
framework at the top is left out where that framework cannot be imported: NeMo-RL and ROLL are
not on PyPI, and LightEval and skyrl-gym run in their own environments (tests/frameworks/).

`make check` runs in .venv-check: the base install and the test tools only (the `check` extra,
no evaluate, torch, gradio, ray, trl, ...). There a file that imports one of those at its top,
a test module or a module of the package with doctests, is skipped, saying what installs it.
So is a single test or doctest that fails on importing one of those (the package's own
message, "... needs torch: pip install ...", or Python's ModuleNotFoundError). `make test`
installs everything (the `test` extra); under CI=true a missing one is a failure, never a skip.
"""

import doctest
import importlib.util
import os
import re
from pathlib import Path

import pytest

_ADAPTERS = {
    "google_bleu/integrations/nemo_rl.py": "nemo_rl",
    "google_bleu/integrations/lighteval.py": "lighteval",
    "google_bleu/integrations/skyrl.py": "skyrl_gym",
    "google_bleu/integrations/roll.py": "roll",
}

collect_ignore = [path for path, module in _ADAPTERS.items() if importlib.util.find_spec(module) is None]

# What each file imports at its top beyond make check's environment: (module, the extra that installs it).
NEEDS = {
    "google_bleu/google_bleu.py": [("evaluate", "evaluate")],
    "google_bleu/integrations/torchmetrics.py": [("torch", "torchmetrics")],
    "space/page.py": [("gradio", "app")],
    "space/render.py": [("pandas", "app")],
    "docs/hooks/griffe_examples.py": [("griffe", "docs")],
    "tests/helpers/bad_inputs.py": [("torch", "torch"), ("pandas", "app")],
    "tests/ids/test_pairwise.py": [("torch", "torch")],
    "tests/integrations/test_adapter_values.py": [("torch", "torchmetrics"), ("datasets", "evaluate")],
    "tests/integrations/test_torchmetrics.py": [("torch", "torchmetrics")],
    "tests/surfaces/test_app.py": [("gradio", "app"), ("evaluate", "evaluate")],
    "tests/surfaces/test_app_load.py": [("gradio", "app")],
    "tests/surfaces/test_bad_input.py": [("torch", "torch"), ("pandas", "app")],
    "tests/surfaces/test_metric.py": [("evaluate", "evaluate")],
}
_ROOT = Path(__file__).parent


def unavailable(path: Path):
    """Why ``path`` cannot be collected here (the first of its needs not installed), or None."""
    if os.environ.get("CI", "").lower() == "true" or not path.is_relative_to(_ROOT):
        return None
    for module, extra in NEEDS.get(path.relative_to(_ROOT).as_posix(), []):
        if importlib.util.find_spec(module) is None:
            return f"{path.relative_to(_ROOT).as_posix()} needs {module}, which make check leaves out: pip install -e '.[{extra}]' (make test runs it)"
    return None


class _Unavailable(pytest.File):
    reason = ""

    def collect(self):
        pytest.skip(self.reason)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    collectors = yield
    reason = unavailable(file_path)
    if reason is None or not collectors:
        return collectors
    node = _Unavailable.from_parent(parent, path=file_path)
    node.reason = reason
    return [node]


_NEEDS_MESSAGE = re.compile(r" needs (?P<package>[\w.]+): pip install ")


def _missing_package(error: BaseException):
    """The optional package, not installed here, whose import raised ``error`` (or a cause of it)."""
    while error is not None:
        if isinstance(error, doctest.UnexpectedException):
            error = error.exc_info[1]
            continue
        if isinstance(error, ImportError):
            name = error.name if isinstance(error, ModuleNotFoundError) else None
            match = _NEEDS_MESSAGE.search(str(error))
            package = (name or (match and match["package"]) or "").split(".")[0]
            if package and importlib.util.find_spec(package) is None:
                return package
        error = error.__cause__ or error.__context__
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed and call.excinfo is not None and os.environ.get("CI", "").lower() != "true":
        package = _missing_package(call.excinfo.value)
        if package:
            where = item.path.relative_to(_ROOT).as_posix() if item.path.is_relative_to(_ROOT) else item.path.name
            reason = f"{item.name} needs {package}, which make check leaves out (make test runs it)"
            report.outcome = "skipped"
            report.longrepr = (where, item.location[1] or 0, f"Skipped: {reason}")
    return report
