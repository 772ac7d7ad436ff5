"""The slime rewards inside slime 0.3.1 itself (a checkout named by SLIME_SOURCE, see conftest.py).

slime's rollout step (``slime.rollout.sglang_rollout``) runs ``generate_and_rm_group`` per
prompt: one ``generate_and_rm`` task per sample, which awaits the reward through
``slime.rollout.rm_hub.async_rm`` (``fn(args, sample)``), or, with ``--group-rm``, one
``batched_async_rm`` call for the whole group (``fn(args, samples)``); both load
``--custom-rm-path`` with slime's ``load_function``. Only SGLang's place is taken
(``--custom-generate-function-path wmt17_rollout.translate``): each sample's response is a WMT17
system's translation. A group is the four systems' translations of one segment; all 300 groups
run at once on one event loop, as slime submits them. Every reward is compared (``==``) with
``GLEU(...).sentence_score`` of that translation alone, or nltk's ``sentence_gleu`` on its ids.
"""

from __future__ import annotations

import asyncio
from argparse import Namespace

import pytest
from nltk.translate.gleu_score import sentence_gleu

from conftest import CHECKOUT
from google_bleu import GLEU
from tests.helpers.readme_snippets import claimed_output, python_blocks, run_script


@pytest.fixture(autouse=True)
def fresh_generate_state():
    """slime keeps one ``GenerateState`` per process (a singleton holding a semaphore of one
    event loop); each test runs its own loop, so each starts with a new state."""
    from slime.utils.misc import SingletonMeta

    SingletonMeta._instances.clear()
    yield
    SingletonMeta._instances.clear()


def rollout_args(tokenizer_dir, custom_rm_path: str, group_rm: bool) -> Namespace:
    """The arguments slime's rollout step reads (the names of slime's flags, as its parser
    stores them), for one engine and no SGLang server."""
    return Namespace(
        custom_rm_path=custom_rm_path,
        group_rm=group_rm,
        rm_type=None,
        custom_generate_function_path="wmt17_rollout.translate",
        hf_checkpoint=str(tokenizer_dir),
        rollout_num_engines=1,
        sglang_server_concurrency=16,
        sglang_dp_size=None,
        rollout_temperature=1.0,
        rollout_top_p=1.0,
        rollout_top_k=-1,
        rollout_max_response_len=512,
        rollout_stop=None,
        rollout_stop_token_ids=None,
        rollout_skip_special_tokens=False,
        n_samples_per_prompt=4,
        partial_rollout=False,
        mask_offpolicy_in_partial_rollout=False,
        rollout_sample_hook_path=None,
        sglang_enable_deterministic_inference=False,
    )


def groups(wmt17, label) -> list[list]:
    """One group per segment: the four systems' translations, each a slime ``Sample``."""
    from slime.utils.types import Sample

    out = []
    for i, reference in enumerate(wmt17["reference"]):
        group = []
        for s, (system, lines) in enumerate(wmt17["systems"].items()):
            group.append(
                Sample(
                    group_index=i,
                    index=4 * i + s,
                    prompt=f"Translate segment {i + 1} into German.",
                    label=label(i, reference),
                    metadata={"translation": lines[i], "system": system},
                )
            )
        out.append(group)
    return out


def run_rollout(args, all_groups) -> list:
    from slime.rollout.sglang_rollout import generate_and_rm_group

    async def rollout():
        sampling_params = {"temperature": 1.0, "max_new_tokens": 512}
        return await asyncio.gather(*[generate_and_rm_group(args, group, sampling_params) for group in all_groups])

    return [sample for group in asyncio.run(rollout()) for sample in group]


def text_label(several: bool, wmt17):
    other = wmt17["systems"]["online-B.0"]
    return lambda i, reference: [reference, other[i]] if several else reference


@pytest.mark.parametrize("group_rm", [False, True], ids=["per-sample", "group-rm"])
@pytest.mark.parametrize("several", [False, True], ids=["one-reference", "two-references"])
def test_text_reward_in_slimes_rollout(group_rm, several, wmt17, tokenizer_dir):
    from google_bleu.integrations.slime import gleu_reward

    args = rollout_args(tokenizer_dir, "google_bleu.integrations.slime.gleu_reward", group_rm)
    before = gleu_reward.gathered()
    samples = run_rollout(args, groups(wmt17, text_label(several, wmt17)))
    assert len(samples) == 1200
    expected = [GLEU().sentence_score(s.metadata["translation"], s.label).score for s in samples]
    assert [s.reward for s in samples] == expected
    after = gleu_reward.gathered()
    calls, batches = after["calls"] - before["calls"], after["batches"] - before["batches"]
    if group_rm:  # one batched call per group, through batched_async_rm
        assert calls == batches == 0
    else:  # 1,200 async_rm calls, the ones of a loop turn scored together
        assert calls == 1200 and batches < 1200 and after["waiting"] == 0


@pytest.mark.parametrize("group_rm", [False, True], ids=["per-sample", "group-rm"])
def test_token_id_reward_in_slimes_rollout(group_rm, wmt17, tokenizer_dir):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    other = wmt17["systems"]["uedin-nmt.4722"]

    def ids(text):
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    def label(i, reference):  # one reference as a list of ids, every third segment two
        return [ids(reference), ids(other[i])] if i % 3 == 0 else ids(reference)

    args = rollout_args(tokenizer_dir, "wmt17_rollout.gleu_ids", group_rm)
    samples = run_rollout(args, groups(wmt17, label))
    expected = []
    for s in samples:
        references = s.label if isinstance(s.label[0], list) else [s.label]
        expected.append(sentence_gleu(references, ids(s.metadata["translation"])))
    assert [s.reward for s in samples] == expected
    # The stop token counts unless it is removed: the reward without pad_id differs.
    from google_bleu.integrations.slime import gleu_id_reward

    kept = asyncio.run(gleu_id_reward(args, samples))
    assert kept != expected and all(score <= exact for score, exact in zip(kept, expected))


def test_a_sample_without_label_fails_naming_it(tokenizer_dir):
    from slime.rollout.rm_hub import async_rm, batched_async_rm
    from slime.utils.types import Sample

    args = rollout_args(tokenizer_dir, "google_bleu.integrations.slime.gleu_reward", False)
    with pytest.raises(ValueError, match=r"sample 0 has no label: the GLEU reward scores against sample.label"):
        asyncio.run(async_rm(args, Sample(response="a b")))
    with pytest.raises(TypeError, match=r"sample 1: label must be a str or a list of str, got int"):
        asyncio.run(batched_async_rm(args, [Sample(response="a", label="a"), Sample(response="b", label=3)]))


def test_the_flags_of_the_guide_are_slimes():
    arguments = (CHECKOUT / "slime" / "utils" / "arguments.py").read_text("utf-8")
    for flag in ("--custom-rm-path", "--group-rm", "--label-key", "--custom-generate-function-path"):
        assert f'"{flag}"' in arguments, flag


def test_guide_block_prints_what_it_says(tmp_path):
    (block,) = [block for block in python_blocks() if block.name == "rl-slime"]
    env = {"PYTHONPATH": str(CHECKOUT), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
    done = run_script(block.source(), tmp_path, env)
    assert done.returncode == 0, done.stderr[-3000:]
    claimed = claimed_output(block.code)
    assert done.stdout.strip().splitlines() == claimed
    assert claimed[0] == str(GLEU().sentence_score("the cat sat on the mat", "the cat ate the mat").score)
