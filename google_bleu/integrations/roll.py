"""ROLL: :class:`GleuRewardWorker`, a reward worker that scores a whole batch on token ids
(docs/rl-rewards.md, "ROLL"). Imports ROLL and torch."""

from __future__ import annotations

from itertools import islice
from typing import Any

from ..ids.batched import batch_sentence_gleu
from ..ids.checks import token_orders
from ..imports import import_optional
from ..settings import GLEU, scorer_from_options
from ..validation import check_references

#: ROLL is not on PyPI (the roll name there is another project): no extra installs it.
_ROLL = "install ROLL 0.3 from a checkout of alibaba/ROLL v0.3.0 (the roll package on PyPI is another project)"
torch = import_optional("torch", "torch", "google_bleu.integrations.roll")
Worker = import_optional("roll.distributed.executor.worker", None, "google_bleu.integrations.roll", _ROLL).Worker
_decorator = import_optional("roll.distributed.scheduler.decorator", None, "google_bleu.integrations.roll", _ROLL)
Dispatch, register = _decorator.Dispatch, _decorator.register
DataProto = import_optional("roll.distributed.scheduler.protocol", None, "google_bleu.integrations.roll", _ROLL).DataProto
default_tokenizer_provider = import_optional(
    "roll.models.model_providers", None, "google_bleu.integrations.roll", _ROLL
).default_tokenizer_provider

__all__ = ["GleuRewardWorker"]

#: The id that marks a position left out (padding, special tokens): no token id is negative.
_LEFT_OUT = -1


class GleuRewardWorker(Worker):
    """A ROLL reward worker: sentence GLEU of each response's ids (``data.batch["responses"]``, special
    tokens left out) against its ``ground_truth`` tokenized by the worker's tokenizer. :attr:`scorer`
    gives the orders only (a subclass sets other ones)."""

    scorer: GLEU = GLEU()

    def __init__(self, worker_config: Any) -> None:
        super().__init__(worker_config=worker_config)
        self.rank_info.dp_rank = self.rank_info.rank
        self.rank_info.dp_size = self.rank_info.world_size
        self.scorer = scorer_from_options(type(self).scorer)
        self.min_len, self.max_len = token_orders(self.scorer)
        self.tokenizer = default_tokenizer_provider(model_args=self.worker_config.model_args)
        self._special_ids = torch.tensor(sorted(set(self.tokenizer.all_special_ids)), dtype=torch.long)

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    def initialize(self, pipeline_config: Any) -> None:
        pass

    def reference_ids(self, ground_truths: Any) -> list[list[list[int]]]:
        """Per sample, its references' ids (the worker's tokenizer, no special tokens)."""
        references = [check_references(truth, f"ground_truth[{i}]") for i, truth in enumerate(ground_truths)]
        flat = [text for refs in references for text in refs]
        ids = iter(self.tokenizer(flat, add_special_tokens=False)["input_ids"] if flat else [])
        return [list(islice(ids, len(refs))) for refs in references]

    @register(dispatch_mode=Dispatch.DP_MP_COMPUTE, clear_cache=False)
    def compute_rewards(self, data: DataProto) -> DataProto:
        responses = data.batch["responses"]
        keep = ~torch.isin(responses, self._special_ids.to(responses.device))
        if "response_mask" in data.batch.keys():
            keep &= data.batch["response_mask"].bool()
        hypotheses = responses.masked_fill(~keep, _LEFT_OUT)
        if "ground_truth" not in data.non_tensor_batch:
            raise ValueError(f"the GLEU reward worker scores against the 'ground_truth' column; the batch has {sorted(data.non_tensor_batch)}")
        references = self.reference_ids(data.non_tensor_batch["ground_truth"])
        scores = batch_sentence_gleu(
            hypotheses.cpu(), references, pad_id=_LEFT_OUT, min_len=self.min_len, max_len=self.max_len
        ).to(torch.float32)
        zeros = torch.zeros_like(responses, dtype=torch.float32)
        tensors = {"token_level_rewards": zeros, "response_level_rewards": scores.clone(), "scores": scores}
        return DataProto.from_dict(tensors=tensors)
