"""The verifiers reward against the real verifiers 0.4.0 (``import verifiers.v1 as vf``).

verifiers runs it as it runs any task reward: ``vf-eval`` loads the guide's TOML (its
``[env.taskset.task.rewards]`` and ``[env.taskset.task.metrics]`` entries) onto the WMT17
taskset beside this file, plays each task with its ``null`` chat harness against the local
model of conftest.py (real WMT17 system outputs), and scores the finished rollouts; the same
TOML, parsed by verifiers' own command-line parser, scores all 1,200 translations of the
sample through ``Task.score``. Every reward ``==`` ``GLEU().sentence_score`` of the system's
translation against the reference.
"""

from __future__ import annotations

import asyncio
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import verifiers.v1 as vf
from pydantic_config import cli
from verifiers.v1.cli.resolve import narrow_config
from verifiers.v1.configs.agent import WireAgentConfig
from verifiers.v1.configs.cli.eval import EvalConfig
from verifiers.v1.errors import TaskError
from verifiers.v1.utils.trace_store import read_episodes
from wmt17_gleu import SYSTEMS, TranslationData, TranslationTask

from conftest import KEY_VAR, guide_block
from google_bleu import GLEU
from google_bleu.integrations.verifiers import VerifiersReward, gleu_reward, make_gleu_reward
from tests.helpers.readme_snippets import claimed_output, run_script

VF_EVAL = str(Path(sys.executable).parent / "vf-eval")
TraceRecord = vf.Trace[vf.WireTaskData, vf.State, WireAgentConfig]


def test_verifiers_version():
    import verifiers

    assert verifiers.__version__ == "0.4.0"


def write_guide_files(folder: Path) -> Path:
    """The guide's eval.toml and my_rewards.py, as a reader saves them."""
    (folder / "my_rewards.py").write_text(guide_block("test: rl-verifiers-rewards") + "\n", "utf-8")
    toml = folder / "eval.toml"
    toml.write_text(guide_block("rl-verifiers-toml") + "\n", "utf-8")
    return toml


def vf_eval(folder: Path, env: dict, model, *args: str) -> list:
    """``vf-eval @ eval.toml`` in ``folder`` on the WMT17 taskset against the local model, as
    a user runs it (the harness and runtime named by flags); the run's saved traces."""
    command = [
        VF_EVAL,
        "@",
        "eval.toml",
        "--env.taskset.id",
        "wmt17_gleu",
        *args,
        "--model",
        "wmt17-systems",
        "--client.base-url",
        model.base_url,
        "--client.api-key-var",
        KEY_VAR,
        "--env.agent.harness.id",
        "null",
        "--env.agent.runtime.type",
        "subprocess",
        "--no-push",
        "--no-rich",
        "-o",
        "outputs",
        "--run.name",
        "run",
    ]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stderr[-4000:]
    episodes = read_episodes(folder / "outputs" / "run", TraceRecord)
    return [trace for episode in episodes for trace in episode.traces]


def test_the_guides_toml_in_vf_eval_scores_real_rollouts_exactly(tmp_path, vf_env, wmt17_model, wmt17):
    write_guide_files(tmp_path)
    before = len(wmt17_model.replies)
    traces = vf_eval(tmp_path, vf_env, wmt17_model, "--env.taskset.num-segments", "3")
    assert len(traces) == 12  # 3 segments of each of the 4 systems
    served = sorted(wmt17_model.replies[before:])
    scored = []
    for trace in traces:
        data = trace.task.data
        system, segment = data.system, data.segment
        translation, reference = wmt17["systems"][system][segment], wmt17["reference"][segment]
        assert trace.errors == [] and trace.last_reply == translation.strip()
        gleu = GLEU().sentence_score(translation, reference).score
        assert trace.rewards["gleu"].score == gleu and trace.rewards["gleu"].weight == 1.0
        assert trace.metrics == {"gleu_intl": GLEU(tokenizer="intl").sentence_score(translation, [reference]).score}
        assert trace.reward == gleu
        scored.append((system, segment, translation))
    assert sorted(scored) == served == sorted((s, i, wmt17["systems"][s][i]) for s in SYSTEMS for i in range(3))
    assert len({trace.rewards["gleu"].score for trace in traces}) > 6  # real, varied scores


def test_a_missing_field_fails_the_rollout_with_the_message(tmp_path, vf_env, wmt17_model):
    (tmp_path / "rewards.py").write_text(
        "from google_bleu.integrations.verifiers import make_gleu_reward\n"
        "gleu_reference = make_gleu_reward(field='reference')\n",
        "utf-8",
    )
    (tmp_path / "eval.toml").write_text(
        '[env.taskset]\nid = "wmt17_gleu"\n\n'
        '[env.taskset.task.rewards]\ngleu = { fn = "rewards.py:gleu_reference", weight = 1.0 }\n',
        "utf-8",
    )
    (trace,) = vf_eval(tmp_path, vf_env, wmt17_model, "-n", "1")
    assert trace.rewards == {"gleu": None} and trace.reward == 0
    assert [error.type for error in trace.errors] == ["TaskError"]
    assert trace.errors[0].message == (
        "task TranslationTask scoring: ValueError: the GLEU reward reads the references from the task's "
        "'reference' field; the task's data (TranslationData) sets "
        "['answer', 'id', 'idx', 'prompt', 'references', 'segment', 'system']"
    )


def load_eval_config(monkeypatch, folder: Path, *args: str) -> EvalConfig:
    """The config ``vf-eval`` builds from its argv (verifiers.v1.cli.eval.main): narrowed to
    the taskset's config type, then parsed by prime-pydantic-config."""
    argv = ["@", str(folder / "eval.toml"), *args]
    config_type = narrow_config(EvalConfig, argv)
    monkeypatch.setattr(sys, "argv", ["vf-eval", *argv])
    return cli(config_type)


def trace_of(task: vf.Task, reply: str) -> vf.Trace:
    """A trace as verifiers' own entry points start one (vf-debug, vf-validate), holding the
    reply as a sampled assistant message, as the model's turn leaves it."""
    trace = vf.Trace(
        task=vf.TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
        agent=vf.AgentInfo(config=vf.AgentConfig(runtime=vf.SubprocessConfig())),
    )
    trace.nodes.append(vf.MessageNode(message=vf.AssistantMessage(content=reply), sampled=True))
    return trace


async def score_all(tasks, replies) -> list[vf.Trace]:
    traces = [trace_of(task, reply) for task, reply in zip(tasks, replies)]
    await asyncio.gather(*(task.score(trace) for task, trace in zip(tasks, traces)))
    return traces


def test_every_wmt17_translation_through_the_toml_and_task_score(tmp_path, monkeypatch, wmt17):
    write_guide_files(tmp_path)
    monkeypatch.chdir(tmp_path)  # fn = "my_rewards.py:..." is relative to the run's directory
    config = load_eval_config(monkeypatch, tmp_path, "--env.taskset.id", "wmt17_gleu")
    rewards = config.env.taskset.task.rewards
    assert rewards["gleu"].fn == "google_bleu.integrations.verifiers:gleu_reward" and rewards["gleu"].weight == 1.0
    env = vf.load_environment(config.env)
    tasks = list(env.taskset)
    assert len(tasks) == 1200
    translations = [wmt17["systems"][task.data.system][task.data.segment] for task in tasks]
    traces = asyncio.run(score_all(tasks, translations))
    references = [wmt17["reference"][task.data.segment] for task in tasks]
    expected = GLEU().sentence_scores(translations, references)
    assert expected == [GLEU().sentence_score(t, r).score for t, r in zip(translations, references)]
    assert [trace.rewards["gleu"].score for trace in traces] == expected
    assert [trace.reward for trace in traces] == expected
    intl = GLEU(tokenizer="intl").sentence_scores(translations, [[r] for r in references])
    assert [trace.metrics["gleu_intl"] for trace in traces] == intl
    assert intl != expected  # the other tokenizer is used


class MarkedTask(TranslationTask):
    """A taskset's own rewards: a ``@vf.reward`` method awaiting ``gleu_reward``, and a
    ``make_gleu_reward`` object (pickled and back) marked with ``vf.reward`` in the class body."""

    @vf.reward(weight=0.5)
    async def gleu(self, trace: vf.Trace) -> float:
        return await gleu_reward(self.data, trace)

    gleu_lc = vf.reward(
        pickle.loads(pickle.dumps(make_gleu_reward(GLEU(lowercase=True), field="references", name="gleu_lc"))),
        weight=0.25,
    )


def test_decorated_rewards_of_a_task_on_every_translation(wmt17):
    from wmt17_gleu import WMT17Config, WMT17Taskset

    tasks = [MarkedTask(task.data, task.config) for task in WMT17Taskset(WMT17Config())]
    assert [fn.__name__ for fn in tasks[0].hooks("reward")] == ["gleu", "gleu_lc"]
    translations = [wmt17["systems"][task.data.system][task.data.segment] for task in tasks]
    references = [wmt17["reference"][task.data.segment] for task in tasks]
    traces = asyncio.run(score_all(tasks, translations))
    cased = GLEU().sentence_scores(translations, references)
    lowercased = GLEU(lowercase=True).sentence_scores(translations, references)
    assert [trace.rewards["gleu"].score for trace in traces] == cased
    assert [trace.rewards["gleu_lc"].score for trace in traces] == lowercased
    assert {(t.rewards["gleu"].weight, t.rewards["gleu_lc"].weight) for t in traces} == {(0.5, 0.25)}
    assert [trace.reward for trace in traces] == [0.5 * a + 0.25 * b for a, b in zip(cased, lowercased)]


def test_several_references_in_a_list(wmt17):
    reward = make_gleu_reward(field="references")
    reference, other = wmt17["reference"], wmt17["systems"]["uedin-nmt.4722"]
    hypotheses = wmt17["systems"]["online-B.0"]
    tasks = [
        TranslationTask(
            TranslationData(
                prompt="p", system="online-B.0", segment=i, answer=reference[i], references=[reference[i], other[i]]
            )
        )
        for i in range(300)
    ]
    traces = [trace_of(task, hypothesis) for task, hypothesis in zip(tasks, hypotheses)]
    got = [asyncio.run(reward(task.data, trace)) for task, trace in zip(tasks, traces)]
    assert got == [GLEU().sentence_score(h, [r, o]).score for h, r, o in zip(hypotheses, reference, other)]
    assert got != [GLEU().sentence_score(h, r).score for h, r in zip(hypotheses, reference)]


def test_guide_block_prints_what_it_says(tmp_path):
    code = guide_block("test: rl-verifiers")
    done = run_script(code + "\n", tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    claimed = claimed_output(code)
    score = GLEU().sentence_score("the cat sat on the mat", "the cat ate the mat").score
    assert done.stdout.strip().splitlines() == claimed == [f"{score} {score}"]


# -- bad input, through verifiers' own classes ------------------------------------------


def wmt17_task(wmt17, **update) -> TranslationTask:
    data = TranslationData(
        prompt="p", system="online-B.0", segment=0, answer=wmt17["reference"][0], references=[wmt17["reference"][0]]
    )
    return TranslationTask(data.model_copy(update=update))


def plugged(fn: str, field_task: vf.TaskData) -> vf.Task:
    config = vf.TaskConfig.model_validate({"rewards": {"gleu": {"fn": fn, "weight": 1.0}}})
    return vf.Task(field_task, config)


def test_a_missing_field_is_named_with_the_fields_the_task_sets(wmt17):
    task = plugged("google_bleu.integrations.verifiers:gleu_reward", vf.TaskData(prompt="p", name="n"))
    trace = trace_of(task, wmt17["systems"]["online-B.0"][0])
    with pytest.raises(TaskError) as raised:
        asyncio.run(task.score(trace))
    cause = raised.value.__cause__
    assert isinstance(cause, ValueError)
    assert str(cause) == (
        "the GLEU reward reads the references from the task's 'answer' field; the task's data (TaskData) sets "
        "['name', 'prompt']"
    )
    assert trace.rewards == {"gleu": None}


def test_a_field_without_reference_text_is_refused(wmt17):
    for value, message in (
        (3, "task.answer must be a str or a list of str, got int"),
        (None, "task.answer must be a str or a list of str, got NoneType"),
        ([b"Die Katze"], "task.answer[0] must be a str, got bytes"),
    ):
        task = plugged("google_bleu.integrations.verifiers:gleu_reward", vf.WireTaskData(prompt="p", answer=value))
        with pytest.raises(TaskError) as raised:
            asyncio.run(task.score(trace_of(task, "a")))
        assert isinstance(raised.value.__cause__, TypeError)
        assert str(raised.value.__cause__).startswith(message)
    # an empty list is text of the right kind with no reference: the package-wide ValueError
    task = plugged("google_bleu.integrations.verifiers:gleu_reward", vf.WireTaskData(prompt="p", answer=[]))
    with pytest.raises(TaskError) as raised:
        asyncio.run(task.score(trace_of(task, "a")))
    assert isinstance(raised.value.__cause__, ValueError)
    assert str(raised.value.__cause__) == "task.answer has no reference; every prediction needs at least one"


def test_a_trace_and_reply_that_are_not_text_are_refused(wmt17):
    task = wmt17_task(wmt17)
    with pytest.raises(TypeError, match=r"trace must be a verifiers Trace \(it has last_reply\), got str"):
        asyncio.run(gleu_reward(task.data, "Die Katze"))
    trace = trace_of(task, "Die Katze")
    trace.root_reply = b"Die Katze"  # a root reply that is not text (pydantic does not check assignment)
    with pytest.raises(TypeError, match="trace.last_reply must be a str, got bytes"):
        asyncio.run(gleu_reward(task.data, trace))
    with pytest.raises(
        TypeError, match=r"task must be the task's data, a verifiers TaskData \(in a Task method: self.data\)"
    ):
        asyncio.run(gleu_reward(task, trace_of(task, "Die Katze")))


def test_settings_are_one_scorer():
    with pytest.raises(TypeError, match="scorer must be a google_bleu.GLEU"):
        make_gleu_reward("intl")
    # the settings as keywords are the same scorer; both ways at once, or an unknown keyword, are refused
    assert make_gleu_reward(tokenizer="intl").scorer == GLEU(tokenizer="intl")
    with pytest.raises(TypeError, match="not both"):
        make_gleu_reward(GLEU(), tokenizer="intl")
    with pytest.raises(TypeError, match="unexpected keyword"):
        make_gleu_reward(tokenizerr="intl")
    with pytest.raises(TypeError, match="field must be a non-empty str"):
        make_gleu_reward(field="")
    with pytest.raises(ValueError, match="name must not be empty"):
        make_gleu_reward(name="")
    reward = make_gleu_reward(GLEU(tokenizer="char"), field="references", name="gleu_char")
    copy = pickle.loads(pickle.dumps(reward))
    assert isinstance(copy, VerifiersReward)
    assert (copy.scorer, copy.field, copy.__name__) == (GLEU(tokenizer="char"), "references", "gleu_char")
