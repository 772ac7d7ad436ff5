"""Fixtures of the OpenRLHF environment (.venvs/openrlhf): the bundled WMT17 sample and two
small tokenizers trained here on it (nothing comes from the hub).

The openrlhf wheel installs its own top-level ``tests`` package into site-packages, so nothing
here imports ``tests.``: pytest loads this file as ``conftest`` from this folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

for _flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_flag] = "1"

import google_bleu  # noqa: E402

SAMPLE = Path(google_bleu.__file__).resolve().parent / "samples" / "wmt17_en_de"

#: Chat templates of two model families: ChatML (Qwen), whose special tokens the shipped
#: reward file strips, and Phi-3's, whose ``<|end|>`` it does not know.
CHAT_FORMATS = {
    "chatml": {
        "eos": "<|im_end|>",
        "pad": "<|endoftext|>",
        "extra": ["<|im_start|>"],
        "template": (
            "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
            "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
        ),
    },
    "phi3": {
        "eos": "<|end|>",
        "pad": "<|endoftext|>",
        "extra": ["<|user|>", "<|assistant|>"],
        "template": (
            "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
        ),
    },
}


def read_lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines()


@pytest.fixture(scope="session")
def wmt17() -> dict:
    """The human reference and the four systems of the bundled sample, segment-aligned."""
    systems = {path.stem[len("sys_") :]: read_lines(path) for path in sorted(SAMPLE.glob("sys_*.txt"))}
    reference = read_lines(SAMPLE / "ref0.txt")
    assert len(systems) == 4 and all(len(lines) == len(reference) == 300 for lines in systems.values())
    return {"reference": reference, "systems": systems}


def _train_tokenizer(directory: Path, chat: dict, corpus: list[str]) -> None:
    """A byte-level BPE (lossless on any text) with the chat format's special tokens and
    template, saved as a model folder would hold it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    special = [chat["pad"], chat["eos"], *chat["extra"]]
    trainer = trainers.BpeTrainer(
        vocab_size=2000, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    backend.train_from_iterator(corpus, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        eos_token=chat["eos"],
        pad_token=chat["pad"],
        additional_special_tokens=chat["extra"],
    )
    tokenizer.chat_template = chat["template"]
    tokenizer.save_pretrained(directory)


@pytest.fixture(scope="session")
def tokenizer_dirs(wmt17, tmp_path_factory) -> dict[str, Path]:
    """A model folder (tokenizer files only) per chat format, as OpenRLHF's get_tokenizer reads it."""
    corpus = wmt17["reference"] + sum(wmt17["systems"].values(), [])
    dirs = {}
    for name, chat in CHAT_FORMATS.items():
        dirs[name] = tmp_path_factory.mktemp(f"tokenizer-{name}")
        _train_tokenizer(dirs[name], chat, corpus)
    return dirs
