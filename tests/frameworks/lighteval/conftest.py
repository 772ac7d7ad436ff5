"""Fixtures of the LightEval environment (.venvs/lighteval): the bundled WMT17 sample, the
shipped task file (examples/lighteval/google_bleu_task.py) and the custom model beside this file
(wmt17_model.py), which answers each prompt with a real WMT17 system's output for its segment.

Everything runs offline: the Hugging Face caches, LightEval's model cache and ``~`` live in a
temporary folder, the hub and datasets are told they are offline, and the two things LightEval
would fetch from the network when its task registry imports its task modules are kept from it
(below). Every Pipeline loads that registry, so every test here would otherwise touch the network.
"""

from __future__ import annotations

import atexit
import os
import shlex
import shutil
import sys
import tempfile
import types
from pathlib import Path

import pytest

_HOME = tempfile.mkdtemp(prefix="google-bleu-lighteval-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
os.environ.update(
    HOME=_HOME,  # LightEval's model cache (~/.cache/huggingface/lighteval) and nltk's data folder
    HF_HOME=str(Path(_HOME) / "hf"),  # datasets caches the task's data here
    HF_HUB_OFFLINE="1",
    HF_DATASETS_OFFLINE="1",
    TRANSFORMERS_OFFLINE="1",
    TOKENIZERS_PARALLELISM="false",
    LIGHTEVAL_DISABLE_TQDM="1",
)

# lighteval/tasks/tasks/tiny_benchmarks.py builds its metrics at import, and each one downloads
# tinyBenchmarks.pkl from raw.githubusercontent.com (requests.get, next to the installed module);
# offline the import raises ConnectionError and the registry fails. Its tasks (tiny:*) are not
# used here, so the module is replaced by one with no tasks.
_tiny = types.ModuleType("lighteval.tasks.tasks.tiny_benchmarks")
_tiny.TASKS_TABLE = []
sys.modules[_tiny.__name__] = _tiny

# lighteval/tasks/tasks/ifeval/instructions_utils.py calls nltk.download("punkt") and
# ("punkt_tab") at import when nltk has no such data; offline nltk prints the failure and returns
# False, and the import goes on. Here the download is refused the same way without trying.
import nltk  # noqa: E402


def _no_download(*args, **kwargs) -> bool:
    return False


nltk.download = _no_download

from tests.helpers.wmt17 import wmt17_sample  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
TASK_FILE = REPO / "examples" / "lighteval" / "google_bleu_task.py"
MODEL_FILE = HERE / "wmt17_model.py"
GUIDE = REPO / "docs" / "metrics-harnesses.md"
TASK = "wmt17_en_de_gleu|0"


@pytest.fixture(scope="session")
def wmt17() -> dict:
    """The human reference and the four systems of the bundled sample, segment-aligned."""
    return wmt17_sample()


def guide_block(name: str) -> str:
    """The block of the guides marked ``<!-- test: name -->``, its prelude first, as
    tests/tooling/test_docs.py reads it (``python -m pytest`` runs from the repository root)."""
    from tests.helpers.readme_snippets import python_blocks

    (block,) = [block for block in python_blocks() if block.name == name]
    return block.source()


def guide_command(program: str) -> list[str]:
    """The arguments of the guide's one command line that starts with ``program``."""
    lines = [line for line in GUIDE.read_text("utf-8").split("\n") if line.startswith(f"{program} ")]
    assert len(lines) == 1, f"docs/metrics-harnesses.md has {len(lines)} lines starting with {program!r}"
    return shlex.split(lines[0])[1:]
