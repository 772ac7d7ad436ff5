"""The TRL reward adapter, called as TRL's GRPOTrainer calls reward functions, and in a real GRPO step."""

from fractions import Fraction

import pytest

from google_bleu import GLEU
from google_bleu.integrations.trl import GleuReward
from tests.helpers.oracles import REPO, SAMPLES, nltk_sentence, read_lines, tokenize_13a

PROMPTS = ["Translate: le chat", "Translate: un chien", "Translate: le chat"]
COMPLETIONS = ["the cat sat on the mat .", "a dog", ""]
REFERENCES = [["the cat ate the mat."], ["one dog", "a dog barks"], ["the cat"]]


def oracle(completions, references):
    return [nltk_sentence([tokenize_13a(r) for r in refs], tokenize_13a(c)) for c, refs in zip(completions, references)]


def trl_call(reward, prompts, completions, **columns):
    """What GRPOTrainer._calculate_rewards passes to a plain reward function (trl 1.16)."""
    callbacks = pytest.importorskip("transformers.trainer_callback")
    return reward(
        prompts=prompts,
        completions=completions,
        completion_ids=[[7, 8, 9]] * len(completions),
        **columns,
        trainer_state=callbacks.TrainerState(),
        log_extra=lambda column, values: None,
        log_metric=lambda name, value: None,
    )


def test_plain_completions_equal_nltk_on_13a_tokens():
    reward = GleuReward()
    got = trl_call(reward, PROMPTS, COMPLETIONS, reference=REFERENCES)
    assert got == oracle(COMPLETIONS, REFERENCES)
    assert isinstance(got, list) and all(type(value) is float for value in got)
    assert got[2] == 0.0  # an empty completion is scored, not dropped


def test_conversational_completions_use_the_assistant_message():
    reward = GleuReward()
    prompts = [[{"role": "user", "content": p}] for p in PROMPTS]
    completions = [[{"role": "assistant", "content": c}] for c in COMPLETIONS]
    assert trl_call(reward, prompts, completions, reference=REFERENCES) == oracle(COMPLETIONS, REFERENCES)
    # Multi-turn completions (tool use): the final assistant message is the answer.
    turns = [
        {"role": "assistant", "content": "", "tool_calls": [{"name": "lookup"}]},
        {"role": "tool", "content": "the cat"},
        {"role": "assistant", "content": "the cat sat"},
    ]
    assert trl_call(reward, prompts[:1], [turns], reference=[["the cat sat"]]) == [1.0]


def test_options_and_a_string_reference_per_example():
    reward = GleuReward("target", GLEU("char", lowercase=True, min_len=1, max_len=2), name="gleu_char")
    assert reward.__name__ == "gleu_char"
    got = trl_call(reward, ["p"], ["AB"], target=["ab"])
    assert got == [nltk_sentence([["a", "b"]], ["a", "b"], 1, 2)] == [1.0]


def test_trl_names_the_reward_after_the_function():
    trl_utils = pytest.importorskip("trl.trainer.utils")
    assert trl_utils.get_callable_name(GleuReward()) == "gleu"


def test_missing_reference_column_names_the_columns():
    reward = GleuReward("reference")
    with pytest.raises(
        ValueError, match=r"dataset column 'reference'; the trainer passed \['completion_ids', 'prompts', 'target'\]"
    ):
        trl_call(reward, PROMPTS, COMPLETIONS, target=REFERENCES)


@pytest.mark.parametrize(
    ("completions", "error", "message"),
    [
        ([42], TypeError, "completion 0 must be a str or a list of messages"),
        ([[{"role": "user", "content": "hi"}]], ValueError, "completion 0 has no assistant message"),
        ([[{"role": "assistant", "content": 3}]], TypeError, "message content must be a str"),
        ("the cat", TypeError, "completions must be a list"),
    ],
)
def test_bad_completions(completions, error, message):
    with pytest.raises(error, match=message):
        GleuReward()(completions, reference=[["the cat"]] * len(completions))


def test_bad_options_fail_at_construction():
    with pytest.raises(TypeError, match=r"scorer must be a google_bleu.GLEU .*got str"):
        GleuReward(scorer="char")
    with pytest.raises(TypeError, match="scorer must be a google_bleu.GLEU"):
        GleuReward(scorer=GLEU)  # the class, not a scorer
    with pytest.raises(TypeError, match="reference_key must be a non-empty str"):
        GleuReward(reference_key=["reference"])
    with pytest.raises(TypeError, match="log_metric must be callable"):
        GleuReward()(["a"], reference=["a"], log_metric="yes")


def test_precision_and_recall_reach_trls_own_metric_log():
    """The reward logs through GRPOTrainer's own _log_metric, which TRL averages per step."""
    grpo = pytest.importorskip("trl.trainer.grpo_trainer")
    from collections import defaultdict

    trainer = grpo.GRPOTrainer.__new__(grpo.GRPOTrainer)  # only the metric log, no model
    trainer._pending_metrics = defaultdict(list)
    reward = GleuReward(name="gleu")
    scores = reward(prompts=PROMPTS, completions=COMPLETIONS, reference=REFERENCES, log_metric=trainer._log_metric)
    stats = GLEU().stats(COMPLETIONS, REFERENCES).segment_scores()
    assert scores == [row[0] for row in stats]
    assert dict(trainer._pending_metrics) == {
        "gleu/precision": [float(sum(Fraction(row[1]) for row in stats) / 3)],
        "gleu/recall": [float(sum(Fraction(row[2]) for row in stats) / 3)],
    }


def test_logged_precision_and_recall_are_exact_means():
    # A plain sum then a division rounds more than once: on these 14 WMT17 segments it gave
    # 0.3432414963595458 and 0.3314998669011497 where the means are ...576 and ...974.
    system = read_lines(SAMPLES / "wmt17_en_de" / "sys_online-A.0.txt")[:14]
    reference = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")[:14]
    logged = {}
    GleuReward(name="gleu")(system, reference=reference, log_metric=logged.__setitem__)
    rows = GLEU().stats(system, reference).segment_scores()
    assert logged == {
        "gleu/precision": float(sum(Fraction(row[1]) for row in rows) / len(rows)),
        "gleu/recall": float(sum(Fraction(row[2]) for row in rows) / len(rows)),
    }


def test_async_reward_is_awaited_by_trls_own_check_and_equals_the_sync_one():
    import asyncio
    import pickle

    trl_utils = pytest.importorskip("trl.trainer.utils")
    from google_bleu.integrations.trl import AsyncGleuReward

    reward = AsyncGleuReward("reference", GLEU(lowercase=True), name="gleu_async")
    assert trl_utils.is_async_callable(reward) and not trl_utils.is_async_callable(GleuReward())
    assert trl_utils.get_callable_name(reward) == "gleu_async"
    logged = []
    got = asyncio.run(reward(completions=COMPLETIONS, reference=REFERENCES, log_metric=lambda *kv: logged.append(kv)))
    assert got == GleuReward("reference", GLEU(lowercase=True))(COMPLETIONS, reference=REFERENCES)
    assert [name for name, _ in logged] == ["gleu_async/precision", "gleu_async/recall"]
    again = pickle.loads(pickle.dumps(reward))
    assert type(again) is AsyncGleuReward and again.scorer == reward.scorer


def test_reference_counts_must_match():
    with pytest.raises(ValueError, match="completions and reference: completions has 2, reference has 1"):
        GleuReward()(["a", "b"], reference=[["a"]])


# -- one real GRPO step -------------------------------------------------------------------


def _example():
    """examples/grpo/train_gleu_grpo.py as a module (its model and tokenizer serve these tests too)."""
    import importlib.util

    pytest.importorskip("trl")
    spec = importlib.util.spec_from_file_location("train_gleu_grpo", REPO / "examples" / "grpo" / "train_gleu_grpo.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def _tiny_tokenizer():
    tokenizer = _example().build_tokenizer(["translate : le chat un chien the cat sat on a mat dog ate"])
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    return tokenizer


def _grpo_step(tmp_path, tokenizer, dataset, reward):
    """One real GRPO training step on CPU with this reward, as the example runs it: 8
    completions (4 for each of the 2 prompts) from a new tiny model."""
    return _example().train([reward], tokenizer, dataset, str(tmp_path))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning")  # transformers 5 renames gradient checkpointing
@pytest.mark.parametrize("conversational", [False, True])
def test_one_real_grpo_step(tmp_path, conversational):
    tokenizer = _tiny_tokenizer()
    from datasets import Dataset

    prompts = ["translate : le chat", "translate : un chien"]
    if conversational:
        prompts = [[{"role": "user", "content": p}] for p in prompts]
    dataset = Dataset.from_dict({"prompt": prompts, "reference": [["the cat sat on the mat"], ["a dog", "the dog"]]})
    gleu = GleuReward()
    calls = []

    def recorded_gleu(completions, **kwargs):
        rewards = gleu(completions, **kwargs)
        calls.append((completions, kwargs["reference"], rewards))
        return rewards

    recorded_gleu.__name__ = "gleu"
    trainer = _grpo_step(tmp_path, tokenizer, dataset, recorded_gleu)

    assert len(calls) == 1
    completions, references, rewards = calls[0]
    assert len(completions) == 8
    if conversational:
        assert all(c[0]["role"] == "assistant" for c in completions)
        texts = [c[0]["content"] for c in completions]
    else:
        texts = completions
    assert rewards == oracle(texts, references)
    logged = trainer.state.log_history[0]
    assert logged["rewards/gleu/mean"] == pytest.approx(sum(rewards) / 8, rel=1e-6)  # float32 in the trainer


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_one_real_grpo_step_with_the_async_reward_and_its_logged_metrics(tmp_path):
    """AsyncGleuReward awaited on TRL's own loop; precision and recall reach TRL's log."""
    from datasets import Dataset

    from google_bleu.integrations.trl import AsyncGleuReward

    tokenizer = _tiny_tokenizer()
    dataset = Dataset.from_dict(
        {"prompt": ["translate : le chat", "translate : un chien"], "reference": [["the cat sat"], ["a dog"]]}
    )
    gleu = AsyncGleuReward()
    calls = []

    async def recorded_gleu(completions, **kwargs):
        rewards = await gleu(completions, **kwargs)
        calls.append((completions, kwargs["reference"], rewards))
        return rewards

    recorded_gleu.__name__ = "gleu"
    trainer = _grpo_step(tmp_path, tokenizer, dataset, recorded_gleu)
    assert len(calls) == 1
    completions, references, rewards = calls[0]
    assert rewards == oracle(completions, references)
    rows = GLEU().stats(completions, references).segment_scores()
    logged = trainer.state.log_history[0]
    assert logged["rewards/gleu/mean"] == pytest.approx(sum(rewards) / 8, rel=1e-6)
    assert logged["gleu/precision"] == pytest.approx(sum(row[1] for row in rows) / 8, rel=1e-6)
    assert logged["gleu/recall"] == pytest.approx(sum(row[2] for row in rows) / 8, rel=1e-6)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_one_real_grpo_step_with_the_token_id_reward(tmp_path):
    """GleuIdReward in a real GRPO step: completion_ids against a reference-ids column, no decoding."""
    tokenizer = _tiny_tokenizer()
    from datasets import Dataset

    from google_bleu.integrations.trl import GleuIdReward

    references = ["the cat sat on the mat", "a dog"]
    reference_ids = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in references]
    dataset = Dataset.from_dict(
        {"prompt": ["translate : le chat", "translate : un chien"], "reference_ids": reference_ids}
    )
    gleu_ids = GleuIdReward("reference_ids", pad_id=tokenizer.eos_token_id)
    calls = []

    def recorded_gleu_ids(completions, completion_ids, **kwargs):
        rewards = gleu_ids(completions=completions, completion_ids=completion_ids, **kwargs)
        calls.append((completion_ids, kwargs["reference_ids"], rewards))
        return rewards

    recorded_gleu_ids.__name__ = gleu_ids.__name__
    trainer = _grpo_step(tmp_path, tokenizer, dataset, recorded_gleu_ids)

    assert len(calls) == 1
    completion_ids, column, rewards = calls[0]
    assert len(completion_ids) == 8
    eos = tokenizer.eos_token_id
    expected = [nltk_sentence([ref], [t for t in ids if t != eos]) for ids, ref in zip(completion_ids, column)]
    assert rewards == expected
    logged = trainer.state.log_history[0]
    assert logged["rewards/gleu_ids/mean"] == pytest.approx(sum(rewards) / 8, rel=1e-6)


# -- the example of docs/rl-rewards.md: examples/grpo/train_gleu_grpo.py ---------------------
def _recorded(reward, calls):
    """``reward`` under its own name, sync or async as it is, keeping each call's batch and result."""
    import inspect

    def keep(kwargs, rewards):
        calls.setdefault(reward.__name__, []).append((kwargs, rewards))
        return rewards

    if inspect.iscoroutinefunction(reward.__call__):

        async def recorded(**kwargs):
            return keep(kwargs, await reward(**kwargs))
    else:

        def recorded(**kwargs):
            return keep(kwargs, reward(**kwargs))

    recorded.__name__ = reward.__name__
    return recorded


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning")  # transformers 5 renames gradient checkpointing
def test_the_grpo_example_scores_every_completion_with_the_three_rewards(tmp_path, monkeypatch, capsys):
    import re

    example = _example()
    calls: dict[str, list] = {}
    built = example.gleu_rewards
    monkeypatch.setattr(example, "gleu_rewards", lambda tokenizer: [_recorded(r, calls) for r in built(tokenizer)])
    monkeypatch.chdir(tmp_path)  # run as a reader would, from a folder of their own
    trainer = example.main()

    assert trainer.state.global_step == 1
    assert sorted(calls) == ["gleu", "gleu_async", "gleu_ids"] and all(len(batches) == 1 for batches in calls.values())
    prompts, references = example.segments()
    per_completion = [refs for refs in references for _ in range(example.NUM_GENERATIONS)]
    logged = trainer.state.log_history[0]
    for name in ("gleu", "gleu_async"):  # the text, scored directly: nltk on 13a tokens
        ((kwargs, rewards),) = calls[name]
        assert kwargs["references"] == per_completion and len(kwargs["completions"]) == 8
        assert rewards == oracle(kwargs["completions"], per_completion)
        assert logged[f"rewards/{name}/mean"] == pytest.approx(sum(rewards) / 8, rel=1e-6)  # float32 in TRL
        assert len(set(rewards)) > 1  # not all alike (nor all zero): GRPO had something to learn from
    ((kwargs, rewards),) = calls["gleu_ids"]  # the ids, scored directly: nltk on the ids without EOS
    eos = trainer.processing_class.eos_token_id
    expected = [
        nltk_sentence(refs, [t for t in ids if t != eos])
        for ids, refs in zip(kwargs["completion_ids"], kwargs["reference_ids"])
    ]
    assert rewards == expected and len(expected) == 8
    assert kwargs["reference_ids"] == [
        trainer.processing_class(refs, add_special_tokens=False)["input_ids"] for refs in per_completion
    ]
    assert logged["rewards/gleu_ids/mean"] == pytest.approx(sum(rewards) / 8, rel=1e-6)

    # It prints what docs/rl-rewards.md shows, after the command that runs it.
    printed = capsys.readouterr().out
    guide = (REPO / "docs" / "rl-rewards.md").read_text("utf-8")
    (block,) = re.findall(r"<!-- rl-grpo-example -->\n```text\n(.*?)\n```", guide, re.DOTALL)
    shown = block.split("$ python examples/grpo/train_gleu_grpo.py\n", 1)[1]
    assert printed == shown + "\n"
    assert "--index-url https://download.pytorch.org/whl/cpu" in block  # torch's CPU build, before TRL


def _named_rewards(name: str) -> dict:
    """One reward of every Reward subclass, named ``name``."""
    from google_bleu.integrations import areal, openrlhf, slime, trl, verifiers

    return {
        "trl.GleuReward": trl.GleuReward(name=name),
        "trl.AsyncGleuReward": trl.AsyncGleuReward(name=name),
        "trl.GleuIdReward": trl.GleuIdReward(name=name),
        "areal.GleuReward": areal.GleuReward(name=name),
        "openrlhf.OpenRLHFReward": openrlhf.OpenRLHFReward([], name=name),
        "verifiers.VerifiersReward": verifiers.make_gleu_reward(name=name),
        "slime.GleuReward": slime.GleuReward(name=name),
        "slime.GleuIdReward": slime.GleuIdReward(name=name),
    }


@pytest.mark.parametrize("kind", list(_named_rewards("gleu")))
def test_every_reward_keeps_its_name_through_a_copy(kind):
    # slime's rewards lost their name when pickled or copied, and two of different names
    # compared equal and hashed alike.
    import copy
    import pickle

    from google_bleu.integrations._reward import Reward

    first, second = _named_rewards("gleu_a")[kind], _named_rewards("gleu_b")[kind]
    for copied in (pickle.loads(pickle.dumps(first)), copy.copy(first), copy.deepcopy(first)):
        assert copied.__name__ == "gleu_a" and copied == first and hash(copied) == hash(first)
    assert first != second and first.__name__ != second.__name__
    assert {first, second} == {second, first} and len({first, second}) == 2
    # every Reward subclass is in the table above
    def subclasses(cls):
        return {cls, *(sub for child in cls.__subclasses__() for sub in subclasses(child))}

    assert {type(reward) for reward in _named_rewards("x").values()} == subclasses(Reward) - {Reward}
