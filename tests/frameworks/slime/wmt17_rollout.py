"""What the tests name in slime's flags: ``--custom-generate-function-path
wmt17_rollout.translate`` takes SGLang's place in slime's rollout step, and
``--custom-rm-path wmt17_rollout.gleu_ids`` is the token-id reward with the stop token removed.

slime loads both with its own ``load_function`` (this folder is on ``sys.path`` under pytest).
"""

from __future__ import annotations

from google_bleu.integrations.slime import GleuIdReward

#: The tests' tokenizer gives ``<|im_end|>``, its stop token, the id 1 (conftest.py).
EOS_ID = 1

gleu_ids = GleuIdReward(pad_id=EOS_ID)


async def translate(args, sample, sampling_params):
    """A generation as slime's own ``generate`` leaves it: the response text, the prompt's and
    the response's ids in ``sample.tokens`` (the stop token kept), ``response_length`` and a
    completed status. The response is the WMT17 system's translation in ``sample.metadata``."""
    from slime.rollout.sglang_rollout import GenerateState
    from slime.utils.types import Sample

    tokenizer = GenerateState(args).tokenizer
    text = sample.metadata["translation"]
    prompt_ids = tokenizer(sample.prompt, add_special_tokens=False)["input_ids"]
    response_ids = tokenizer(text, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    assert tokenizer.eos_token_id == EOS_ID and tokenizer.decode(response_ids[:-1]) == text
    sample.tokens = prompt_ids + response_ids
    sample.response = text
    sample.response_length = len(response_ids)
    sample.status = Sample.Status.COMPLETED
    return sample
