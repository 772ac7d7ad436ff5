"""slime's custom reward: ``--custom-rm-path google_bleu.integrations.slime.gleu_reward``.

slime (0.3) loads the function named by ``--custom-rm-path module.name`` with
``slime.utils.misc.load_function`` and awaits it from its reward dispatchers
(``slime/rollout/rm_hub``): ``async_rm`` awaits ``fn(args, sample)`` for one
``Sample`` and wants a float; with ``--group-rm`` (or a custom generate function that
returns several samples) ``batched_async_rm`` awaits ``fn(args, samples)`` for a list and
wants a list of floats. The rewards here take either: :class:`GleuReward` scores
``sample.response`` (text), :class:`GleuIdReward` the response's token ids (the last
``sample.response_length`` of ``sample.tokens``), each against ``sample.label`` (the
dataset's ``--label-key`` column: a reference, or a list of references).

A list is scored with one batched call. Single samples arrive one task each (slime starts a
task per sample and awaits the reward as each generation ends): the text reward gathers the
calls that reach it in the same turn of slime's event loop (:class:`.gather.GleuGatherer`,
no waiting) and scores them together. Every reward equals ``GLEU(...).sentence_score`` of
its sample alone (token ids: nltk's ``sentence_gleu`` on the id lists).

For other settings, name an instance in a file of your own:
``gleu_lc = GleuReward(GLEU(lowercase=True))``, then ``--custom-rm-path my_rewards.gleu_lc``.
"""

from __future__ import annotations

from typing import Any

from ..scorer import GLEU, scorer_from_options
from ..validation import check_references, check_text, describe, integer
from ._text import reference_ids
from .gather import GleuGatherer

__all__ = ["GleuIdReward", "GleuReward", "gleu_id_reward", "gleu_reward"]


def _samples(value: Any) -> tuple[list, bool]:
    """The samples of a call and whether it was one sample (slime's ``async_rm``)."""
    if isinstance(value, (list, tuple)):
        return list(value), False
    return [value], True


def _field(sample: Any, name: str, index: int) -> Any:
    if not hasattr(sample, name):
        raise TypeError(f"sample {index} must be a slime Sample (with .{name}), got {describe(sample)}")
    return getattr(sample, name)


def _label(sample: Any, index: int) -> Any:
    label = _field(sample, "label", index)
    if label is None:
        raise ValueError(
            f"sample {index} has no label: the GLEU reward scores against sample.label "
            "(the dataset column named by --label-key)"
        )
    return label


class GleuReward:
    """slime's custom reward on text: sentence GLEU of ``sample.response`` against ``sample.label``.

    Awaited by slime as ``reward(args, sample)`` (returns a float) or, with
    ``--group-rm``, ``reward(args, samples)`` (returns a list of floats, one batched call).

    Args:
        scorer: The settings as a :class:`~google_bleu.GLEU` (default ``GLEU()``: 13a,
            cased, orders 1-4).

    Raises:
        TypeError, ValueError: A bad scorer here; at call time a sample without a label, or
            a response or label of the wrong type, naming the sample.

    Example:
        >>> import asyncio
        >>> from types import SimpleNamespace as Sample
        >>> reward = GleuReward()
        >>> asyncio.run(reward(None, Sample(response="the cat sat on the mat", label="the cat ate the mat")))
        0.3333333333333333
        >>> asyncio.run(reward(None, [Sample(response="a b", label=["x", "a b"]), Sample(response="", label="a")]))
        [1.0, 0.0]
    """

    def __init__(self, scorer: GLEU | None = None) -> None:
        self.scorer = scorer_from_options(scorer)
        # Gathers only the calls of one loop turn: no single sample waits for another.
        self._gatherer = GleuGatherer(self.scorer, max_wait=0)

    def __repr__(self) -> str:
        return f"GleuReward({self.scorer!r})"

    def __reduce__(self) -> tuple:
        return (GleuReward, (self.scorer,))

    def gathered(self) -> dict[str, int]:
        """How single-sample calls were batched: the gatherer's counts (calls, batches, ...)."""
        return self._gatherer.counts()

    async def __call__(self, args: Any, sample: Any, **kwargs: Any) -> float | list[float]:
        samples, single = _samples(sample)
        responses = []
        for i, item in enumerate(samples):
            responses.append(check_text(_field(item, "response", i), f"sample {i}: response"))
        references = [check_references(_label(item, i), f"sample {i}: label") for i, item in enumerate(samples)]
        if single:
            return await self._gatherer.score(responses[0], references[0])
        return [row[0] for row in self.scorer.stats(responses, references).segment_scores()]


class GleuIdReward:
    """slime's custom reward on token ids: the response's ids against the label's ids.

    The response is the last ``sample.response_length`` ids of ``sample.tokens`` (slime keeps
    the prompt's ids first); the label holds the reference ids: a list of ints, or a list of
    such lists for several references. Scored with the batched id path
    (:func:`google_bleu.ids.batch_sentence_gleu`), no decoding.

    Args:
        scorer: The orders as a :class:`~google_bleu.GLEU` (``GLEU(min_len=..., max_len=...)``;
            a tokenizer or lowercasing has no meaning for ids and is refused).
        pad_id: Id removed before counting, e.g. the EOS id (slime keeps the stop token in
            ``sample.tokens`` when generation stopped). ``None``: every id counts.

    Example:
        >>> import asyncio
        >>> from types import SimpleNamespace as Sample
        >>> reward = GleuIdReward(pad_id=2)
        >>> sample = Sample(tokens=[100, 101, 5, 6, 7, 2], response_length=4, label=[5, 6, 8])
        >>> asyncio.run(reward(None, sample))
        0.5
    """

    def __init__(self, scorer: GLEU | None = None, *, pad_id: int | None = None) -> None:
        from ..ids.checks import check_pad_id, token_orders

        self.scorer = scorer_from_options(scorer)
        self.min_len, self.max_len = token_orders(self.scorer)
        self.pad_id = check_pad_id(pad_id)

    def __repr__(self) -> str:
        return f"GleuIdReward({self.scorer!r}, pad_id={self.pad_id})"

    @staticmethod
    def response_ids(sample: Any, index: int = 0) -> list:
        """The response's ids: the last ``sample.response_length`` of ``sample.tokens``."""
        tokens = _field(sample, "tokens", index)
        length = _field(sample, "response_length", index)
        count = integer(length)
        if count is None:
            raise TypeError(f"sample {index}: response_length must be an int, got {describe(length)}")
        if not 0 <= count <= len(tokens):
            raise ValueError(f"sample {index}: response_length {length} is not within its {len(tokens)} tokens")
        return list(tokens[len(tokens) - count :])

    async def __call__(self, args: Any, sample: Any, **kwargs: Any) -> float | list[float]:
        from ..ids.batched import batch_sentence_gleu

        samples, single = _samples(sample)
        hypotheses = [self.response_ids(item, i) for i, item in enumerate(samples)]
        references = [reference_ids(_label(item, i), f"sample {i}: label") for i, item in enumerate(samples)]
        scores = batch_sentence_gleu(
            hypotheses, references, pad_id=self.pad_id, min_len=self.min_len, max_len=self.max_len
        ).tolist()
        return scores[0] if single else scores


#: ``--custom-rm-path google_bleu.integrations.slime.gleu_reward``: text, ``GLEU()``.
gleu_reward = GleuReward()
#: ``--custom-rm-path google_bleu.integrations.slime.gleu_id_reward``: token ids, orders 1-4,
#: every id counted (make a ``GleuIdReward(pad_id=EOS)`` to drop the stop token).
gleu_id_reward = GleuIdReward()
