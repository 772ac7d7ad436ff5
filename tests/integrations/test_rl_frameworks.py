"""The RL rewards, called the way each framework calls them: veRL, OpenRLHF, TRL.

TRL runs for real here. veRL (pins transformers < 5.11), OpenRLHF (pins deepspeed, flash-attn
and transformers 5.15) and verifiers 0.4 are tested against the real packages in their own
environments (tests/frameworks/verl, tests/frameworks/openrlhf, tests/frameworks/verifiers;
``make framework-verl``, ``make framework-openrlhf``, ``make framework-verifiers``); here only
their rewards' own checks.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import pickle
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import google_bleu
from google_bleu import GLEU
from google_bleu.integrations.openrlhf import COMMON_SPECIAL_TOKENS, OpenRLHFReward
from google_bleu.integrations.trl import GleuIdReward, GleuReward
from google_bleu.integrations.verl import compute_score, compute_score_batch
from tests.helpers.frameworks import byte_level_bpe
from tests.helpers.oracles import nltk_sentence, tokenize_13a

REPO = Path(__file__).resolve().parents[2]
PACKAGE = Path(google_bleu.__file__).resolve().parent
DOC = REPO / "docs" / "rl-rewards.md"

RESPONSES = ["the cat sat on the mat .", "A dog barks", "", "one two three four five"]
REFERENCES = [["the cat ate the mat."], ["a dog barks", "one dog"], ["the cat"], ["one two three four five six"]]


def scorer_rows(responses, references, **settings):
    """(score, precision, recall) of each response, from the shared scorer's rows."""
    stats = GLEU(**settings).stats(responses, references)
    return [(stats[i].score(), stats[i].precision(), stats[i].recall()) for i in range(len(stats))]


def nltk_scores(responses, references):
    return [nltk_sentence([tokenize_13a(r) for r in refs], tokenize_13a(c)) for c, refs in zip(responses, references)]


def chatml_tokenizer():
    """A small byte-level BPE tokenizer with ChatML special tokens and chat template, trained here."""
    pytest.importorskip("tokenizers")
    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    template = (
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    corpus = [" ".join(RESPONSES + sum(REFERENCES, []))] * 4
    return byte_level_bpe(
        corpus, special, eos="<|im_end|>", pad="<|endoftext|>", extra=["<|im_start|>"], chat_template=template, vocab_size=300
    )


# -- veRL ---------------------------------------------------------------------------------


def test_verl_keywords_verl_passes_are_accepted():
    # veRL's reward managers add these when a reward model is enabled (tests/frameworks/verl
    # checks that veRL 0.9.1 passes exactly these).
    expected = dict(zip(("score", "precision", "recall"), scorer_rows(RESPONSES[:1], REFERENCES[:1])[0]))
    call = {"data_source": "wmt", "solution_str": RESPONSES[0], "ground_truth": REFERENCES[0], "extra_info": {}}
    assert compute_score(**call, reward_router_address="127.0.0.1:1", reward_model_tokenizer=None) == expected


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: compute_score("wmt", None, "a"), TypeError, r"solution_str \(the decoded response\) must be a str"),
        (lambda: compute_score("wmt", "a", []), ValueError, "ground_truth has no reference"),
        (lambda: compute_score("wmt", "a", [1]), TypeError, r"ground_truth\[0\] must be a str, got int 1"),
        (
            lambda: compute_score(data_sources=["x"], solution_strs=["a", "b"], ground_truths=["a", "b"]),
            ValueError,
            "got 2 solution_strs, 2 ground_truths, 1 data_sources",
        ),
        (
            lambda: compute_score(solution_strs=["a"], ground_truths=[3]),
            TypeError,
            r"ground_truths\[0\] must be a str",
        ),
        (lambda: compute_score_batch(None, ["a", 4], ["a", "b"]), TypeError, r"solution_strs\[1\] must be"),
        (lambda: compute_score_batch(None, "ab", ["a", "b"]), TypeError, "solution_strs must be a list"),
        (
            lambda: compute_score("wmt", "a", "a", solution_strs=["a"], ground_truths=["a"]),
            ValueError,
            r"one sample or a batch, not both: got batch arguments and \['data_source', 'ground_truth', 'solution_str'\]",
        ),
        (lambda: compute_score("wmt", "a", "a", min_len=0), ValueError, "min_len must be >= 1"),
        (lambda: compute_score("wmt", "a", "a", tokenizer="nonsense"), ValueError, "unknown tokenizer"),
        (
            lambda: compute_score("wmt", "a", "a", lowercse=True, max_len=3, n_gram=2),
            TypeError,
            r"unexpected keyword arguments \['lowercse', 'n_gram'\]: reward_kwargs may set tokenizer, lowercase",
        ),
        (
            lambda: compute_score(solution_strs=["a"], ground_truths=["a"], reward_fn_key="data_source"),
            TypeError,
            r"unexpected keyword arguments \['reward_fn_key'\]",
        ),
        (lambda: compute_score_batch(None, ["a"], ["a"], minlen=2), TypeError, r"\['minlen'\]"),
    ],
)
def test_verl_bad_input_is_rejected_naming_the_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- OpenRLHF -----------------------------------------------------------------------------


def test_openrlhf_prompt_match_after_special_tokens_are_removed():
    reward_func = OpenRLHFReward(["<s>", "</s>"])
    # A tokenizer that drops the BOS on decode: the prompt matches once special tokens go.
    assert reward_func.response("[INST] hi [/INST] hello</s>", "<s>[INST] hi [/INST] ") == "hello"
    assert reward_func(["[INST] hi [/INST] the cat</s>"], ["<s>[INST] hi [/INST] "], ["the cat"])[
        "rewards"
    ].tolist() == [1.0]


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((["p a"], ["q "], ["a"]), ValueError, r"queries\[0\] does not start with prompts\[0\]"),
        ((["p a"], ["p "], [3]), TypeError, r"labels\[0\] must be a str or a list of str, got int 3"),
        ((["p a", "p b"], ["p "], ["a"]), ValueError, "got 2 queries, 1 prompts and 1 labels"),
        (("p a", ["p "], ["a"]), TypeError, "queries must be a list"),
        (([1], ["p "], ["a"]), TypeError, r"queries\[0\] must be a str"),
    ],
)
def test_openrlhf_bad_input(args, error, message):
    with pytest.raises(error, match=message):
        OpenRLHFReward([])(*args)


def test_openrlhf_bad_arguments():
    with pytest.raises(TypeError, match="special_tokens must be a Hugging Face tokenizer or a list"):
        OpenRLHFReward("<|im_end|>")
    with pytest.raises(TypeError, match="special_tokens must hold non-empty strings"):
        OpenRLHFReward(["", "</s>"])
    with pytest.raises(TypeError, match=r"scorer must be a google_bleu.GLEU \(e.g. GLEU\(tokenizer='char'\)\), got str"):
        OpenRLHFReward([], "char")
    with pytest.raises(TypeError, match="name must be a str"):
        OpenRLHFReward([], name=1)
    assert "<|im_end|>" in COMMON_SPECIAL_TOKENS


# -- TRL: picklable rewards, token-id reward ------------------------------------------------


def test_trl_rewards_pickle_round_trip_and_keep_their_names():
    trl_utils = pytest.importorskip("trl.trainer.utils")
    text = GleuReward("target", GLEU("char", lowercase=True, min_len=1, max_len=2), name="gleu_char")
    ids = GleuIdReward("target_ids", pad_id=0, max_len=3, name="gleu_ids3")
    for reward in (text, ids):
        copy = pickle.loads(pickle.dumps(reward))
        assert type(copy) is type(reward) and repr(copy) == repr(reward)
        assert trl_utils.get_callable_name(copy) == reward.__name__
        assert not trl_utils.is_async_callable(copy)
    assert pickle.loads(pickle.dumps(text))(["AB"], target=["ab"]) == text(["AB"], target=["ab"]) == [1.0]
    assert pickle.loads(pickle.dumps(ids))(completion_ids=[[1, 2, 0]], target_ids=[[1, 2]]) == [1.0]


def _trl_child(reward_funcs, kwargs, results):
    """A spawned child as TRL's AsyncRolloutWorker runs one: CUDA hidden, rewards called in threads."""
    from trl.experimental.async_grpo.async_rollout_worker import _scrub_child_env

    _scrub_child_env()
    import torch

    async def score():  # AsyncRolloutLoop._score_group
        return await asyncio.gather(*[asyncio.to_thread(func, **kwargs) for func in reward_funcs])

    results.put((os.environ["CUDA_VISIBLE_DEVICES"], torch.cuda.is_available(), asyncio.run(score())))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")  # trl.experimental announces itself
def test_trl_rewards_run_in_a_spawned_cuda_free_child():
    pytest.importorskip("trl")
    reward_funcs = [GleuReward("reference"), GleuIdReward("reference_ids", pad_id=2)]
    pickle.dumps({"reward_funcs": reward_funcs})  # AsyncRolloutWorker.start checks this first
    kwargs = {
        "prompts": ["p"] * 4,
        "completions": RESPONSES,
        "completion_ids": [[5, 6, 7, 2], [9], [], [1, 1, 1, 2]],
        "reference": REFERENCES,
        "reference_ids": [[5, 6, 8], [[9], [4]], [3], [[1, 1], [1, 1, 1]]],
    }
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    child = context.Process(target=_trl_child, args=(reward_funcs, kwargs, results))
    child.start()
    visible, cuda, (text_scores, id_scores) = results.get(timeout=300)
    child.join(timeout=60)
    assert child.exitcode == 0
    assert visible == "" and cuda is False
    assert text_scores == nltk_scores(RESPONSES, REFERENCES)
    assert id_scores == [nltk_sentence([[5, 6, 8]], [5, 6, 7]), 1.0, 0.0, nltk_sentence([[1, 1], [1, 1, 1]], [1, 1, 1])]
    assert id_scores == [0.5, 1.0, 0.0, 1.0]


def random_ids(rng, length, vocab):
    return [rng.randrange(vocab) for _ in range(length)]


@pytest.mark.parametrize("seed", range(3))
def test_trl_id_reward_equals_nltk_on_the_id_lists(seed):
    torch = pytest.importorskip("torch")
    rng = random.Random(seed)
    completion_ids, column, oracle_refs = [], [], []
    for i in range(40):
        hyp = random_ids(rng, rng.randrange(0, 12), 6)
        n_refs = rng.randrange(1, 4)
        refs = [random_ids(rng, rng.randrange(0, 12), 6) for _ in range(n_refs)]
        completion_ids.append(hyp)
        # Rows as a dataset gives them: one reference as a flat list, several as lists; some as tensors/arrays.
        value = refs[0] if n_refs == 1 else refs
        if i % 5 == 3:
            value = torch.tensor(value, dtype=torch.int64) if n_refs == 1 or len(set(map(len, refs))) == 1 else value
        if i % 7 == 4 and n_refs == 1:
            value = np.array(refs[0], dtype=np.int64)
        column.append(value)
        oracle_refs.append(refs)
    reward = GleuIdReward("reference_ids", max_len=3)
    expected = [nltk_sentence(refs, hyp, 1, 3) for refs, hyp in zip(oracle_refs, completion_ids)]
    assert (
        reward(prompts=["p"] * 40, completions=[""] * 40, completion_ids=completion_ids, reference_ids=column)
        == expected
    )


def test_trl_id_reward_pad_id_drops_eos_and_options():
    reward = GleuIdReward("target", pad_id=2, min_len=2, max_len=2, name="bigram")
    got = reward(completion_ids=[[5, 6, 7, 2], [0, 0, 2]], target=[[5, 6, 7], [[0, 0], [0, 1]]])
    assert (
        got
        == [nltk_sentence([[5, 6, 7]], [5, 6, 7], 2, 2), nltk_sentence([[0, 0], [0, 1]], [0, 0], 2, 2)]
        == [1.0, 1.0]
    )
    assert reward.__name__ == "bigram"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"target": [[1]]}, ValueError, "needs completion_ids"),
        (
            {"completion_ids": [[1]], "other": [[1]]},
            ValueError,
            r"column 'target'; the trainer passed \['other'\]",
        ),
        ({"completion_ids": [[1], [2]], "target": [[1]]}, ValueError, "got 2 completion_ids but 1 values of 'target'"),
        ({"completion_ids": [[1]], "target": ["a b"]}, TypeError, "column 'target', example 0: reference ids must be"),
        ({"completion_ids": "ab", "target": [[1]]}, TypeError, "completion_ids must be a list"),
        (
            {"completion_ids": [[1.5]], "target": [[1]]},
            TypeError,
            r"hypotheses\[0\] must hold integer token ids.*\(hypotheses: completion_ids; references: the column 'target'\)",
        ),
    ],
)
def test_trl_id_reward_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        GleuIdReward("target")(**kwargs)


def test_trl_id_reward_bad_settings_fail_at_construction():
    with pytest.raises(TypeError, match="pad_id must be an integer or None"):
        GleuIdReward(pad_id="2")
    with pytest.raises(ValueError, match="max_len must be >= min_len"):
        GleuIdReward(min_len=3, max_len=2)
    with pytest.raises(TypeError, match="reference_key must be a non-empty str"):
        GleuIdReward(reference_key=1)


# -- light imports and the guide ------------------------------------------------------------


def test_reward_modules_import_no_torch():
    code = (
        "import sys, google_bleu.integrations.verl, google_bleu.verl_reward, google_bleu.openrlhf_reward;"
        "google_bleu.integrations.verl.compute_score('d', 'a b', 'a b');"
        "print(sorted(m for m in ('torch', 'transformers', 'evaluate', 'datasets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


_BLOCK = re.compile(r"<!-- test: (?P<name>[\w-]+) -->\n```python\n(?P<code>.*?)\n```", re.DOTALL)
# Printed results are written as comments in the guide: "# [1.0]", "# {...}", "# 1.0 {...}".
_OUTPUT = re.compile(r"#\s*((?:[\[{]|\d+\.\d).*)$")


GUIDE_BLOCKS = [
    "rl-ids",
    "rl-batch-scorer",
    "rl-trl",
    "rl-trl-ids",
    "rl-verl",
    "rl-openrlhf",
    "rl-verifiers-rewards",
    "rl-verifiers",
    "rl-slime",
    "rl-slime-file",
    "rl-skyrl",
    "rl-areal",
    "rl-areal-file",
]
#: Blocks run in a framework's own environment instead (its tests compare what they print).
FRAMEWORK_ENV_BLOCKS = {
    "rl-verifiers": "tests/frameworks/verifiers",
    "rl-slime": "tests/frameworks/slime",
    "rl-skyrl": "tests/frameworks/skyrl",
    "rl-areal": "tests/frameworks/areal",
}


def guide_blocks():
    return {match["name"]: match["code"] for match in _BLOCK.finditer(DOC.read_text("utf-8"))}


def test_guide_has_a_block_per_framework():
    assert set(guide_blocks()) == set(GUIDE_BLOCKS)


@pytest.mark.parametrize("name", [name for name in GUIDE_BLOCKS if name not in FRAMEWORK_ENV_BLOCKS])
def test_guide_examples_print_what_they_say(name, capsys):
    code = guide_blocks()[name]
    exec(compile(code, f"{DOC}:{name}", "exec"), {"__name__": f"guide_{name.replace('-', '_')}"})
    printed = capsys.readouterr().out.strip().splitlines()
    claimed = [m[1].strip() for line in code.splitlines() if (m := _OUTPUT.search(line))]
    assert printed == claimed
