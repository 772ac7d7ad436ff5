"""Fixtures of the AReaL environment (.venvs/areal): the bundled WMT17 sample and a small chat
tokenizer trained here on it (nothing comes from the hub).

``python -m pytest`` runs from the repository root, so ``tests.helpers`` (standard library
only) is importable here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

for _flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_flag] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from tests.helpers.frameworks import byte_level_bpe, sample_corpus  # noqa: E402
from tests.helpers.wmt17 import wmt17_sample  # noqa: E402

#: ChatML, as Qwen's chat models write it: AReaL decodes completions with their stop token.
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="session")
def wmt17() -> dict:
    """The human reference and the four systems of the bundled sample, segment-aligned."""
    return wmt17_sample()


@pytest.fixture(scope="session")
def tokenizer_dir(wmt17, tmp_path_factory) -> Path:
    """A model folder holding only tokenizer files (a byte-level BPE, lossless on any text, with
    ChatML's special tokens and template), as AReaL's ``load_hf_tokenizer`` reads one."""
    special = ["<|endoftext|>", "<|im_end|>", "<|im_start|>"]
    tokenizer = byte_level_bpe(
        sample_corpus(wmt17), special, eos="<|im_end|>", pad="<|endoftext|>", extra=["<|im_start|>"], chat_template=CHATML
    )
    directory = tmp_path_factory.mktemp("tokenizer")
    tokenizer.save_pretrained(directory)
    return directory
