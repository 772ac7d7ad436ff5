"""Google-BLEU as a ``torchmetrics.Metric``: :class:`GoogleBLEUScore`.

The metric's states are the four summed GLEU totals (``n_match``, ``n_hyp``, ``n_ref``,
``n_all``) as int64 tensors reduced by ``"sum"``, so ``compute`` after a distributed sync,
after ``merge_state`` or after many ``update`` calls is exactly the score of one call
over the whole corpus (corpus GLEU sums before it divides; averaging batch scores is
wrong). With ``return_sentence_scores=True`` a ``"cat"`` state keeps one int64 row of
statistics per sentence, as ``CHRFScore`` keeps its sentence scores.

Counting is done by :class:`google_bleu.GLEU`; this module holds no scoring logic.
It imports torch and torchmetrics (``pip install 'google-bleu[torchmetrics]'``);
``import google_bleu`` does not import it.
"""

# No `from __future__ import annotations` here: torch.jit.script reads the state attributes'
# annotations (n_match: Tensor, ...) at run time, as torchmetrics' own metrics are scripted.
import functools
from collections.abc import Callable, Sequence
from typing import Any, Optional, Union

import numpy as np

from ..scorer import GLEU, SETTINGS, scorer_from_options
from ..stats import COLUMNS, GleuStats
from ..validation import check_bool, check_references, check_text, describe, import_optional, is_sequence

torch = import_optional("torch", "torchmetrics", "google_bleu.integrations.torchmetrics")
Tensor = torch.Tensor
Metric = import_optional("torchmetrics", "torchmetrics", "google_bleu.integrations.torchmetrics").Metric

# Name of the optional per-sentence state (rows of COLUMNS, one per sentence).
SENTENCE_STATE = "sentence_rows"


def _as_text_batch(preds: Any, target: Any) -> tuple[list[str], list[list[str]]]:
    """``preds``/``target`` in torchmetrics' text conventions, checked, as lists.

    ``BLEUScore``'s documented shapes (a list of predictions, a list of reference lists),
    read as torchmetrics' shared text check (``_validate_inputs``, used by ``CHRFScore``
    and ``TERScore``) reads them: ``preds`` may be a single string; a flat list of strings
    as ``target`` is one reference per prediction, except with a single prediction, where
    it is that prediction's list of references. Unlike ``BLEUScore``, counts that differ
    are an error, never silently zipped.
    """
    if isinstance(preds, str):
        preds = [preds]
    if isinstance(preds, bytes) or not is_sequence(preds):
        raise TypeError(f"preds must be a str or a list of str, got {describe(preds)}")
    preds = [check_text(pred, f"preds[{i}]") for i, pred in enumerate(preds)]
    if isinstance(target, (str, bytes)) or not is_sequence(target):
        raise TypeError(f"target must be a list of str or a list of lists of str, got {describe(target)}")
    target = list(target)
    if all(isinstance(ref, str) for ref in target):
        target = [target] if len(preds) == 1 else [[ref] for ref in target]
    if len(preds) != len(target):
        raise ValueError(f"got {len(preds)} preds but {len(target)} targets; give one target per prediction")
    return preds, [check_references(refs, f"target[{i}]") for i, refs in enumerate(target)]


class GoogleBLEUScore(Metric):
    """Corpus Google-BLEU (GLEU, Wu et al. 2016) as a ``torchmetrics`` metric.

    ``update(preds, target)`` counts a batch; ``compute()`` returns the corpus score of
    everything counted since the last ``reset()``, as a float64 tensor equal (``==``) to
    :meth:`google_bleu.GLEU.corpus_score` on the same text. The states are the four
    int64 totals, summed across processes, so a distributed run gives the exact score of
    one process over the whole corpus. ``merge_state`` works (``full_state_update=False``).

    Args:
        scorer: The settings, a :class:`~google_bleu.GLEU` (default ``GLEU()``: 13a, cased,
            orders 1-4); or the settings as keywords (``tokenizer=``, ``lowercase=``,
            ``min_len=``, ``max_len=``), as torchmetrics' own metrics take theirs.
        return_sentence_scores: Also keep one row of statistics per sentence;
            ``compute`` then returns ``(corpus_score, sentence_scores)`` as ``CHRFScore``
            does with ``return_sentence_level_score``.
        kwargs: ``torchmetrics.Metric`` options (``process_group``, ``sync_on_compute``, ...).

    Raises:
        ValueError, TypeError: For bad settings (here) or bad ``update`` input (naming
            ``preds`` or ``target``; a rejected batch leaves the states as they were).

    Example:
        >>> from google_bleu.integrations.torchmetrics import GoogleBLEUScore
        >>> metric = GoogleBLEUScore()
        >>> metric.update(["the cat sat on the mat"], [["the cat ate the mat"]])
        >>> metric.update("a b c", ["a b c", "x y"])
        >>> metric.compute()
        tensor(0.5000, dtype=torch.float64)
        >>> metric.totals()
        (12, 24, 20, 24)
        >>> sentences = GoogleBLEUScore(return_sentence_scores=True)
        >>> sentences(["the cat sat on the mat", "a b c"], ["the cat ate the mat", "a b c"])
        (tensor(0.5000, dtype=torch.float64), tensor([0.3333, 1.0000], dtype=torch.float64))
    """

    is_differentiable: bool = False
    higher_is_better: bool = True
    full_state_update: bool = False
    plot_lower_bound: float = 0.0
    plot_upper_bound: float = 1.0

    n_match: Tensor
    n_hyp: Tensor
    n_ref: Tensor
    n_all: Tensor

    def __init__(
        self,
        scorer: Optional[GLEU] = None,
        return_sentence_scores: bool = False,
        **kwargs: Any,
    ) -> None:
        check_bool(return_sentence_scores, "return_sentence_scores")
        # The settings among the keywords (BLEUScore(n_gram=4) style); the rest are torchmetrics'.
        scorer = scorer_from_options(scorer, {key: kwargs.pop(key) for key in SETTINGS if key in kwargs})
        super().__init__(**kwargs)
        self.scorer = scorer
        self.return_sentence_scores = return_sentence_scores
        for name in COLUMNS:
            self.add_state(name, default=torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        if return_sentence_scores:
            self.add_state(SENTENCE_STATE, default=[], dist_reduce_fx="cat")

    # torchmetrics counts an update before running it and, in forward, resets the states
    # before the batch is counted; a rejected batch must leave everything as it was.
    _RESTORED_ON_ERROR = ("_update_count", "_computed", "_to_sync", "_should_unsync", "compute_on_cpu", "_enable_grad")

    def _snapshot(self) -> dict[str, Any]:
        names = (*self._defaults, *self._RESTORED_ON_ERROR)
        # List states are cleared in place by reset(): keep a copy of the list.
        return {
            name: list(value) if isinstance(value, list) else value
            for name in names
            if hasattr(self, name)
            for value in (getattr(self, name),)
        }

    def _restore(self, snapshot: dict[str, Any]) -> None:
        for name, value in snapshot.items():
            setattr(self, name, value)

    def _wrap_update(self, update: Callable) -> Callable:
        wrapped = super()._wrap_update(update)

        @functools.wraps(update)
        def guarded(*args: Any, **kwargs: Any) -> None:
            snapshot = self._snapshot()
            try:
                wrapped(*args, **kwargs)
            except BaseException:  # Ctrl-C too: a batch is counted whole or not at all
                self._restore(snapshot)
                raise

        return guarded

    @torch.jit.unused  # as torchmetrics' own Metric.forward: text metrics run in Python
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Scores a batch and adds it to the states (torchmetrics' ``forward``)."""
        snapshot = self._snapshot()
        try:
            return super().forward(*args, **kwargs)
        except BaseException:  # Ctrl-C too
            self._restore(snapshot)
            raise

    def merge_state(self, incoming_state: Union[dict[str, Any], Metric]) -> None:
        """Adds another metric's states (or a state dict) to this one (torchmetrics' ``merge_state``).

        Everything is checked before anything is kept: the merged totals must be int64
        scalars forming possible GLEU statistics (``GleuStats``' checks), else the metric is
        left exactly as it was. A value cached by an earlier ``compute()`` is dropped.

        Raises:
            ValueError: If the other metric counts with other settings, a state is missing,
                or a state is not a non-negative integer count that GLEU can produce
                (nothing is merged then).
        """
        state = incoming_state
        if isinstance(incoming_state, GoogleBLEUScore):
            if incoming_state.scorer != self.scorer:
                raise ValueError(
                    f"cannot merge a metric counted with {incoming_state.scorer!r} into one counted with {self.scorer!r}"
                )
            state = incoming_state.metric_state
        if isinstance(state, dict):
            missing = [name for name in self._defaults if name not in state]
            if missing:
                raise ValueError(f"incoming_state has no {missing} state (keys: {sorted(state)})")
            for name in COLUMNS:
                value = state[name]
                if not (isinstance(value, Tensor) and value.dim() == 0 and value.dtype == torch.int64):
                    raise ValueError(f"incoming_state[{name!r}] must be a 0-d int64 tensor (a count), got {describe(value)}")
        snapshot = self._snapshot()
        try:
            super().merge_state(incoming_state)
            # The merged totals, checked as GLEU statistics (non-negative, possible, in int64).
            GleuStats([[int(getattr(self, name)) for name in COLUMNS]], self.scorer.min_len, self.scorer.max_len)
            if self.return_sentence_scores:
                rows = getattr(self, SENTENCE_STATE)
                if rows:
                    GleuStats(torch.cat([torch.atleast_2d(row) for row in rows]).tolist(), self.scorer.min_len, self.scorer.max_len)
        except BaseException:  # Ctrl-C too
            self._restore(snapshot)
            raise
        self._computed = None

    def _apply(self, fn: Callable, exclude_state: Sequence[str] = "") -> Any:
        if self._dtype_convert:
            # set_dtype converts every state; these are exact integer counts and stay int64.
            exclude_state = tuple(self._defaults)
        return super()._apply(fn, exclude_state)

    def _sync_dist(self, *args: Any, **kwargs: Any) -> None:
        rows = getattr(self, SENTENCE_STATE, None)
        if isinstance(rows, list) and not rows:
            # torchmetrics gives a rank without sentences an empty tensor of the metric's float
            # dtype, and a gather of int64 rows from one rank and floats from another breaks.
            empty = torch.zeros((0, len(COLUMNS)), dtype=torch.int64, device=self.n_match.device)
            setattr(self, SENTENCE_STATE, [empty])
        super()._sync_dist(*args, **kwargs)

    def update(self, preds: Union[str, Sequence[str]], target: Sequence[Union[str, Sequence[str]]]) -> None:
        """Counts a batch.

        Args:
            preds: A prediction or a list of predictions.
            target: Per prediction a list of references (or one reference string); see
                the module's conventions (as ``BLEUScore``).
        """
        predictions, references = _as_text_batch(preds, target)
        stats = self.scorer.stats(predictions, references)
        # Everything that can fail has run: only now are the states touched.
        totals = torch.tensor(stats.totals(), dtype=torch.int64, device=self.n_match.device)
        for i, name in enumerate(COLUMNS):
            setattr(self, name, getattr(self, name) + totals[i])
        if self.return_sentence_scores:
            getattr(self, SENTENCE_STATE).append(torch.from_numpy(np.array(stats.rows)).to(self.n_match.device))

    def _stats(self) -> GleuStats:
        totals = [int(getattr(self, name).item()) for name in COLUMNS]
        return GleuStats(np.asarray([totals], np.int64), self.scorer.min_len, self.scorer.max_len)

    def totals(self) -> tuple[int, int, int, int]:
        """The current totals ``(n_match, n_hyp, n_ref, n_all)`` as Python ints (this process)."""
        return self._stats().totals()

    def _sentence_rows(self) -> Tensor:
        rows = getattr(self, SENTENCE_STATE)
        if isinstance(rows, list):
            rows = torch.cat(rows) if rows else torch.zeros((0, len(COLUMNS)), dtype=torch.int64)
        # A synced rank without sentences contributes torchmetrics' empty 1-d placeholder.
        return rows.reshape(-1, len(COLUMNS)).to(torch.int64)

    def compute(self) -> Union[Tensor, tuple[Tensor, Tensor]]:
        """Corpus GLEU, and the sentence scores when ``return_sentence_scores``.

        Both are float64 CPU tensors: float64 holds the exact ratio ``n_match / n_all``
        (the scorer's float), and not every accelerator has float64.
        """
        score = torch.tensor(self._stats().score(), dtype=torch.float64)
        if not self.return_sentence_scores:
            return score
        rows = self._sentence_rows().cpu().numpy()
        sentence = GleuStats(rows, self.scorer.min_len, self.scorer.max_len).sentence_scores()
        return score, torch.from_numpy(np.asarray(sentence, np.float64))
