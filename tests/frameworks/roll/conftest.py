"""Fixtures of the ROLL environment (.venvs/roll): a checkout of ROLL v0.3.0, the bundled WMT17
sample, a small tokenizer trained here on it (nothing comes from the hub) and a local Ray cluster.

ROLL is not on PyPI (the ``roll`` name there is an unrelated project) and this environment
reaches only PyPI, so the tests import a checkout of ROLL v0.3.0 (its git tag) named by the
environment variable ``ROLL_SOURCE`` (the folder holding ``roll/`` and ``setup.py``):
``make framework-roll`` names ``../shared/frameworks/roll-0.3.0`` beside the clone unless told
otherwise, and builds nothing without a checkout; without one every test skips, saying so.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

for _flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_flag] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# ROLL's logger writes files under ./output/logs (the repository root here) unless told otherwise.
os.environ.setdefault("ROLL_LOG_DIR", tempfile.mkdtemp(prefix="google-bleu-roll-logs-"))

from tests.helpers.frameworks import byte_level_bpe, sample_corpus, source_checkout  # noqa: E402
from tests.helpers.wmt17 import wmt17_sample  # noqa: E402

VERSION = "0.3.0"
CHECKOUT, WHY_NOT = source_checkout("ROLL", VERSION, "ROLL_SOURCE", "roll/distributed/executor/worker.py")
if CHECKOUT is not None:
    sys.path.insert(0, str(CHECKOUT))


def pytest_collection_modifyitems(config, items):
    if CHECKOUT is None:
        for item in items:
            item.add_marker(pytest.mark.skip(reason=WHY_NOT))


@pytest.fixture(scope="session")
def wmt17() -> dict:
    return wmt17_sample()


@pytest.fixture(scope="session")
def tokenizer_dir(wmt17, tmp_path_factory) -> Path:
    """A model folder holding only tokenizer files (a byte-level BPE with a pad and a stop token),
    as ``model_args.model_name_or_path`` names one."""
    special = ["<|endoftext|>", "<|im_end|>"]
    tokenizer = byte_level_bpe(sample_corpus(wmt17), special, eos="<|im_end|>", pad="<|endoftext|>")
    directory = tmp_path_factory.mktemp("tokenizer")
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def cluster():
    """A local Ray cluster (loopback only) with ROLL's SharedStorage actor, which every Worker
    looks up by name; held here for the session, as ROLL's pipeline holds it for a run."""
    import ray
    from roll.distributed.scheduler.storage import SharedStorage
    from roll.utils.constants import RAY_NAMESPACE, STORAGE_NAME

    from tests.helpers import local_ray

    local_ray.start(num_cpus=2)
    try:
        storage = SharedStorage.options(name=STORAGE_NAME, get_if_exists=True, namespace=RAY_NAMESPACE).remote()
        yield storage
    finally:
        ray.shutdown()
