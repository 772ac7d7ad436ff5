"""The GLEU reward worker inside ROLL 0.3.0 itself (a checkout named by ROLL_SOURCE, see
conftest.py): two workers built by ROLL's own ``Worker.__init__`` (ranks 0 and 1, on a local
Ray cluster), a rollout batch as ROLL's ``DataProto``, split across the workers by ROLL's
``DP_MP_COMPUTE`` dispatch and gathered back by its collect function, as ROLL's reward
cluster runs ``compute_rewards``. Every score is compared (``==``) with nltk's
``sentence_gleu`` on the same id lists, rounded to float32.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from nltk.translate.gleu_score import sentence_gleu


def make_workers(worker_cls, tokenizer_dir, count: int = 2) -> list:
    from roll.configs import ModelArguments
    from roll.configs.worker_config import WorkerConfig

    config = WorkerConfig(
        name="reward", worker_cls=f"{worker_cls.__module__}.{worker_cls.__name__}",
        model_args=ModelArguments(model_name_or_path=str(tokenizer_dir)),
    )
    workers = []
    for rank in range(count):  # the environment ROLL's Cluster gives each worker actor
        os.environ.update(RANK=str(rank), WORLD_SIZE=str(count), LOCAL_RANK="0", CLUSTER_NAME="reward")
        workers.append(worker_cls(config))
    return workers


class Cluster:
    """What ROLL's dispatch and collect functions read of a ``Cluster``."""

    def __init__(self, workers) -> None:
        self.workers = workers
        self.world_size = self.dp_size = len(workers)

    def get_rank_info(self, rank):
        return self.workers[rank].get_rank_info()


def compute_rewards(workers, data):
    from roll.distributed.scheduler.decorator import collect_dp_mp_compute, dispatch_dp_mp_compute

    cluster = Cluster(workers)
    args, kwargs = dispatch_dp_mp_compute(cluster, data)
    outputs = [worker.compute_rewards(*(arg[i] for arg in args), **{k: v[i] for k, v in kwargs.items()})
               for i, worker in enumerate(workers)]
    return collect_dp_mp_compute(cluster, outputs)


def rollout_batch(tokenizer, translations, ground_truths):
    """Prompts and responses (ids, then the stop token, then padding) with their masks, and the
    dataset's columns as object arrays, as ROLL's generation leaves a batch."""
    from roll.distributed.scheduler.protocol import DataProto

    ids = [tokenizer(text, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id] for text in translations]
    n, length = len(ids), max(map(len, ids))
    responses = torch.full((n, length), tokenizer.pad_token_id)
    mask = torch.zeros((n, length), dtype=torch.long)
    for i, row in enumerate(ids):
        responses[i, : len(row)] = torch.tensor(row)
        mask[i, : len(row)] = 1
    truth = np.empty(n, dtype=object)
    truth[:] = ground_truths
    return DataProto.from_dict(
        tensors={"prompts": torch.full((n, 4), tokenizer.pad_token_id), "responses": responses, "response_mask": mask},
        non_tensors={"ground_truth": truth, "domain": np.array(["wmt17"] * n, dtype=object)},
    )


@pytest.mark.parametrize("several", [False, True], ids=["one-reference", "two-references"])
def test_compute_rewards_on_every_wmt17_translation(several, wmt17, tokenizer_dir, cluster):
    from google_bleu.integrations.roll import GleuRewardWorker

    workers = make_workers(GleuRewardWorker, tokenizer_dir)
    tokenizer = workers[0].tokenizer
    other = wmt17["systems"]["online-B.0"]
    translations, truths = [], []
    for lines in wmt17["systems"].values():
        for i, line in enumerate(lines):
            translations.append(line)
            truths.append([wmt17["reference"][i], other[i]] if several else wmt17["reference"][i])
    out = compute_rewards(workers, rollout_batch(tokenizer, translations, truths))

    def ids(text):
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    expected = [
        sentence_gleu([ids(r) for r in (truth if several else [truth])], ids(line))
        for line, truth in zip(translations, truths)
    ]
    assert out.batch["scores"].dtype == torch.float32
    assert out.batch["scores"].tolist() == torch.tensor(expected, dtype=torch.float32).tolist()
    assert torch.equal(out.batch["response_level_rewards"], out.batch["scores"])
    assert out.batch["token_level_rewards"].shape == (len(translations), out.batch["token_level_rewards"].shape[1])
    assert not out.batch["token_level_rewards"].any()


def test_a_subclass_sets_the_orders_and_text_settings_are_refused(wmt17, tokenizer_dir, cluster):
    from google_bleu import GLEU
    from google_bleu.integrations.roll import GleuRewardWorker

    class Bigrams(GleuRewardWorker):
        scorer = GLEU(max_len=2)

    (worker,) = make_workers(Bigrams, tokenizer_dir, count=1)
    lines, truths = wmt17["systems"]["online-A.0"][:50], wmt17["reference"][:50]
    out = compute_rewards([worker], rollout_batch(worker.tokenizer, lines, truths))
    ids = [worker.tokenizer(t, add_special_tokens=False)["input_ids"] for t in (*lines, *truths)]
    expected = [sentence_gleu([ref], hyp, max_len=2) for hyp, ref in zip(ids[:50], ids[50:])]
    assert out.batch["scores"].tolist() == torch.tensor(expected, dtype=torch.float32).tolist()

    class Lowercased(GleuRewardWorker):
        scorer = GLEU(lowercase=True)

    with pytest.raises(ValueError, match=r"token ids are scored as they are"):
        make_workers(Lowercased, tokenizer_dir, count=1)
