"""TRL rewards (``GRPOTrainer``, ``AsyncGRPOTrainer``, RLOO, ...).

:class:`GleuReward` scores ``completions`` against a dataset column (:class:`AsyncGleuReward`
is the same as a coroutine); :class:`GleuIdReward` scores ``completion_ids`` against a column
of reference ids, without decoding. All are picklable instances with a ``__name__``, as ``AsyncGRPOTrainer`` needs. TRL calls
``reward(prompts=..., completions=..., completion_ids=..., **columns)``; completions are
strings, or lists of messages for conversational datasets. Scores equal nltk's
``sentence_gleu`` on the same tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..scorer import GLEU, scorer_from_options
from ..stats import GleuStats
from ..validation import check_list, check_type, describe
from ._text import TRL_OBJECTS, check_name, completion_text, mean_score, reference_ids

# -- TRL ------------------------------------------------------------------------------------


class GleuReward:
    """A TRL reward: sentence GLEU of each completion against its references.

    A picklable callable instance, so it also works with ``AsyncGRPOTrainer``, which
    scores in a spawned child process without a GPU (the scorer pickles with its settings;
    a callable tokenizer must itself be picklable).

    Args:
        reference_key: Dataset column with the references: per example a string or a
            list of strings (several references; counts may vary).
        scorer: The settings (tokenizer, lowercase, orders) as a :class:`~google_bleu.GLEU`;
            default ``GLEU()`` (13a, cased, orders 1-4).
        name: The reward's ``__name__``, which TRL uses in its logs
            (``rewards/<name>/mean``).
        **settings: Or the settings as keywords (``tokenizer=``, ``lowercase=``,
            ``min_len=``, ``max_len=``), instead of ``scorer``.

    Calling it as TRL does, ``reward(prompts=..., completions=..., completion_ids=...,
    **columns, log_metric=...)``, returns one float in ``[0, 1]`` per completion. When TRL
    passes ``log_metric`` (TRL 1.16), the batch's mean sentence precision and recall are
    logged as ``<name>/precision`` and ``<name>/recall`` beside TRL's own metrics. The other
    keywords (``prompts``, ``completion_ids``, ``trainer_state``, ``log_extra``, other
    columns) are ignored.

    Raises:
        ValueError, TypeError: At construction for bad arguments; at call time when the
            reference column is missing or a completion is neither text nor messages.

    Example:
        >>> from google_bleu import GLEU
        >>> reward = GleuReward("reference")
        >>> reward(["the cat sat on the mat", "a dog"], reference=["the cat ate the mat", ["a dog", "one dog"]])
        [0.3333333333333333, 1.0]
        >>> GleuReward("target", GLEU("char", lowercase=True), name="gleu_char")(["AB"], target=["ab"])
        [1.0]
        >>> import pickle
        >>> pickle.loads(pickle.dumps(reward)).__name__
        'gleu'
    """

    def __init__(
        self, reference_key: str = "reference", scorer: GLEU | None = None, *, name: str = "gleu", **settings: Any
    ) -> None:
        self.reference_key = check_type(reference_key, str, "reference_key", "a str naming a dataset column")
        self.scorer = scorer_from_options(scorer, settings, caller=type(self).__name__)
        self.__name__ = check_name(name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(reference_key={self.reference_key!r}, scorer={self.scorer!r}, name={self.__name__!r})"

    def stats(self, completions: Sequence[Any], **kwargs: Any) -> GleuStats:
        """Per-completion statistics (one row each), for rewards built on precision or recall."""
        if self.reference_key not in kwargs:
            columns = sorted(key for key in kwargs if key not in TRL_OBJECTS)
            raise ValueError(
                f"the GLEU reward needs the references in the dataset column {self.reference_key!r}; "
                f"the trainer passed {columns}"
            )
        texts = [completion_text(completion, i) for i, completion in enumerate(check_list(completions, "completions"))]
        return self.scorer.stats(texts, kwargs[self.reference_key])

    def _score(self, completions: Sequence[Any], log_metric: Callable[[str, float], Any] | None, kwargs: dict) -> list[float]:
        if log_metric is not None and not callable(log_metric):
            raise TypeError(f"log_metric must be callable (TRL passes its logger), got {describe(log_metric)}")
        rows = self.stats(completions, **kwargs).segment_scores()
        if log_metric is not None and rows:
            log_metric(f"{self.__name__}/precision", mean_score([row[1] for row in rows], "precision"))
            log_metric(f"{self.__name__}/recall", mean_score([row[2] for row in rows], "recall"))
        return [row[0] for row in rows]

    def __call__(
        self, completions: Sequence[Any], log_metric: Callable[[str, float], Any] | None = None, **kwargs: Any
    ) -> list[float]:
        return self._score(completions, log_metric, kwargs)


class AsyncGleuReward(GleuReward):
    """:class:`GleuReward` as a coroutine, for TRL's asynchronous rewards.

    TRL (1.16) gathers async reward functions on its background event loop, so they run
    together with other async rewards (an LLM judge, a sandbox) instead of one after the
    other. The scoring itself runs in a worker thread (``asyncio.to_thread``), so it never
    blocks that loop. Same arguments, same values and same logged metrics as
    :class:`GleuReward`.

    Example:
        >>> import asyncio
        >>> reward = AsyncGleuReward("reference")
        >>> asyncio.run(reward(["the cat sat on the mat"], reference=["the cat ate the mat"]))
        [0.3333333333333333]
    """

    async def __call__(  # type: ignore[override]
        self, completions: Sequence[Any], log_metric: Callable[[str, float], Any] | None = None, **kwargs: Any
    ) -> list[float]:
        import asyncio

        return await asyncio.to_thread(self._score, completions, log_metric, kwargs)


class GleuIdReward:
    """A TRL reward on token ids: ``completion_ids`` against a column of reference ids.

    No decoding: each score equals nltk's ``sentence_gleu`` on the id lists (``==``),
    computed with :func:`google_bleu.batch_sentence_gleu` for the whole batch at once.
    Picklable, like :class:`GleuReward`.

    Args:
        reference_key: Dataset column with the reference ids: per example a list of
            ids (one reference) or a list of id lists (several). An empty list is one
            empty reference.
        scorer: The orders, a :class:`~google_bleu.GLEU` (ids are never tokenized nor
            lowercased); default ``GLEU()``. Or ``min_len=``/``max_len=`` as keywords.
        pad_id: Id removed from completions and references before counting, e.g. the
            EOS id (TRL's ``completion_ids`` end with EOS when the model stopped).
            ``None``: every id counts.
        device: Where the ids are counted (default CPU).
        name: The reward's ``__name__`` in TRL's logs.

    Example:
        >>> reward = GleuIdReward("reference_ids", pad_id=2)
        >>> reward(completion_ids=[[5, 6, 7, 2], [9]], reference_ids=[[5, 6, 8], [[9], [4]]])
        [0.5, 1.0]
    """

    def __init__(
        self,
        reference_key: str = "reference_ids",
        scorer: GLEU | None = None,
        *,
        pad_id: int | None = None,
        device: Any = None,
        name: str = "gleu_ids",
        **settings: Any,
    ) -> None:
        from ..ids.checks import check_pad_id, token_orders

        self.reference_key = check_type(reference_key, str, "reference_key", "a str naming a dataset column")
        self.scorer = scorer_from_options(scorer, settings, caller="GleuIdReward")
        self.min_len, self.max_len = token_orders(self.scorer)
        self.pad_id = check_pad_id(pad_id)
        if device is not None and not isinstance(device, str) and type(device).__name__ != "device":
            raise TypeError(f"device must be None, a str or a torch.device, got {describe(device)}")
        self.device = device
        self.__name__ = check_name(name)

    def __repr__(self) -> str:
        return (
            f"GleuIdReward(reference_key={self.reference_key!r}, pad_id={self.pad_id}, "
            f"min_len={self.min_len}, max_len={self.max_len}, name={self.__name__!r})"
        )

    def __call__(self, completions: Any = None, completion_ids: Any = None, **kwargs: Any) -> list[float]:
        from ..ids.batched import batch_sentence_gleu

        if completion_ids is None:
            raise ValueError("the GLEU id reward needs completion_ids (TRL passes them to every reward function)")
        if self.reference_key not in kwargs:
            columns = sorted(key for key in kwargs if key not in (*TRL_OBJECTS, "prompts"))
            raise ValueError(
                f"the GLEU id reward needs the reference ids in the dataset column {self.reference_key!r}; "
                f"the trainer passed {columns}"
            )
        hypotheses = check_list(completion_ids, "completion_ids")
        column = check_list(kwargs[self.reference_key], self.reference_key)
        if len(hypotheses) != len(column):
            raise ValueError(f"got {len(hypotheses)} completion_ids but {len(column)} values of {self.reference_key!r}")
        references = [reference_ids(value, f"column {self.reference_key!r}, example {i}") for i, value in enumerate(column)]
        try:
            scores = batch_sentence_gleu(hypotheses, references, scorer=self.scorer, pad_id=self.pad_id, device=self.device)
        except (TypeError, ValueError) as error:
            raise type(error)(
                f"{error} (hypotheses: completion_ids; references: the column {self.reference_key!r})"
            ) from error
        return scores.tolist()
