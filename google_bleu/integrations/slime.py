"""slime's custom reward: ``--custom-rm-path google_bleu.integrations.slime.gleu_reward``
(docs/rl-rewards.md, "slime"): ``fn(args, sample)``, or ``fn(args, samples)`` with ``--group-rm``."""

from __future__ import annotations

from typing import Any

from ..validation import describe, integer
from ._reward import Reward
from ._text import reference_ids
from .gather import GleuGatherer

__all__ = ["GleuIdReward", "GleuReward", "gleu_id_reward", "gleu_reward"]


def _field(sample: Any, name: str, index: int) -> Any:
    if not hasattr(sample, name):
        raise TypeError(f"sample {index} must be a slime Sample (with .{name}), got {describe(sample)}")
    return getattr(sample, name)


def _label(sample: Any, index: int) -> Any:
    label = _field(sample, "label", index)
    if label is None:
        raise ValueError(f"sample {index} has no label: the GLEU reward scores against sample.label (the dataset column named by --label-key)")
    return label


class GleuReward(Reward):
    """slime's reward on text: sentence GLEU of ``sample.response`` against ``sample.label``; single
    samples are gathered per turn of slime's event loop (no waiting).

    Example:
        >>> import asyncio
        >>> from types import SimpleNamespace as Sample
        >>> reward = GleuReward()
        >>> asyncio.run(reward(None, Sample(response="the cat sat on the mat", label="the cat ate the mat")))
        0.3333333333333333
        >>> asyncio.run(reward(None, [Sample(response="a b", label=["x", "a b"]), Sample(response="", label="a")]))
        [1.0, 0.0]
    """

    FIELDS = ("scorer",)

    def _ready(self) -> None:
        self._gatherer = GleuGatherer(self.scorer, max_wait=0)

    def gathered(self) -> dict[str, int]:
        """How single-sample calls were batched: the gatherer's counts (calls, batches, ...)."""
        return self._gatherer.counts()

    async def __call__(self, args: Any, sample: Any, **kwargs: Any) -> float | list[float]:
        if not isinstance(sample, (list, tuple)):
            response, label = _field(sample, "response", 0), _label(sample, 0)
            return await self._gatherer.score(response, label, names=("sample 0: response", "sample 0: label"))
        responses = [_field(item, "response", i) for i, item in enumerate(sample)]
        labels = [_label(item, i) for i, item in enumerate(sample)]
        return [row[0] for row in self.rows(responses, labels, ("sample {}: response", "sample {}: label"))]


class GleuIdReward(Reward):
    """slime's reward on token ids: the response's ids against the label's ids (a list of ints, or of
    such lists), without ``pad_id`` (e.g. EOS, which slime keeps in ``sample.tokens``; ``None``: every
    id counts). ``scorer`` gives the orders only.

    Example:
        >>> import asyncio
        >>> from types import SimpleNamespace as Sample
        >>> sample = Sample(tokens=[100, 101, 5, 6, 7, 2], response_length=4, label=[5, 6, 8])
        >>> asyncio.run(GleuIdReward(pad_id=2)(None, sample))
        0.5
    """

    FIELDS = ("scorer", "pad_id")

    def __init__(self, scorer: Any = None, *, pad_id: int | None = None, name: str = "gleu") -> None:
        from ..ids.checks import check_pad_id

        self.pad_id = check_pad_id(pad_id)
        super().__init__(scorer, name=name)

    def _ready(self) -> None:
        from ..ids.checks import token_orders

        self.min_len, self.max_len = token_orders(self.scorer)

    @staticmethod
    def response_ids(sample: Any, index: int = 0) -> list:
        """The response's ids: the last ``sample.response_length`` of ``sample.tokens``."""
        tokens, length = _field(sample, "tokens", index), _field(sample, "response_length", index)
        count = integer(length)
        if count is None:
            raise TypeError(f"sample {index}: response_length must be an int, got {describe(length)}")
        if not 0 <= count <= len(tokens):
            raise ValueError(f"sample {index}: response_length {length} is not within its {len(tokens)} tokens")
        return list(tokens[len(tokens) - count :])

    async def __call__(self, args: Any, sample: Any, **kwargs: Any) -> float | list[float]:
        from ..ids.batched import batch_sentence_gleu

        samples = sample if isinstance(sample, (list, tuple)) else [sample]
        hypotheses = [self.response_ids(item, i) for i, item in enumerate(samples)]
        references = [reference_ids(_label(item, i), f"sample {i}: label") for i, item in enumerate(samples)]
        scores = batch_sentence_gleu(hypotheses, references, pad_id=self.pad_id, min_len=self.min_len, max_len=self.max_len)
        return scores.tolist() if samples is sample else scores.tolist()[0]


#: ``--custom-rm-path google_bleu.integrations.slime.gleu_reward``: text, ``GLEU()``.
gleu_reward = GleuReward()
#: ``--custom-rm-path google_bleu.integrations.slime.gleu_id_reward``: token ids, every id counted.
gleu_id_reward = GleuIdReward()
