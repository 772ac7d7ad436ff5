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
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    special = ["<|endoftext|>", "<|im_end|>", "<|im_start|>"]
    trainer = trainers.BpeTrainer(
        vocab_size=2000, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    corpus = wmt17["reference"] + sum(wmt17["systems"].values(), [])
    backend.train_from_iterator(corpus, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, eos_token="<|im_end|>", pad_token="<|endoftext|>", additional_special_tokens=["<|im_start|>"]
    )
    tokenizer.chat_template = CHATML
    directory = tmp_path_factory.mktemp("tokenizer")
    tokenizer.save_pretrained(directory)
    return directory
