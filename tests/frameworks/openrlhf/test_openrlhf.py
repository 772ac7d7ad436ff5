"""The OpenRLHF reward against the real OpenRLHF 0.11.2 (installed with --no-deps, see no-deps.txt).

1. The guide's command (docs/rl-rewards.md) is parsed by OpenRLHF's own parser and checks: the
   body of ``if __name__ == "__main__":`` of ``openrlhf/cli/train_ppo_ray.py``, read from the
   installed file and run with ``train`` replaced by a function that keeps the final arguments
   (the module itself imports vLLM and Ray at the top, so it cannot be imported here).
2. Those arguments drive OpenRLHF's own rollout step: ``get_tokenizer`` loads a tokenizer folder,
   ``preprocess_data`` (what ``PromptDataset`` calls per row) builds each prompt and label from a
   JSONL of real WMT17 en-de segments with the guide's ``--data.input_key``/``--data.label_key``,
   ``SingleTurnAgentExecutor(args.reward.remote_url)`` loads the reward file, and its ``execute``
   decodes prompt + response with special tokens kept and calls ``reward_func`` in its thread.
   Only vLLM's place is taken: an engine object whose ``generate`` answers with a WMT17 system's
   translation. Every reward must equal ``GLEU(...).sentence_score`` of that translation alone.
"""

from __future__ import annotations

import ast
import asyncio
import functools
import importlib.util
import json
import logging
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from openrlhf.datasets.prompts_dataset import preprocess_data
from openrlhf.utils import get_tokenizer
from openrlhf.utils.agent import SingleTurnAgentExecutor

import google_bleu
from google_bleu import GLEU
from google_bleu.integrations.openrlhf import OpenRLHFReward

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "rl-rewards.md"
SHIPPED = Path(google_bleu.__file__).resolve().parent / "openrlhf_reward.py"
OPENRLHF = Path(importlib.util.find_spec("openrlhf").submodule_search_locations[0])
TRAIN_PPO_RAY = OPENRLHF / "cli" / "train_ppo_ray.py"


# -- 1. the guide's flags, parsed by OpenRLHF ------------------------------------------------


@functools.cache
def printed_reward_path() -> str:
    """What ``python -m google_bleu.openrlhf_reward`` prints: the shipped file's path."""
    done = subprocess.run(
        [sys.executable, "-m", "google_bleu.openrlhf_reward"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def guide_argv() -> list[str]:
    """The arguments of ``openrlhf.cli.train_ppo_ray`` in the guide's command, with
    ``$(python -m google_bleu.openrlhf_reward)`` replaced by what it prints, as the shell would."""
    text = DOC.read_text("utf-8")
    blocks = [
        m[1] for m in re.finditer(r"```text\n(.*?)\n```", text, re.DOTALL) if "openrlhf.cli.train_ppo_ray" in m[1]
    ]
    assert len(blocks) == 1, f"{DOC.name}: expected one ```text block running openrlhf.cli.train_ppo_ray"
    assert Path(printed_reward_path()) == SHIPPED
    substitution = "$(python -m google_bleu.openrlhf_reward)"
    command = blocks[0].replace("\\\n", " ").replace(substitution, shlex.quote(printed_reward_path()))
    assert "$(" not in command, command
    words = shlex.split(command)
    return words[words.index("openrlhf.cli.train_ppo_ray") + 1 :]


def train_ppo_ray_args(argv: list[str], monkeypatch) -> SimpleNamespace:
    """OpenRLHF's command line: the parser, ``hierarchize`` and every check of the ``__main__``
    block of the installed ``train_ppo_ray.py``, up to the ``train(args)`` call."""
    tree = ast.parse(TRAIN_PPO_RAY.read_text("utf-8"), str(TRAIN_PPO_RAY))
    (main,) = [node for node in tree.body if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)]
    # The file's own standard-library imports (argparse, os, datetime); the others load vLLM and Ray.
    imports = [
        node
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and all(
            (alias.name if isinstance(node, ast.Import) else node.module).split(".")[0] in sys.stdlib_module_names
            for alias in node.names
        )
    ]
    parsed = []
    namespace = {"__name__": "train_ppo_ray", "train": parsed.append}
    exec(compile(ast.Module(body=imports, type_ignores=[]), str(TRAIN_PPO_RAY), "exec"), namespace)
    monkeypatch.setattr(sys, "argv", ["train_ppo_ray.py", *argv])
    exec(compile(ast.Module(body=main.body, type_ignores=[]), str(TRAIN_PPO_RAY), "exec"), namespace)
    (args,) = parsed
    return args


def test_the_guides_flags_parse_with_openrlhfs_parser(monkeypatch):
    args = train_ppo_ray_args(guide_argv(), monkeypatch)
    # OpenRLHF splits --reward.remote_url on "," and hands the list to SingleTurnAgentExecutor.
    assert args.reward.remote_url == [str(SHIPPED)]
    assert (args.data.input_key, args.data.label_key, args.data.apply_chat_template) == ("source", "reference", True)
    assert args.data.prompt_dataset == "wmt17_en_de.jsonl"
    assert (args.algo.advantage.estimator, args.rollout.n_samples_per_prompt) == ("group_norm", 8)


@pytest.mark.parametrize(
    ("flag", "replacement"),
    [
        ("--reward.remote_url", "--reward.remote_rul"),
        ("--data.label_key", "--data.lable_key"),
        ("--data.input_key", "--data.inputkey"),
        # OpenRLHF before 0.11 spelt them flat; 0.11 refuses the old names.
        ("--reward.remote_url", "--remote_rm_url"),
        ("--data.label_key", "--label_key"),
    ],
)
def test_a_misspelt_or_old_flag_is_refused_by_openrlhfs_parser(flag, replacement, monkeypatch, capsys):
    argv = guide_argv()
    assert flag in argv and replacement not in argv
    argv = [replacement if word == flag else word for word in argv]
    with pytest.raises(SystemExit) as exit_info:
        train_ppo_ray_args(argv, monkeypatch)
    assert exit_info.value.code == 2
    assert f"unrecognized arguments: {replacement}" in capsys.readouterr().err


def test_openrlhfs_checks_run_after_the_parser(monkeypatch):
    argv = guide_argv()
    argv[argv.index("--rollout.n_samples_per_prompt") + 1] = "1"
    with pytest.raises(AssertionError, match="group_norm requires n_samples_per_prompt > 1"):
        train_ppo_ray_args(argv, monkeypatch)


# -- 2. OpenRLHF's rollout step scores real WMT17 translations -------------------------------


class Translations:
    """vLLM's place in ``SingleTurnAgentExecutor.execute``: it awaits
    ``llm_engine.generate(prompt_token_ids, sampling_params, multi_modal_data=...)`` and reads
    ``outputs[0]``'s ``token_ids``, ``finish_reason`` and ``logprobs``. This answers with one WMT17
    system's translation of the segment, followed by EOS (vLLM keeps the stop token in
    ``token_ids``)."""

    def __init__(self, tokenizer, translation: str) -> None:
        self.token_ids = tokenizer(text=translation, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        assert tokenizer.decode(self.token_ids[:-1]) == translation  # the tokenizer is lossless

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        assert multi_modal_data is None and sampling_params.max_tokens >= len(self.token_ids)
        output = SimpleNamespace(token_ids=list(self.token_ids), finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[output])


def wmt17_dataset(args, wmt17, folder: Path, references: str) -> list[dict]:
    """The rows OpenRLHF's PromptDataset iterates: a JSONL named like the guide's
    ``--data.prompt_dataset``, with the guide's input and label columns, loaded by ``datasets`` as
    OpenRLHF's ``blending_datasets`` loads a ``.jsonl`` file."""
    import datasets

    path = folder / args.data.prompt_dataset
    others = wmt17["systems"]["online-B.0"]
    with path.open("w", encoding="utf-8") as out:
        for i, reference in enumerate(wmt17["reference"]):
            label = reference if references == "one" else [reference, others[i]]
            row = {
                args.data.input_key: f"Translate segment {i + 1} of WMT17 newstest into German.",
                args.data.label_key: label,
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return list(datasets.load_dataset("json", data_files=str(path), split="train", cache_dir=str(folder / "cache")))


def rollout(args, executor, tokenizer, prompts, labels, translations):
    """One ``execute`` per sample, called as OpenRLHF's vLLM actor calls it
    (``LLMRayActor.generate_responses``) and gathered on one event loop."""
    # SamplesGenerator's SamplingParams: max_tokens from --rollout.max_new_tokens (None: what
    # the prompt leaves of --data.max_len), no logprobs without --algo.advantage.is_correction_level.
    assert args.algo.advantage.is_correction_level == "off"
    params = SimpleNamespace(max_tokens=args.rollout.max_new_tokens, logprobs=None)

    async def run():
        return await asyncio.gather(
            *[
                executor.execute(
                    prompt=prompt,
                    label=label,
                    sampling_params=params,
                    max_length=args.data.max_len,
                    hf_tokenizer=tokenizer,
                    llm_engine=Translations(tokenizer, text),
                    images=None,
                )
                for prompt, label, text in zip(prompts, labels, translations)
            ]
        )

    return asyncio.run(run())


@pytest.mark.parametrize("references", ["one", "two"])
def test_openrlhfs_executor_scores_the_shipped_file_on_wmt17(references, wmt17, tokenizer_dirs, tmp_path, monkeypatch):
    args = train_ppo_ray_args(guide_argv(), monkeypatch)
    tokenizer = get_tokenizer(
        str(tokenizer_dirs["chatml"]), None, "left", None, use_fast=not args.data.disable_fast_tokenizer
    )
    chat = tokenizer.apply_chat_template if args.data.apply_chat_template else None
    rows = [
        preprocess_data(row, args.data.input_template, args.data.input_key, args.data.label_key, chat)
        for row in wmt17_dataset(args, wmt17, tmp_path, references)
    ]
    executor = SingleTurnAgentExecutor(args.reward.remote_url)
    # Loaded by OpenRLHF from the file (a module of its own, not google_bleu.openrlhf_reward).
    assert isinstance(executor.reward_func, OpenRLHFReward) and executor.reward_func.scorer == GLEU()
    assert "google_bleu.openrlhf_reward" not in sys.modules

    # Every system's translation of every segment is a rollout sample of that segment's prompt.
    samples = [
        (prompt, label, lines[i]) for lines in wmt17["systems"].values() for i, (prompt, label) in enumerate(rows)
    ]
    outputs = rollout(args, executor, tokenizer, *zip(*samples))

    scorer = GLEU()
    for k, ((prompt, label, translation), output) in enumerate(zip(samples, outputs)):
        assert prompt.startswith("<|im_start|>user\nTranslate segment") and prompt.endswith("<|im_start|>assistant\n")
        i = k % len(rows)
        reference = wmt17["reference"][i]
        assert label == (reference if references == "one" else [reference, wmt17["systems"]["online-B.0"][i]])
        query = tokenizer.decode(output["observation_tokens"], skip_special_tokens=False)
        assert query == prompt + translation + "<|im_end|>"  # what reward_func was given
        expected = scorer.sentence_score(translation, label)
        assert output["reward"].tolist() == [expected.score]
        assert output["scores"].tolist() == [expected.score]
        assert output["extra_logs"]["gleu_precision"].tolist() == [expected.precision]
        assert output["extra_logs"]["gleu_recall"].tolist() == [expected.recall]
    rewards = [output["reward"].item() for output in outputs]
    assert len(rewards) == 1200 and len(set(rewards)) > 500 and 0.0 <= min(rewards) < max(rewards) <= 1.0
    if references == "two":  # online-B's own line is its second reference
        names = [name for name in wmt17["systems"] for _ in rows]
        assert {reward for name, reward in zip(names, rewards) if name == "online-B.0"} == {1.0}
    # The special tokens and the prompt had to go: scored whole, the queries score otherwise.
    whole = [scorer.sentence_score(prompt + text + "<|im_end|>", label).score for prompt, label, text in samples[:50]]
    assert all(w != r for w, r in zip(whole, rewards[:50]))


def test_a_reward_file_built_from_the_models_tokenizer(wmt17, tokenizer_dirs, tmp_path, monkeypatch):
    """Phi-3's ``<|end|>`` is not among the shipped file's tokens; the guide's recipe (a copy of the
    file given the model's tokenizer and a GLEU) strips it and uses the GLEU's settings."""
    model = tokenizer_dirs["phi3"]
    reward_file = tmp_path / "gleu_reward.py"
    reward_file.write_text(
        "from transformers import AutoTokenizer\n\n"
        "from google_bleu import GLEU\n"
        "from google_bleu.integrations.openrlhf import OpenRLHFReward\n\n"
        f"reward_func = OpenRLHFReward(AutoTokenizer.from_pretrained({str(model)!r}), GLEU(lowercase=True))\n",
        "utf-8",
    )
    argv = guide_argv()
    argv[argv.index("--reward.remote_url") + 1] = f"{reward_file}"
    args = train_ppo_ray_args(argv, monkeypatch)
    tokenizer = get_tokenizer(str(model), None, "left", None)
    chat = tokenizer.apply_chat_template
    rows = [
        preprocess_data(row, None, args.data.input_key, args.data.label_key, chat)
        for row in wmt17_dataset(args, wmt17, tmp_path, "one")[:60]
    ]
    prompts, labels = zip(*rows)
    translations = wmt17["systems"]["uedin-nmt.4722"][:60]
    custom = rollout(args, SingleTurnAgentExecutor(args.reward.remote_url), tokenizer, prompts, labels, translations)
    shipped = rollout(args, SingleTurnAgentExecutor([str(SHIPPED)]), tokenizer, prompts, labels, translations)

    lowercase, cased = GLEU(lowercase=True), GLEU()
    for prompt, label, translation, mine, theirs in zip(prompts, labels, translations, custom, shipped):
        assert prompt.startswith("<|user|>\n") and prompt.endswith("<|end|>\n<|assistant|>\n")
        assert (
            tokenizer.decode(mine["observation_tokens"], skip_special_tokens=False) == prompt + translation + "<|end|>"
        )
        assert mine["reward"].tolist() == [lowercase.sentence_score(translation, label).score]
        assert mine["extra_logs"]["gleu_recall"].tolist() == [lowercase.sentence_score(translation, label).recall]
        # The shipped file leaves "<|end|>" in the response: its n-grams cost precision.
        assert theirs["reward"].item() <= cased.sentence_score(translation, label).score
        assert theirs["extra_logs"]["gleu_precision"].item() < cased.sentence_score(translation, label).precision


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_openrlhf_logs_a_bad_label_and_leaves_the_sample_without_reward(wmt17, tokenizer_dirs, monkeypatch):
    """As the guide says: OpenRLHF catches what reward_func raises, logs it at INFO and goes on."""
    args = train_ppo_ray_args(guide_argv(), monkeypatch)
    tokenizer = get_tokenizer(str(tokenizer_dirs["chatml"]), None, "left", None)
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Translate."}], tokenize=False, add_generation_prompt=True
    )
    records = Records()
    logger = logging.getLogger("openrlhf.utils.agent")
    logger.addHandler(records)
    try:
        good, bad = rollout(
            args,
            SingleTurnAgentExecutor(args.reward.remote_url),
            tokenizer,
            [prompt, prompt],
            [wmt17["reference"][7], 7],
            [wmt17["systems"]["online-A.0"][7]] * 2,
        )
    finally:
        logger.removeHandler(records)
    assert good["reward"].tolist() == [
        GLEU().sentence_score(wmt17["systems"]["online-A.0"][7], wmt17["reference"][7]).score
    ]
    assert bad["reward"] is None and bad["scores"] is None and bad["extra_logs"] == {}
    assert any("labels[0] must be a str or a list of str, got int" in message for message in records.messages)
