"""One GRPO step on CPU with TRL's GRPOTrainer and the GLEU rewards, offline, in seconds.

    pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
    pip install trl==1.16.0 "$(pwd)"          # in the clone
    python examples/grpo/train_gleu_grpo.py

The shape of BLEUBERI (GRPO with BLEU as the reward): 4 completions a prompt, 4 references a
prompt. The task is post-editing: each prompt is a rule-based system's German translation of a
WMT17 segment (google_bleu/samples/wmt17_en_de), its references the human one and three other
systems'. The model is a 1-layer Qwen2 built from a config and a word-level tokenizer trained
on these segments: nothing is downloaded. The three rewards, text, async and token ids
(docs/rl-rewards.md), score every completion in the one step; a real run picks one.
"""

from __future__ import annotations

import os

# Nothing to download: HF libraries stay offline (set before they are imported).
for _flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_flag, "1")

import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import torch  # noqa: E402
from datasets import Dataset  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402
from transformers import (  # noqa: E402
    PreTrainedTokenizerFast,
    PrinterCallback,
    ProgressCallback,
    Qwen2Config,
    Qwen2ForCausalLM,
)
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

import google_bleu  # noqa: E402
from google_bleu.integrations.trl import AsyncGleuReward, GleuIdReward, GleuReward  # noqa: E402

SAMPLE = Path(google_bleu.__file__).parent / "samples" / "wmt17_en_de"
SYSTEM = "sys_PROMT-Rule-based.4735.txt"  # the translation to improve: the prompt
REFERENCES = ["ref0.txt", "sys_online-A.0.txt", "sys_online-B.0.txt", "sys_uedin-nmt.4722.txt"]
SEGMENTS = [13, 16]  # line numbers (1-based) of two short segments
NUM_GENERATIONS = 4  # completions a prompt


def segments() -> tuple[list[str], list[list[str]]]:
    """The prompts and, for each, its references."""
    lines = {name: (SAMPLE / name).read_text("utf-8").splitlines() for name in [SYSTEM, *REFERENCES]}
    prompts = [f"Verbessere: {lines[SYSTEM][n - 1]}" for n in SEGMENTS]
    references = [[lines[name][n - 1] for name in REFERENCES] for n in SEGMENTS]
    return prompts, references


def build_tokenizer(texts: list[str]) -> PreTrainedTokenizerFast:
    """A word-level tokenizer trained on ``texts``; it decodes words joined by spaces."""
    backend = Tokenizer(models.WordLevel(unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    backend.decoder = decoders.WordPiece()
    backend.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=["<pad>", "<eos>", "<unk>"]))
    return PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")


def build_model(tokenizer: PreTrainedTokenizerFast) -> Qwen2ForCausalLM:
    """A random 1-layer Qwen2 for this vocabulary."""
    torch.manual_seed(0)
    size = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2)
    ids = dict(pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
    config = Qwen2Config(vocab_size=len(tokenizer), max_position_embeddings=64, **size, **ids)
    return Qwen2ForCausalLM(config)


def gleu_rewards(tokenizer: PreTrainedTokenizerFast) -> list:
    """The three GLEU rewards: on the text, the same awaited by TRL, and on the token ids."""
    return [
        GleuReward("references", name="gleu"),
        AsyncGleuReward("references", name="gleu_async"),
        GleuIdReward("reference_ids", pad_id=tokenizer.eos_token_id, name="gleu_ids"),  # EOS is not counted
    ]


def build_dataset(tokenizer: PreTrainedTokenizerFast) -> Dataset:
    """The prompts, with their references as text and as token ids."""
    prompts, references = segments()
    reference_ids = [tokenizer(refs, add_special_tokens=False)["input_ids"] for refs in references]
    return Dataset.from_dict({"prompt": prompts, "references": references, "reference_ids": reference_ids})


def train(reward_funcs: list, tokenizer: PreTrainedTokenizerFast, dataset: Dataset, output_dir: str) -> GRPOTrainer:
    """One GRPO step on CPU: every prompt of ``dataset`` gets NUM_GENERATIONS completions of up
    to 8 tokens from a new :func:`build_model`."""
    args = GRPOConfig(
        output_dir=output_dir,
        per_device_train_batch_size=len(dataset) * NUM_GENERATIONS,
        num_generations=NUM_GENERATIONS,
        max_completion_length=8,
        max_steps=1,
        use_cpu=True,
        bf16=False,
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        seed=0,
    )
    trainer = GRPOTrainer(
        model=build_model(tokenizer),
        reward_funcs=reward_funcs,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    for callback in (ProgressCallback, PrinterCallback):  # main() prints the step's log instead
        trainer.remove_callback(callback)
    trainer.train()
    return trainer


def summary(trainer: GRPOTrainer) -> str:
    """The step's logged loss, summed reward, each reward's mean, and the precision and recall
    that the text rewards log, one a line."""
    logged = trainer.state.log_history[0]
    keys = [key for key in logged if key in ("loss", "reward") or key.endswith(("/mean", "/precision", "/recall"))]
    return "\n".join(f"{key:<24} {logged[key]:.4f}" for key in keys)


def main() -> GRPOTrainer:
    prompts, references = segments()
    tokenizer = build_tokenizer(prompts + [ref for refs in references for ref in refs])
    with tempfile.TemporaryDirectory() as output_dir:
        trainer = train(gleu_rewards(tokenizer), tokenizer, build_dataset(tokenizer), output_dir)
    print(f"step {trainer.state.global_step}: {len(prompts)} prompts x {NUM_GENERATIONS} completions")
    print(summary(trainer))
    return trainer


if __name__ == "__main__":
    main()
