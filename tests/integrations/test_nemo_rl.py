"""NeMo-RL: GleuEnvironment stepped through NeMo-RL's own interface and its rollout's reward call.

NeMo-RL 0.7 is not published on PyPI (the ``nemo-rl`` name there is an empty placeholder
package) and CI reaches only PyPI, so these tests run where NeMo-RL's source is importable
(``PYTHONPATH`` holding a checkout of its tag v0.7.0) and skip with that reason elsewhere.
"""

from __future__ import annotations

import pytest

from google_bleu import GLEU
from tests.helpers.oracles import SAMPLES, read_lines

_REASON = (
    "NeMo-RL 0.7 is not on PyPI (the nemo-rl name there is an empty placeholder) and CI reaches only "
    "PyPI: put a checkout of NVIDIA-NeMo/RL v0.7.0 on PYTHONPATH to run these"
)
try:
    import nemo_rl.environments.interfaces as interfaces
except ImportError:
    pytest.skip(_REASON, allow_module_level=True)

torch = pytest.importorskip("torch")

from google_bleu.integrations.nemo_rl import GleuEnvironment  # noqa: E402

SYSTEM = read_lines(SAMPLES / "wmt17_en_de" / "sys_online-A.0.txt")[:24]
REFERENCES = read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt")[:24]


def message_logs(replies):
    # As NeMo-RL's rollout builds them (token_ids beside role and content).
    return [
        [
            {"role": "user", "content": f"Translate segment {i}", "token_ids": torch.tensor([1, 2])},
            {"role": "assistant", "content": reply, "token_ids": torch.tensor([3, 4])},
        ]
        for i, reply in enumerate(replies)
    ]


def test_step_returns_nemo_rls_environment_return_with_each_sentence_gleu():
    env = GleuEnvironment({"lowercase": True})
    assert isinstance(env, interfaces.EnvironmentInterface)
    metadata = [{"ground_truth": ref} for ref in REFERENCES]
    out = env.step(message_logs(SYSTEM), metadata)
    assert isinstance(out, interfaces.EnvironmentReturn)
    expected = [GLEU(lowercase=True).sentence_score(hyp, [ref]).score for hyp, ref in zip(SYSTEM, REFERENCES)]
    assert out.rewards.shape == (len(SYSTEM),) and out.rewards.dtype == torch.float32
    assert out.rewards.tolist() == torch.tensor(expected, dtype=torch.float32).tolist()
    assert out.terminateds.all() and out.answers == SYSTEM and out.metadata == metadata
    assert out.next_stop_strings == [None] * len(SYSTEM)
    _, metrics = env.global_post_process_and_metrics({"rewards": out.rewards})
    assert metrics == {"gleu_mean": float(out.rewards.mean())}


def test_through_nemo_rls_create_env_and_calculate_rewards():
    ray = pytest.importorskip("ray")
    from nemo_rl.distributed.batched_data_dict import BatchedDataDict
    from nemo_rl.distributed.ray_actor_environment_registry import ACTOR_ENVIRONMENT_REGISTRY
    from nemo_rl.distributed.virtual_cluster import PY_EXECUTABLES
    from nemo_rl.environments.utils import create_env, register_env
    from nemo_rl.experience.rollouts import calculate_rewards

    fqn = "google_bleu.integrations.nemo_rl.GleuEnvironmentActor"
    register_env("gleu", fqn)
    ACTOR_ENVIRONMENT_REGISTRY[fqn] = PY_EXECUTABLES.SYSTEM
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        env = create_env("gleu", {"reference_key": "refs", "max_len": 3})
        batch = BatchedDataDict({
            "message_log": message_logs(SYSTEM),
            "extra_env_info": [{"refs": [ref]} for ref in REFERENCES],
            "task_name": ["gleu"] * len(SYSTEM),
        })
        out = calculate_rewards(batch, {"gleu": env})
    finally:
        ray.shutdown()
    expected = [GLEU(max_len=3).sentence_score(hyp, [ref]).score for hyp, ref in zip(SYSTEM, REFERENCES)]
    assert out.rewards.tolist() == torch.tensor(expected, dtype=torch.float32).tolist()


@pytest.mark.parametrize(
    ("cfg", "logs", "metadata", "error", "message"),
    [
        ({"tokenizer": "13a", "n_gram": 4}, None, None, ValueError, r"unknown GleuEnvironment config keys \['n_gram'\]"),
        ({"max_len": 0}, None, None, ValueError, "max_len"),
        ({}, [[{"role": "assistant", "content": "a"}]], [{"answer": "a"}], ValueError, "'ground_truth' \\(reference_key\\)"),
        ({}, [[{"role": "assistant", "content": "a"}]], [], ValueError, "one entry per message log"),
        ({}, [[{"role": "user", "content": "a"}]], [{"ground_truth": "a"}], ValueError, "no assistant message"),
    ],
)
def test_bad_input_names_the_argument(cfg, logs, metadata, error, message):
    with pytest.raises(error, match=message):
        GleuEnvironment(cfg).step(logs, metadata)
