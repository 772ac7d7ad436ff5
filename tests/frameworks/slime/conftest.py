"""Fixtures of the slime environment (.venvs/slime): a checkout of slime v0.3.1, the bundled
WMT17 sample and a small chat tokenizer trained here on it (nothing comes from the hub).

slime is not on PyPI (the ``slime`` name there is an unrelated project) and this environment
reaches only PyPI, so the tests need a checkout of slime v0.3.1 (its git tag) named by the
environment variable ``SLIME_SOURCE`` (the folder holding ``slime/`` and ``setup.py``); without
one every test skips, saying so. ``python -m pytest`` runs from the repository root, so
``tests.helpers`` (standard library only) is importable here.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

for _flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_flag] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from tests.helpers.wmt17 import wmt17_sample  # noqa: E402

VERSION = "0.3.1"
SOURCE = os.environ.get("SLIME_SOURCE", "")


def _slime_checkout() -> tuple[Path | None, str]:
    """The checkout's folder, or None and why not."""
    if not SOURCE:
        return None, (
            "slime is not on PyPI (the `slime` name there is an unrelated project) and this environment reaches "
            f"only PyPI: set SLIME_SOURCE to a checkout of slime v{VERSION} to run these tests"
        )
    folder = Path(SOURCE).resolve()
    setup = folder / "setup.py"
    found = re.search(r'version="([^"]+)"', setup.read_text("utf-8")) if setup.is_file() else None
    if not (folder / "slime" / "rollout" / "rm_hub" / "__init__.py").is_file() or found is None:
        return None, f"SLIME_SOURCE={SOURCE} is not a checkout of slime (no slime/rollout/rm_hub, no setup.py version)"
    if found[1] != VERSION:
        return None, f"SLIME_SOURCE={SOURCE} holds slime {found[1]}; these tests are for slime {VERSION}"
    return folder, ""


CHECKOUT, WHY_NOT = _slime_checkout()
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
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=2000, special_tokens=["<|endoftext|>", "<|im_end|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    backend.train_from_iterator(wmt17["reference"] + sum(wmt17["systems"].values(), []), trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    directory = tmp_path_factory.mktemp("tokenizer")
    tokenizer.save_pretrained(directory)
    return directory
