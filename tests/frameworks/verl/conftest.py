"""Fixtures of the veRL environment (.venvs/verl): the bundled WMT17 sample, a small tokenizer
trained here on it (nothing comes from the hub), veRL's own config composed from its packaged
``ppo_trainer.yaml``, and rollout batches as veRL's reward loop receives them.

The verl wheel installs its own top-level ``tests`` package into site-packages, so nothing here
imports ``tests.``: pytest loads this file as ``conftest`` from this folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

for _flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_flag] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import google_bleu  # noqa: E402

PACKAGE = Path(google_bleu.__file__).resolve().parent
SAMPLE = PACKAGE / "samples" / "wmt17_en_de"
REWARD_FILE = PACKAGE / "verl_reward.py"


def read_lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines()


@pytest.fixture(scope="session")
def wmt17() -> list[tuple[str, object]]:
    """(system output, ground truth) of every segment of the 4 systems of the bundled sample.

    The ground truth is the human reference; every third segment also has the next system's
    output as a second reference, as a numpy array of str (a list column read back from parquet).
    """
    import numpy as np

    reference = read_lines(SAMPLE / "ref0.txt")
    systems = [read_lines(path) for path in sorted(SAMPLE.glob("sys_*.txt"))]
    assert len(systems) == 4 and all(len(lines) == len(reference) == 300 for lines in systems)
    samples = []
    for s, system in enumerate(systems):
        for i, line in enumerate(system):
            truth = reference[i] if i % 3 else np.array([reference[i], systems[(s + 1) % 4][i]], dtype=object)
            samples.append((line, truth))
    return samples


def references(truth) -> list[str]:
    return [truth] if isinstance(truth, str) else [str(ref) for ref in truth]


@pytest.fixture(scope="session")
def tokenizer_dir(wmt17, tmp_path_factory) -> Path:
    """A model folder holding only tokenizer files, as ``actor_rollout_ref.model.path`` names one:
    a byte-level BPE (lossless on any text) trained on the sample."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=2000, special_tokens=["<pad>", "<eos>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    backend.train_from_iterator([line for line, _ in wmt17] + read_lines(SAMPLE / "ref0.txt"), trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="<eos>")
    directory = tmp_path_factory.mktemp("tokenizer")
    tokenizer.save_pretrained(directory)
    return directory


def verl_config_dir() -> str:
    import verl

    return os.path.join(os.path.dirname(verl.__file__), "trainer", "config")


def compose(overrides: list[str], config_name: str = "ppo_trainer", config_dir: str | None = None):
    """The config as ``python -m verl.trainer.main_ppo <overrides>`` composes it (Hydra, struct mode)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    with initialize_config_dir(config_dir=config_dir or verl_config_dir(), version_base=None):
        return hydra_compose(config_name=config_name, overrides=overrides)


def reward_overrides(path, name: str, tokenizer_dir: Path, *extra: str) -> list[str]:
    return [
        f"reward.custom_reward_function.path={path}",
        f"reward.custom_reward_function.name={name}",
        f"actor_rollout_ref.model.path={tokenizer_dir}",
        *extra,
    ]


def rollout_batch(samples, tokenizer):
    """A rollout batch as veRL's reward loop receives it: prompts | responses (eos, then padding),
    one attention mask, and the dataset's columns as numpy object arrays."""
    import numpy as np
    import torch
    from verl import DataProto

    ids = [tokenizer(line, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id] for line, _ in samples]
    n, prompt_len, response_len = len(samples), 4, max(map(len, ids))
    prompts = torch.full((n, prompt_len), tokenizer.pad_token_id)
    responses = torch.full((n, response_len), tokenizer.pad_token_id)
    mask = torch.zeros((n, prompt_len + response_len), dtype=torch.long)
    mask[:, :prompt_len] = 1
    for i, row in enumerate(ids):
        responses[i, : len(row)] = torch.tensor(row)
        mask[i, prompt_len : prompt_len + len(row)] = 1
    return DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": mask},
        non_tensors={
            "data_source": np.array(["wmt17"] * n, dtype=object),
            "reward_model": np.array([{"ground_truth": truth, "style": "rule"} for _, truth in samples], dtype=object),
            "extra_info": np.array([{"index": i} for i in range(n)], dtype=object),
        },
    )
