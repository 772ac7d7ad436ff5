"""google-bleu's veRL reward inside veRL 0.9.1 itself: the Reward Loop, veRL's only reward path.

veRL loads ``reward.custom_reward_function.{path,name}`` with its own loader
(``verl.trainer.ppo.reward.get_custom_reward_fn`` -> ``verl.utils.import_utils.load_extern_object``,
``reward_kwargs`` bound with ``functools.partial``) inside ``RewardLoopWorker``, which builds the
configured reward manager (``naive`` by default) and scores a batch with one task a sample
(``compute_score_batch`` -> ``NaiveRewardManager.run_single``): a sync reward runs in the loop's
thread pool, an async one is awaited on the loop. The tests build that worker from the config
veRL composes out of its packaged ``ppo_trainer.yaml`` and run it in-process (in training it is a
Ray actor; the last test runs it so, through ``RewardLoopManager``), on the bundled WMT17
sample; every reward is compared (``==``) with ``GLEU(...).sentence_score`` of that line.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml
from omegaconf import OmegaConf
from verl.experimental.reward_loop import RewardLoopWorker
from verl.experimental.reward_loop.reward_manager import NaiveRewardManager

from conftest import PACKAGE, REWARD_FILE, compose, references, reward_overrides, rollout_batch, verl_config_dir
from google_bleu import GLEU
from google_bleu.integrations import verl as gleu_verl

REPO = PACKAGE.parent
GUIDE = REPO / "docs" / "rl-rewards.md"
NAMES = ["compute_score", "compute_score_gathered"]


@pytest.fixture(autouse=True)
def event_loop_of_the_worker():
    """``RewardLoopWorker`` keeps ``asyncio.get_event_loop()`` (veRL's ``get_event_loop``) and drives
    it with ``run_until_complete``, as a Ray actor's thread does: a fresh loop per test."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()


def printed_path() -> str:
    """The path ``python -m google_bleu.verl_reward`` prints, as the guide tells users to get it."""
    out = subprocess.run([sys.executable, "-m", "google_bleu.verl_reward"], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def score_batch(worker: RewardLoopWorker, samples) -> list[dict]:
    """What a Ray call of ``worker.compute_score_batch.remote(chunk)`` runs, on the worker's loop."""
    data = rollout_batch(samples, worker.input_tokenizer)
    return worker.loop.run_until_complete(worker.compute_score_batch(data))


def expected_rows(samples, scorer: GLEU) -> list[dict]:
    rows = []
    for line, truth in samples:
        result = scorer.sentence_score(line, references(truth))
        rows.append({"score": result.score, "precision": result.precision, "recall": result.recall})
    return rows


def raw_reward(worker: RewardLoopWorker):
    """The function veRL loaded (its manager holds ``partial(_call_with_kwargs[_async], raw_fn, reward_kwargs)``)."""
    return worker.reward_manager.compute_score.args[0]


# -- the Reward Loop, sync and async ----------------------------------------------------------


def test_the_tokenizer_round_trips_every_line(wmt17, tokenizer_dir):
    # What run_single decodes must be the line itself, so the rewards below score the WMT17 text.
    from verl.utils import hf_tokenizer

    tokenizer = hf_tokenizer(str(tokenizer_dir))
    for line, _ in wmt17:
        ids = tokenizer(line, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        assert tokenizer.decode(ids, skip_special_tokens=True) == line


@pytest.mark.parametrize("name", NAMES)
def test_reward_loop_scores_the_shipped_file_exactly(name, wmt17, tokenizer_dir):
    config = compose(reward_overrides(printed_path(), name, tokenizer_dir))
    assert config.reward.reward_manager.name == "naive" and config.reward.reward_manager.source == "register"
    worker = RewardLoopWorker(config)
    manager = worker.reward_manager
    assert type(manager) is NaiveRewardManager
    # veRL awaits an async reward on its loop and runs a plain one in its thread pool.
    assert manager.is_async_reward_score is (name == "compute_score_gathered")
    before = gleu_verl.gathered.counts()

    out = score_batch(worker, wmt17)

    expected = expected_rows(wmt17, GLEU())
    assert [o["reward_score"] for o in out] == [row["score"] for row in expected]
    assert [o["reward_extra_info"] for o in out] == expected
    # RewardLoopManager.compute_rm_score puts each score on the last response token, in float32.
    data = rollout_batch(wmt17, worker.input_tokenizer)
    rm_scores = type(manager).assemble_rm_scores(data, [o["reward_score"] for o in out])
    assert rm_scores.sum(-1).tolist() == torch.tensor([row["score"] for row in expected]).tolist()
    calls = gleu_verl.gathered.counts()["calls"] - before["calls"]
    batches = gleu_verl.gathered.counts()["batches"] - before["batches"]
    if name == "compute_score_gathered":
        # 1,200 concurrent run_single tasks: scored in batches of up to 64, not one by one.
        assert calls == len(wmt17) and len(wmt17) / 64 <= batches < len(wmt17) / 8
    else:
        assert calls == batches == 0


@pytest.mark.parametrize("name", NAMES)
def test_reward_kwargs_on_the_command_line_change_the_settings(name, wmt17, tokenizer_dir):
    samples = wmt17[::6]
    settings = [
        "+reward.custom_reward_function.reward_kwargs.lowercase=true",
        "+reward.custom_reward_function.reward_kwargs.min_len=2",
        "+reward.custom_reward_function.reward_kwargs.max_len=3",
    ]
    worker = RewardLoopWorker(compose(reward_overrides(REWARD_FILE, name, tokenizer_dir, *settings)))
    out = score_batch(worker, samples)
    expected = expected_rows(samples, GLEU(lowercase=True, min_len=2, max_len=3))
    assert [o["reward_extra_info"] for o in out] == expected
    assert expected != expected_rows(samples, GLEU())


@pytest.mark.parametrize("name", NAMES)
def test_a_misspelt_reward_kwarg_fails_naming_it(name, wmt17, tokenizer_dir):
    typo = "+reward.custom_reward_function.reward_kwargs.lower_case=true"
    worker = RewardLoopWorker(compose(reward_overrides(REWARD_FILE, name, tokenizer_dir, typo)))
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['lower_case'\]: reward_kwargs may set"):
        score_batch(worker, wmt17[:8])


def test_the_keywords_verl_adds_for_a_reward_model_are_accepted(wmt17, tokenizer_dir, tmp_path):
    """With a reward model enabled, veRL's reward managers add ``reward_router_address`` and
    ``reward_model_tokenizer`` to every call; the reward takes them and scores as before."""
    # A reward file that records the keywords veRL calls it with, then calls the shipped reward.
    recorder = tmp_path / "recording_reward.py"
    recorder.write_text(
        "from google_bleu.verl_reward import compute_score as gleu\n"
        "KEYWORDS = []\n\n\n"
        "def compute_score(**kwargs):\n"
        "    KEYWORDS.append(sorted(kwargs))\n"
        "    return gleu(**kwargs)\n",
        "utf-8",
    )
    samples = wmt17[::10]
    for path, name in [(recorder, "compute_score"), (REWARD_FILE, "compute_score_gathered")]:
        config = compose(
            reward_overrides(
                path,
                name,
                tokenizer_dir,
                "reward.reward_model.enable=true",
                f"reward.reward_model.model_path={tokenizer_dir}",
            )
        )
        # RewardLoopManager starts each worker with its reward router's address.
        worker = RewardLoopWorker(config, reward_router_address="127.0.0.1:30000")
        assert worker.reward_manager.reward_router_address == "127.0.0.1:30000"
        assert worker.reward_manager.reward_model_tokenizer is not None
        out = score_batch(worker, samples)
        assert [o["reward_extra_info"] for o in out] == expected_rows(samples, GLEU())
        if path == recorder:
            assert raw_reward(worker).__globals__["KEYWORDS"] == [
                ["data_source", "extra_info", "ground_truth", "reward_model_tokenizer", "reward_router_address"]
                + ["solution_str"]
            ] * len(samples)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("copy", id="a-copy-of-the-file"),
        pytest.param("file://copy", id="file-url"),
        pytest.param("pkg://google_bleu.integrations.verl", id="pkg-path"),
    ],
)
def test_the_loader_takes_a_copy_of_the_file_and_pkg_paths(path, wmt17, tokenizer_dir, tmp_path):
    copy = tmp_path / "my_reward.py"
    copy.write_text(REWARD_FILE.read_text("utf-8"), "utf-8")
    path = path.replace("copy", str(copy))
    samples = wmt17[::30]
    for name in NAMES:
        worker = RewardLoopWorker(compose(reward_overrides(path, name, tokenizer_dir)))
        assert [o["reward_extra_info"] for o in score_batch(worker, samples)] == expected_rows(samples, GLEU())


# -- the guide's config against veRL's own schema ------------------------------------------------


def guide_section() -> str:
    text = GUIDE.read_text("utf-8")
    return text[text.index("\n## veRL\n") :].split("\n## ", 2)[1]


def guide_yaml_blocks() -> list[dict]:
    blocks = re.findall(r"```text\n(reward:\n.*?)\n```", guide_section(), re.DOTALL)
    assert len(blocks) == 2  # compute_score with reward_kwargs, compute_score_gathered
    return [yaml.safe_load(block) for block in blocks]


def leaf_keys(node: dict, prefix: str = "") -> list[str]:
    keys = []
    for key, value in node.items():
        path = f"{prefix}{key}"
        keys += leaf_keys(value, f"{path}.") if isinstance(value, dict) else [path]
    return keys


def test_guide_yaml_keys_exist_in_verl_ppo_trainer_config(wmt17, tokenizer_dir, tmp_path):
    stock = compose([])
    absent = object()
    samples = wmt17[::12]
    for block in guide_yaml_blocks():
        assert block["reward"]["custom_reward_function"]["path"] == "google_bleu/verl_reward.py"
        for key in leaf_keys(block):
            # reward_kwargs is the one free-form mapping: veRL reads it with .get("reward_kwargs", {}).
            if not key.startswith("reward.custom_reward_function.reward_kwargs."):
                assert OmegaConf.select(stock, key, default=absent) is not absent, key
        # The block as a user's config on top of ppo_trainer (Hydra's defaults list), path as printed.
        block["reward"]["custom_reward_function"]["path"] = printed_path()
        user = {"defaults": ["ppo_trainer", "_self_"], **block}
        user["actor_rollout_ref"] = {"model": {"path": str(tokenizer_dir)}}
        (tmp_path / "gleu_ppo.yaml").write_text(yaml.safe_dump(user), "utf-8")
        config = compose(
            [f"hydra.searchpath=[file://{verl_config_dir()}]"], config_name="gleu_ppo", config_dir=str(tmp_path)
        )
        settings = dict(block["reward"]["custom_reward_function"].get("reward_kwargs", {}))
        worker = RewardLoopWorker(config)
        out = score_batch(worker, samples)
        assert [o["reward_extra_info"] for o in out] == expected_rows(samples, GLEU(**settings))


def test_guide_command_line_overrides_compose_with_verl_config(wmt17, tokenizer_dir):
    """The guide's ``main_ppo`` overrides, composed in struct mode: a key that is not in veRL's
    config (or a new one without ``+``) fails to compose."""
    match = re.search(r"<!-- rl-verl-overrides -->\n```text\n(.*?)\n```", guide_section(), re.DOTALL)
    command = shlex.split(match[1].replace("\\\n", " ").replace("$(python -m google_bleu.verl_reward)", printed_path()))
    assert command[:3] == ["python", "-m", "verl.trainer.main_ppo"]
    overrides = [arg for arg in command[3:] if arg != "..."]
    config = compose([*overrides, f"actor_rollout_ref.model.path={tokenizer_dir}"])
    reward_kwargs = OmegaConf.to_container(config.reward.custom_reward_function.reward_kwargs)
    assert reward_kwargs and config.reward.custom_reward_function.path == str(REWARD_FILE)
    samples = wmt17[::12]
    out = score_batch(RewardLoopWorker(config), samples)
    assert [o["reward_extra_info"] for o in out] == expected_rows(samples, GLEU(**reward_kwargs))
    # Without "+", Hydra refuses reward_kwargs: it is not in ppo_trainer.yaml.
    from hydra.errors import ConfigCompositionException

    with pytest.raises(ConfigCompositionException, match="reward_kwargs"):
        compose([arg.lstrip("+") for arg in overrides])


# -- veRL's legacy reward managers ----------------------------------------------------------------


def test_legacy_reward_managers_score_exactly(wmt17, tokenizer_dir):
    """``verl.workers.reward_manager`` (naive, batch) still ships in 0.9.1 though the trainer uses
    the Reward Loop; the batch manager calls ``compute_score`` with its keyword batch form."""
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.utils import hf_tokenizer
    from verl.workers.reward_manager.batch import BatchRewardManager
    from verl.workers.reward_manager.naive import NaiveRewardManager as LegacyNaiveRewardManager

    samples = wmt17[::10]
    tokenizer = hf_tokenizer(str(tokenizer_dir))
    config = compose(reward_overrides(REWARD_FILE, "compute_score", tokenizer_dir))
    reward_fn = get_custom_reward_fn(config)
    expected = expected_rows(samples, GLEU())
    for manager in (LegacyNaiveRewardManager, BatchRewardManager):
        out = manager(tokenizer, num_examine=0, compute_score=reward_fn)(rollout_batch(samples, tokenizer), return_dict=True)
        assert out["reward_extra_info"]["score"] == [row["score"] for row in expected]
        assert out["reward_extra_info"]["recall"] == [row["recall"] for row in expected]
        assert out["reward_tensor"].sum(-1).tolist() == torch.tensor([row["score"] for row in expected]).tolist()
    # The batch manager passes its own reward_kwargs; a misspelt one is named.
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['max_length'\]"):
        BatchRewardManager(tokenizer, 0, reward_fn, max_length=3)(rollout_batch(samples, tokenizer))
    assert Path(printed_path()) == REWARD_FILE


# -- the Reward Loop as training runs it: Ray actors ---------------------------------------------


def test_reward_loop_manager_scores_through_ray_actors(wmt17, tokenizer_dir):
    """``RewardLoopManager`` as the trainer starts it: ``reward.num_workers`` Ray actors of
    ``RewardLoopWorker``, the batch padded and split among them, scores placed on the last response
    token (``rm_scores``) and the reward's dict as ``reward_extra_info`` columns."""
    import ray
    from verl.experimental.reward_loop import RewardLoopManager
    from verl.utils import hf_tokenizer

    samples = wmt17[::4]
    data = rollout_batch(samples, hf_tokenizer(str(tokenizer_dir)))
    expected = expected_rows(samples, GLEU())
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        for name in NAMES:
            config = compose(reward_overrides(printed_path(), name, tokenizer_dir, "reward.num_workers=2"))
            manager = RewardLoopManager(config)
            out = manager.compute_rm_score(data)
            assert out.meta_info["reward_extra_keys"] == ["score", "precision", "recall"]
            for key in ("score", "precision", "recall"):
                assert out.non_tensor_batch[key].tolist() == [row[key] for row in expected]
            assert out.batch["rm_scores"].sum(-1).tolist() == torch.tensor([row["score"] for row in expected]).tolist()
            # The actors hold a CPU each and are named reward_loop_worker_<i>: free both for the next name.
            for worker in manager.reward_loop_workers:
                ray.kill(worker)
    finally:
        ray.shutdown()
