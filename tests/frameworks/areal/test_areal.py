"""The AReaL reward inside AReaL 1.0.4 itself (installed with --no-deps, see no-deps.txt).

``RLVRWorkflow(reward_fn=...)``, given the reward object or its dotted path, runs an episode
per WMT17 segment: its ``arun_episode`` builds the prompt with the tokenizer's chat template,
awaits the inference engine, decodes the completion with its special tokens and awaits the
reward through ``AsyncRewardWrapper``, AReaL's process pool with a timeout (the reward and its
arguments pickled for every call). Only the inference engine's place is taken: an object whose
``agenerate`` answers with a WMT17 system's translation followed by the stop token. Every
reward is compared with ``GLEU(...).sentence_score`` of that translation alone.
"""

from __future__ import annotations

import asyncio
import pickle
import subprocess
import sys

import pytest
import torch
from areal.api.cli_args import GenerationHyperparameters
from areal.api.io_struct import ModelResponse
from areal.api.reward_api import AsyncRewardWrapper
from areal.utils.hf_utils import load_hf_tokenizer
from areal.workflow.rlvr import RLVRWorkflow

from google_bleu import GLEU
from google_bleu.integrations.areal import GleuReward, reward_fn
from tests.helpers.readme_snippets import claimed_output, python_blocks, run_script

DOTTED = "google_bleu.integrations.areal.reward_fn"


class Translations:
    """The inference engine's place in ``arun_episode``: it awaits ``engine.agenerate(req)`` and
    reads a ``ModelResponse``. This answers each request with the next queued translation and
    the stop token (AReaL's engines keep it in ``output_tokens``)."""

    def __init__(self, tokenizer, translations: list[str]) -> None:
        self.tokenizer = tokenizer
        self.queue = list(translations)

    async def agenerate(self, req) -> ModelResponse:
        text = self.queue.pop(0)
        output = self.tokenizer(text, add_special_tokens=False)["input_ids"] + [self.tokenizer.eos_token_id]
        assert self.tokenizer.decode(output[:-1]) == text  # the tokenizer is lossless
        n = len(output)
        return ModelResponse(
            input_tokens=list(req.input_ids),
            output_tokens=output,
            output_logprobs=[0.0] * n,
            output_versions=[0] * n,
            tokenizer=self.tokenizer,
        )


def run_episodes(workflow: RLVRWorkflow, tokenizer, rows: list[dict], translations: list[str]) -> list[float]:
    """One ``arun_episode`` per row, one after another on one loop, as AReaL's rollout runs them."""
    engine = Translations(tokenizer, translations)

    async def episodes():
        return [await workflow.arun_episode(engine, row) for row in rows]

    results = asyncio.run(episodes())
    for result in results:
        assert result["rewards"].dtype == torch.float32 and result["rewards"].shape == (1,)
    return [result["rewards"].item() for result in results]


def wmt17_rows(wmt17, system: str, several: bool = False) -> tuple[list[dict], list[str], list]:
    """Dataset rows (``messages`` and ``answer``, as AReaL's datasets give them), the system's
    translations and the references of each row."""
    other = wmt17["systems"]["online-B.0"]
    rows, references = [], []
    for i, reference in enumerate(wmt17["reference"]):
        answer = [reference, other[i]] if several else reference
        rows.append({"messages": [{"role": "user", "content": f"Translate segment {i + 1}."}], "answer": answer})
        references.append(answer)
    return rows, wmt17["systems"][system], references


@pytest.mark.parametrize("given", ["callable", "dotted-path"])
def test_rlvr_workflow_rewards_every_wmt17_translation_exactly(given, wmt17, tokenizer_dir):
    tokenizer = load_hf_tokenizer(str(tokenizer_dir))
    workflow = RLVRWorkflow(
        reward_fn=reward_fn if given == "callable" else DOTTED,
        gconfig=GenerationHyperparameters(max_new_tokens=512),
        tokenizer=str(tokenizer_dir),
    )
    for system in wmt17["systems"]:
        rows, translations, references = wmt17_rows(wmt17, system)
        rewards = run_episodes(workflow, tokenizer, rows, translations)
        expected = [GLEU().sentence_score(t, r).score for t, r in zip(translations, references)]
        # AReaL stores the reward in a float32 tensor: the float32 rounding of the exact score.
        assert rewards == torch.tensor(expected, dtype=torch.float32).tolist()
    assert workflow.async_reward_fn.reward_fn is reward_fn  # the path names the same object


def test_async_reward_wrapper_returns_the_exact_score_from_its_process_pool(wmt17):
    rows, translations, references = wmt17_rows(wmt17, "uedin-nmt.4722", several=True)
    scorer = GLEU(lowercase=True, max_len=3)
    reward = GleuReward(scorer)
    wrapper = AsyncRewardWrapper(reward, timeout_seconds=15)

    async def rewards():
        calls = [
            wrapper("prompt", text + "<|im_end|>", [1, 2], [3, 4], **row) for text, row in zip(translations, rows)
        ]
        return await asyncio.gather(*calls)

    got = asyncio.run(rewards())
    assert got == [scorer.sentence_score(t, r).score for t, r in zip(translations, references)]
    assert got != [GLEU().sentence_score(t, r).score for t, r in zip(translations, references)]


def test_the_reward_starts_light_in_a_fresh_process():
    """What a process-pool worker receives: the pickled reward, a few hundred bytes, which a
    fresh interpreter turns back into the reward with one import of google_bleu (no torch, no
    AReaL) and calls."""
    data = pickle.dumps(GleuReward(GLEU(tokenizer="intl")))
    assert len(data) < 1024
    code = (
        "import pickle, sys\n"
        f"reward = pickle.loads({data!r})\n"
        "print(reward('p', 'the cat sat<|im_end|>', [1], [2], answer='the cat sat'))\n"
        "heavy = ('torch', 'transformers', 'areal', 'ray', 'evaluate', 'datasets')\n"
        "print(sorted(name for name in heavy if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.split("\n")[:2] == ["1.0", "[]"]


def test_a_row_without_the_reference_field_fails_naming_the_fields(tokenizer_dir):
    wrapper = AsyncRewardWrapper(reward_fn, max_retries=0)
    with pytest.raises(ValueError, match=r"dataset field 'answer'; the row has \['messages', 'solution'\]"):
        asyncio.run(wrapper("p", "the cat", [1], [2], messages=[], solution="the cat"))
    with pytest.raises(TypeError, match=r"reference_key must be a non-empty str"):
        GleuReward(reference_key=3)
    with pytest.raises(TypeError, match=r"scorer must be a google_bleu.GLEU"):
        GleuReward("intl")


def test_guide_block_prints_what_it_says(tmp_path):
    (block,) = [block for block in python_blocks() if block.name == "rl-areal"]
    done = run_script(block.source(), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    claimed = claimed_output(block.code)
    assert done.stdout.strip().splitlines() == claimed
    assert claimed == [str(GLEU().sentence_score("the cat sat on the mat", "the cat ate the mat").score)]
