"""TRL rewards (``GRPOTrainer``, ``AsyncGRPOTrainer``, RLOO, ...): picklable instances with a ``__name__``
(docs/rl-rewards.md, "TRL")."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from ..settings import GLEU
from ..validation import check_list, describe
from ._reward import Reward
from ._text import TRL_OBJECTS, completion_text, reference_ids


class GleuReward(Reward):
    """A TRL reward: sentence GLEU of each completion (a string, or a conversation's last assistant
    message) against the ``reference_key`` column. With TRL's ``log_metric``, it logs the batch's mean
    sentence precision and recall as ``<name>/precision`` and ``<name>/recall``. Other keywords are ignored.

    Example:
        >>> from google_bleu import GLEU
        >>> reward = GleuReward("reference")
        >>> reward(["the cat sat on the mat", "a dog"], reference=["the cat ate the mat", ["a dog", "one dog"]])
        [0.3333333333333333, 1.0]
        >>> GleuReward("target", GLEU("char", lowercase=True), name="gleu_char")(["AB"], target=["ab"])
        [1.0]
    """

    FIELDS = ("reference_key", "scorer")

    def __init__(
        self, reference_key: str = "reference", scorer: GLEU | None = None, *, name: str = "gleu", **settings: Any
    ) -> None:
        super().__init__(scorer, reference_key=reference_key, name=name, **settings)

    def _score(self, completions: Sequence[Any], log_metric: Callable[[str, float], Any] | None, kwargs: dict) -> list[float]:
        if log_metric is not None and not callable(log_metric):
            raise TypeError(f"log_metric must be callable (TRL passes its logger), got {describe(log_metric)}")
        column = self.lookup(kwargs, "dataset column", "the trainer passed", TRL_OBJECTS)
        texts = [completion_text(completion, i) for i, completion in enumerate(check_list(completions, "completions"))]
        rows = self.rows(texts, column, ("completions", self.reference_key))
        if log_metric is not None and rows:
            log_metric(f"{self.__name__}/precision", statistics.mean(row[1] for row in rows))
            log_metric(f"{self.__name__}/recall", statistics.mean(row[2] for row in rows))
        return [row[0] for row in rows]

    def __call__(self, completions: Sequence[Any], log_metric: Any = None, **kwargs: Any) -> list[float]:
        return self._score(completions, log_metric, kwargs)


class AsyncGleuReward(GleuReward):
    """:class:`GleuReward` as a coroutine, for TRL's asynchronous rewards; it scores in a worker thread.

    Example:
        >>> import asyncio
        >>> asyncio.run(AsyncGleuReward("reference")(["the cat sat on the mat"], reference=["the cat ate the mat"]))
        [0.3333333333333333]
    """

    async def __call__(self, completions: Sequence[Any], log_metric: Any = None, **kwargs: Any) -> list[float]:  # type: ignore[override]
        import asyncio

        return await asyncio.to_thread(self._score, completions, log_metric, kwargs)


class GleuIdReward(Reward):
    """A TRL reward on token ids: ``completion_ids`` against a column of reference ids (per example a
    list of ids, or a list of id lists), counted on ``device`` (default CPU) without ``pad_id`` (e.g.
    EOS; ``None``: every id counts). ``scorer`` gives the orders only.

    Example:
        >>> GleuIdReward("reference_ids", pad_id=2)(completion_ids=[[5, 6, 7, 2], [9]], reference_ids=[[5, 6, 8], [[9], [4]]])
        [0.5, 1.0]
    """

    FIELDS = ("reference_key", "scorer", "pad_id", "device")

    def __init__(
        self, reference_key: str = "reference_ids", scorer: GLEU | None = None, *, pad_id: int | None = None,
        device: Any = None, name: str = "gleu_ids", **settings: Any,
    ) -> None:
        from ..ids.checks import check_pad_id

        self.pad_id = check_pad_id(pad_id)
        if device is not None and not isinstance(device, str) and type(device).__name__ != "device":
            raise TypeError(f"device must be None, a str or a torch.device, got {describe(device)}")
        self.device = device
        super().__init__(scorer, reference_key=reference_key, name=name, **settings)

    def _ready(self) -> None:
        from ..ids.checks import token_orders

        token_orders(self.scorer)

    def __call__(self, completions: Any = None, completion_ids: Any = None, **kwargs: Any) -> list[float]:
        from ..ids.batched import batch_sentence_gleu

        if completion_ids is None:
            raise ValueError("the GLEU id reward needs completion_ids (TRL passes them to every reward function)")
        column = check_list(self.lookup(kwargs, "dataset column", "the trainer passed", (*TRL_OBJECTS, "prompts")), self.reference_key)
        hypotheses = check_list(completion_ids, "completion_ids")
        if len(hypotheses) != len(column):
            raise ValueError(f"got {len(hypotheses)} completion_ids but {len(column)} values of {self.reference_key!r}")
        references = [reference_ids(value, f"column {self.reference_key!r}, example {i}") for i, value in enumerate(column)]
        try:
            scores = batch_sentence_gleu(hypotheses, references, scorer=self.scorer, pad_id=self.pad_id, device=self.device)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{error} (hypotheses: completion_ids; references: the column {self.reference_key!r})") from error
        return scores.tolist()
