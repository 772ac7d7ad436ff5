"""Many per-sample reward calls, one batched score: :class:`GleuGatherer` (docs/rl-rewards.md,
"Many concurrent calls, one batched score")."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Sequence

from ..settings import GLEU, scorer_from_options
from ..text import checked_text_stats
from ..validation import check_references, check_text, describe, integer


class _Batch:
    """The calls of one event loop and one scorer waiting to be scored together."""

    __slots__ = ("scorer", "hypotheses", "references", "futures", "timer")

    def __init__(self, scorer: GLEU) -> None:
        self.scorer = scorer
        self.hypotheses: list[str] = []
        self.references: list[list[str]] = []
        self.futures: list[asyncio.Future] = []
        self.timer: asyncio.TimerHandle | None = None


class GleuGatherer:
    """Gathers concurrent per-sentence GLEU calls and scores them in one batched call; each caller
    gets its own sentence's result (``== GLEU(...).sentence_score``), a wrong input fails only its call.

    Args:
        max_batch_size: Score as soon as this many calls wait.
        max_wait: Seconds a batch waits for more calls after its first one; ``0`` gathers only the
            calls made before the loop's next turn.

    Example:
        >>> import asyncio
        >>> gatherer = GleuGatherer(max_wait=0.01)
        >>> async def rollout():
        ...     return await asyncio.gather(gatherer.score("the cat sat on the mat", "the cat ate the mat"),
        ...                                 gatherer.score("a b c", ["x", "a b c"]))
        >>> asyncio.run(rollout())
        [0.3333333333333333, 1.0]
        >>> gatherer.counts()
        {'calls': 2, 'batches': 1, 'largest_batch': 2, 'waiting': 0}
    """

    def __init__(self, scorer: GLEU | None = None, *, max_batch_size: int = 64, max_wait: float = 0.001) -> None:
        scorer = scorer_from_options(scorer)
        if integer(max_batch_size) is None:
            raise TypeError(f"max_batch_size must be an int, got {describe(max_batch_size)}")
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be >= 1, got {max_batch_size}")
        if isinstance(max_wait, bool) or not isinstance(max_wait, (int, float)):
            raise TypeError(f"max_wait must be a number of seconds, got {describe(max_wait)}")
        try:
            seconds = float(max_wait)
        except OverflowError:  # an int beyond any float
            seconds = math.inf
        if not math.isfinite(seconds) or seconds < 0:
            shown = f"{max_wait!r}" if isinstance(max_wait, float) or abs(max_wait) < 10**20 else "an int beyond any float"
            raise ValueError(f"max_wait must be a finite number of seconds >= 0, got {shown}")
        self.scorer = scorer
        self.max_batch_size = max_batch_size
        self.max_wait = seconds
        self._lock = threading.Lock()
        # (loop, scorer, None), or (loop, None, id(scorer)) for a scorer that does not hash ->
        # the batch filling on that loop. An entry lives only while calls wait.
        self._open: dict[tuple[asyncio.AbstractEventLoop, GLEU | None, int | None], _Batch] = {}
        self._calls = self._batches = self._largest = 0

    def __reduce__(self) -> tuple:
        # The settings travel; waiting calls and counts belong to this process.
        return (_rebuild, (self.scorer, self.max_batch_size, self.max_wait))

    def __repr__(self) -> str:
        return f"GleuGatherer({self.scorer!r}, max_batch_size={self.max_batch_size}, max_wait={self.max_wait})"

    def counts(self) -> dict[str, int]:
        """Calls scored, batches and the largest batch since creation, and the calls waiting now."""
        with self._lock:
            waiting = sum(not future.done() for batch in self._open.values() for future in batch.futures)
            return {"calls": self._calls, "batches": self._batches, "largest_batch": self._largest, "waiting": waiting}

    async def segment(
        self, hypothesis: str, references: str | Sequence[str], *, scorer: GLEU | None = None,
        names: tuple[str, str] = ("hypothesis", "references"),
    ) -> tuple[float, float, float]:
        """``(gleu, precision, recall)`` of one sentence, scored in a batch with its neighbours; ``scorer``
        replaces the gatherer's for this call (batched apart), ``names`` name the arguments in messages."""
        scorer = self.scorer if scorer is None else scorer_from_options(scorer)
        return await self._submit(scorer, check_text(hypothesis, names[0]), check_references(references, names[1]))

    async def score(
        self, hypothesis: str, references: str | Sequence[str], *, names: tuple[str, str] = ("hypothesis", "references")
    ) -> float:
        """Sentence GLEU of one hypothesis (``== GLEU(...).sentence_score(...).score``)."""
        return (await self.segment(hypothesis, references, names=names))[0]

    async def _submit(self, scorer: GLEU, hypothesis: str, references: list[str]) -> tuple[float, float, float]:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        try:
            key = (loop, scorer, None)
            hash(scorer)
        except TypeError:  # a tokenizer that does not hash (a plain @dataclass): batched by identity
            key = (loop, None, id(scorer))  # the batch holds the scorer, so the id stays its own
        with self._lock:
            batch = self._open.get(key)
            if batch is None:
                # Entries of loops closed with calls waiting (no cancellation ran) go here.
                for stale in [other for other in self._open if other[0].is_closed()]:
                    del self._open[stale]
                batch = self._open[key] = _Batch(scorer)
                batch.timer = loop.call_later(self.max_wait, self._due, key, batch)
            batch.hypotheses.append(hypothesis)
            batch.references.append(references)
            batch.futures.append(future)
            full = len(batch.futures) >= self.max_batch_size
            if full:
                del self._open[key]
        if full:
            batch.timer.cancel()
            self._score(scorer, batch)
        try:
            return await future
        except asyncio.CancelledError:
            self._withdraw(key, batch)
            raise

    def _due(self, key: tuple, batch: _Batch) -> None:
        with self._lock:
            if self._open.get(key) is batch:
                del self._open[key]
        self._score(batch.scorer, batch)

    def _withdraw(self, key: tuple, batch: _Batch) -> None:
        """After a caller was cancelled: close its batch when no caller is left waiting."""
        if any(not future.done() for future in batch.futures):
            return
        with self._lock:
            if self._open.get(key) is batch:
                del self._open[key]
        if batch.timer is not None:
            batch.timer.cancel()

    def _score(self, scorer: GLEU, batch: _Batch) -> None:
        waiting = [i for i, future in enumerate(batch.futures) if not future.done()]
        if not waiting:
            return
        hypotheses = [batch.hypotheses[i] for i in waiting]
        references = [batch.references[i] for i in waiting]
        settings = (scorer.tokenizer, scorer.min_len, scorer.max_len)
        try:
            try:  # each call's text was checked when it was made
                rows = checked_text_stats(hypotheses, references, *settings).segment_scores()
            except Exception:
                # One sentence the scorer cannot take must not fail the others: each alone.
                for i in waiting:
                    try:
                        row = checked_text_stats([batch.hypotheses[i]], [batch.references[i]], *settings).segment_scores()[0]
                    except Exception as error:
                        batch.futures[i].set_exception(error)
                    else:
                        batch.futures[i].set_result(row)
            else:
                for i, row in zip(waiting, rows):
                    batch.futures[i].set_result(row)
        finally:
            for i in waiting:  # only an interrupt (KeyboardInterrupt, ...) leaves one unset
                if not batch.futures[i].done():
                    batch.futures[i].set_exception(RuntimeError("scoring was interrupted"))
            with self._lock:
                self._calls += len(waiting)
                self._batches += 1
                self._largest = max(self._largest, len(waiting))


def _rebuild(scorer: GLEU, max_batch_size: int, max_wait: float) -> GleuGatherer:
    return GleuGatherer(scorer, max_batch_size=max_batch_size, max_wait=max_wait)
