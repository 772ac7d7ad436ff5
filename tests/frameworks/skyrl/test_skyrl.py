"""The GLEU environment inside skyrl-gym 0.4 itself: registered with ``skyrl_gym.register``,
made with ``skyrl_gym.make`` the way SkyRL's generator makes one per trajectory
(``make(env_class, env_config=..., extras=row["env_extras"])``), then ``init`` and ``step``,
run in a thread pool as SkyRL's generator runs its environments. Every reward is compared
(``==``) with ``GLEU(...).sentence_score`` of that WMT17 line.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import skyrl_gym
from omegaconf import DictConfig
from skyrl_gym.envs.base_text_env import BaseTextEnv
from skyrl_gym.envs.registration import registry
from skyrl_gym.metrics import aggregate_for_environment

from google_bleu import GLEU
from google_bleu.integrations.skyrl import GleuEnv, gleu_env
from tests.helpers.readme_snippets import claimed_output, python_blocks, run_script

REPO = Path(__file__).resolve().parents[3]
ENTRY_POINT = "google_bleu.integrations.skyrl:GleuEnv"


@pytest.fixture
def registered():
    """Ids registered by a test, removed after it (skyrl-gym's registry is process-wide)."""
    ids = []

    def register(env_id: str, entry_point) -> str:
        skyrl_gym.register(id=env_id, entry_point=entry_point)
        ids.append(env_id)
        return env_id

    yield register
    for env_id in ids:
        skyrl_gym.envs.registration.deregister(env_id)


def rows(wmt17, several: bool = False) -> list[tuple[str, object]]:
    """(response, ground truth) for every segment of the 4 systems; with ``several``, the
    next system's line is a second reference."""
    systems = list(wmt17["systems"].values())
    out = []
    for s, system in enumerate(systems):
        for i, line in enumerate(system):
            truth = [wmt17["reference"][i], systems[(s + 1) % 4][i]] if several else wmt17["reference"][i]
            out.append((line, truth))
    return out


def trajectory(env_class: str, response: str, truth) -> tuple[float, dict, dict]:
    """One trajectory as SkyRL's generator runs it: make from the row, init, step, close."""
    extras = {"reward_spec": {"method": "rule", "ground_truth": truth}, "max_turns": 1}
    env = skyrl_gym.make(env_class, env_config=DictConfig({}), extras=extras)
    assert isinstance(env, BaseTextEnv)
    prompt = [{"role": "user", "content": "Translate into German."}]
    observation, _ = env.init(prompt)
    assert observation == prompt
    out = env.step(response)
    assert out["done"] is True and out["observations"] == []
    metrics = env.get_metrics()
    env.close()
    return out["reward"], out["metadata"], metrics


def run_in_threads(env_class: str, samples) -> list[tuple[float, dict, dict]]:
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(lambda sample: trajectory(env_class, *sample), samples))


@pytest.mark.parametrize("several", [False, True], ids=["one-reference", "two-references"])
def test_registered_by_its_dotted_entry_point_and_stepped_in_threads(several, wmt17, registered):
    env_class = registered("gleu", ENTRY_POINT)
    samples = rows(wmt17, several)
    out = run_in_threads(env_class, samples)
    expected = [GLEU().sentence_score(line, truth) for line, truth in samples]
    assert [reward for reward, _, _ in out] == [result.score for result in expected]
    assert [metadata for _, metadata, _ in out] == [
        {"gleu_precision": result.precision, "gleu_recall": result.recall} for result in expected
    ]
    # SkyRL averages each episode's metrics per environment class with the class's own aggregator.
    aggregated = aggregate_for_environment(env_class, [metrics for _, _, metrics in out])
    assert aggregated["gleu"] == sum(result.score for result in expected) / len(expected)
    assert set(aggregated) == {"gleu", "gleu_precision", "gleu_recall"}


def test_a_creator_with_its_scorer_changes_the_settings(wmt17, registered):
    scorer = GLEU(lowercase=True, min_len=2, max_len=3)
    env_class = registered("gleu_lc", gleu_env(scorer))
    samples = rows(wmt17)[::5]
    rewards = [reward for reward, _, _ in run_in_threads(env_class, samples)]
    assert rewards == [scorer.sentence_score(line, truth).score for line, truth in samples]
    assert rewards != [GLEU().sentence_score(line, truth).score for line, truth in samples]
    # The creator is checked once and shared: every environment holds the same scorer object.
    creator = registry[env_class].entry_point
    first = skyrl_gym.make(env_class, env_config={}, extras={"reward_spec": {"ground_truth": "a"}})
    second = skyrl_gym.make(env_class, env_config={}, extras={"reward_spec": {"ground_truth": "b"}})
    assert first.scorer is second.scorer is creator.keywords["scorer"]


def test_a_row_without_ground_truth_fails_at_make_naming_what_it_has(registered):
    env_class = registered("gleu", ENTRY_POINT)
    message = r"reads the references from extras\['reward_spec'\]\['ground_truth'\]; the reward_spec has \['method'\]"
    with pytest.raises(ValueError, match=message):
        skyrl_gym.make(env_class, env_config={}, extras={"reward_spec": {"method": "rule"}})
    with pytest.raises(ValueError, match=r"the extras have \['ground_truth'\]"):
        skyrl_gym.make(env_class, env_config={}, extras={"ground_truth": "x"})
    with pytest.raises(TypeError, match=r"reward_spec\['ground_truth'\] must be a str or a list of str, got int 3"):
        skyrl_gym.make(env_class, env_config={}, extras={"reward_spec": {"ground_truth": 3}})


def test_bad_actions_and_scorers_are_refused(registered):
    env_class = registered("gleu", ENTRY_POINT)
    env = skyrl_gym.make(env_class, env_config={}, extras={"reward_spec": {"ground_truth": "a b"}})
    with pytest.raises(TypeError, match=r"action \(the response text\) must be a str, got list"):
        env.step(["a", "b"])
    assert env.get_metrics() == {} and env.turns == 0  # a refused step changes nothing
    with pytest.raises(TypeError, match=r"scorer must be a google_bleu.GLEU"):
        gleu_env("13a")
    with pytest.raises(TypeError, match=r"scorer must be a google_bleu.GLEU"):
        GleuEnv(extras={"reward_spec": {"ground_truth": "a"}}, scorer={"lowercase": True})


def test_guide_block_prints_what_it_says(tmp_path):
    (block,) = [block for block in python_blocks() if block.name == "rl-skyrl"]
    done = run_script(block.source(), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    claimed = claimed_output(block.code)
    assert done.stdout.strip().splitlines() == claimed
    score = GLEU().sentence_score("the cat sat on the mat", "the cat ate the mat").score
    assert claimed[0] == f"{score} True"
