"""Fixtures of the slime environment (.venvs/slime): a checkout of slime v0.3.1, the bundled
WMT17 sample and a small chat tokenizer trained here on it (nothing comes from the hub).

slime is not on PyPI (the ``slime`` name there is an unrelated project) and this environment
reaches only PyPI, so the tests import a checkout of slime v0.3.1 (its git tag) named by the
environment variable ``SLIME_SOURCE`` (the folder holding ``slime/`` and ``setup.py``):
``make framework-slime`` names ``../shared/frameworks/slime-0.3.1`` beside the clone unless told
otherwise, and builds nothing without a checkout; without one every test skips, saying so.
``python -m pytest`` runs from the repository root, so ``tests.helpers`` (standard library
only) is importable here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

for _flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_flag] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from tests.helpers.frameworks import byte_level_bpe, sample_corpus, source_checkout  # noqa: E402
from tests.helpers.wmt17 import wmt17_sample  # noqa: E402

VERSION = "0.3.1"
CHECKOUT, WHY_NOT = source_checkout("slime", VERSION, "SLIME_SOURCE", "slime/rollout/rm_hub/__init__.py")
if CHECKOUT is not None:
    sys.path.insert(0, str(CHECKOUT))


def pytest_collection_modifyitems(config, items):
    if CHECKOUT is None:
        for item in items:
            item.add_marker(pytest.mark.skip(reason=WHY_NOT))


@pytest.fixture(scope="session")
def wmt17() -> dict:
    """The human reference and the four systems of the bundled sample, segment-aligned."""
    return wmt17_sample()


@pytest.fixture(scope="session")
def tokenizer_dir(wmt17, tmp_path_factory) -> Path:
    """A model folder holding only tokenizer files (a byte-level BPE, lossless on any text, its
    stop token ``<|im_end|>`` with id 1), as ``--hf-checkpoint`` names one."""
    special = ["<|endoftext|>", "<|im_end|>"]
    tokenizer = byte_level_bpe(sample_corpus(wmt17), special, eos="<|im_end|>", pad="<|endoftext|>")
    directory = tmp_path_factory.mktemp("tokenizer")
    tokenizer.save_pretrained(directory)
    return directory
