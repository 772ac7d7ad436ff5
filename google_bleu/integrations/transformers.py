"""A ``compute_metrics`` for transformers' ``Trainer`` and ``Seq2SeqTrainer``: :class:`ComputeMetrics`
(docs/training.md). Nothing here imports torch or transformers."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..settings import GLEU, scorer_from_options
from ..stats import GleuStats
from ..validation import describe, integer

# transformers' ignore index in labels, and its padding value across batches and processes.
IGNORE_INDEX = -100


def _to_numpy(array: Any) -> np.ndarray:
    # torch tensors (batch_eval_metrics passes them, possibly on GPU, possibly bfloat16).
    if hasattr(array, "detach"):
        array = array.detach()
        if array.is_floating_point():
            array = array.float()
        array = array.cpu().numpy()
    return np.asarray(array)


class ComputeMetrics:
    """A ``compute_metrics`` for ``Trainer``/``Seq2SeqTrainer`` with the model's tokenizer, returning
    ``{"google_bleu", "precision", "recall", "gen_len"}`` (``gen_len``: mean non-padding tokens).

    Example:
        >>> import numpy as np
        >>> class Words:  # any tokenizer with batch_decode and pad_token_id
        ...     pad_token_id = 0
        ...     vocab = ["<pad>", "the", "cat", "sat", "on", "mat", "ate"]
        ...     def batch_decode(self, rows, skip_special_tokens=False):
        ...         return [" ".join(self.vocab[i] for i in row if i or not skip_special_tokens) for row in rows]
        >>> compute_metrics = ComputeMetrics(Words())
        >>> predictions = np.array([[1, 2, 3, 4, 1, 5], [1, 2, -100, -100, -100, -100]])
        >>> labels = np.array([[1, 2, 6, 1, 5], [1, 2, -100, -100, -100]])
        >>> compute_metrics((predictions, labels))
        {'google_bleu': 0.42857142857142855, 'precision': 0.42857142857142855, 'recall': 0.5294117647058824, 'gen_len': 4.0}
        >>> compute_metrics((predictions[:1], labels[:1]), compute_result=False)
        {}
        >>> compute_metrics((predictions[1:], labels[1:]), compute_result=True)["google_bleu"]
        0.42857142857142855
    """

    def __init__(self, tokenizer: Any, /, scorer: GLEU | None = None, **settings: Any) -> None:
        scorer = scorer_from_options(scorer, settings, caller="ComputeMetrics")
        if not callable(getattr(tokenizer, "batch_decode", None)):
            raise TypeError(f"tokenizer must be a transformers tokenizer with batch_decode, got {type(tokenizer).__name__}")
        pad_token_id = getattr(tokenizer, "pad_token_id", None)
        if pad_token_id is None:
            raise ValueError("the tokenizer has no pad_token_id: set one (e.g. tokenizer.pad_token = tokenizer.eos_token)")
        if integer(pad_token_id) is None:
            raise TypeError(f"the tokenizer's pad_token_id must be an integer, got {describe(pad_token_id)}")
        self.tokenizer = tokenizer
        self.pad_token_id = int(pad_token_id)
        self.scorer = scorer
        self.reset()

    def reset(self) -> None:
        """Forgets the statistics accumulated with ``compute_result=False``."""
        self._stats = GleuStats.empty(self.scorer.min_len, self.scorer.max_len)
        self._gen_tokens = self._gen_count = 0

    def token_ids(self, predictions: Any) -> np.ndarray:
        """Predicted token ids ``[batch, length]`` from ids, logits, or a tuple of them."""
        if isinstance(predictions, tuple):
            # Models return (logits, past_key_values, ...) or (logits, encoder_states, ...).
            predictions = predictions[0]
        array = _to_numpy(predictions)
        if array.ndim == 3 and np.issubdtype(array.dtype, np.floating):
            # Logits [batch, length, vocab]. Positions the Trainer padded across batches
            # hold -100 for every vocabulary entry: they are padding, not token 0.
            padded = np.all(array == IGNORE_INDEX, axis=-1)
            array = np.where(padded, IGNORE_INDEX, array.argmax(axis=-1))
        if array.ndim != 2:
            raise ValueError(f"predictions must be token ids [batch, length] or logits [batch, length, vocab], got shape {array.shape} and dtype {array.dtype}")
        return self._decodable(array, "predicted")

    def _decodable(self, array: np.ndarray, name: str) -> np.ndarray:
        """Ids ``batch_decode`` can take (0 to 2**32 - 1, -100 read as padding); anything else would
        fail with an ``OverflowError`` deep inside the tokenizer, naming neither side."""
        if not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"{name} token ids must be integers, got dtype {array.dtype}")
        array = np.where(array == IGNORE_INDEX, self.pad_token_id, array)
        if array.size:
            low, high = int(array.min()), int(array.max())
            if low < 0:
                raise ValueError(f"{name} token ids must be >= 0 (or {IGNORE_INDEX}, transformers' ignore index, for padding), got {low}")
            if high >= 1 << 32:
                raise ValueError(f"{name} token ids must be below 2**32 (a tokenizer's ids), got {high}")
        return array

    def decode(self, token_ids: np.ndarray) -> list[str]:
        """``batch_decode(skip_special_tokens=True)``, stripped (``-100`` already replaced)."""
        texts = self.tokenizer.batch_decode(token_ids.tolist(), skip_special_tokens=True)
        return [text.strip() for text in texts]

    def batch(self, eval_pred: Any) -> tuple[GleuStats, int, int]:
        """Statistics of one batch: GLEU rows, generated tokens, and predictions."""
        if hasattr(eval_pred, "predictions") and hasattr(eval_pred, "label_ids"):
            predictions, labels = eval_pred.predictions, eval_pred.label_ids
        else:
            predictions, labels = eval_pred[0], eval_pred[1]
        prediction_ids = self.token_ids(predictions)
        label_ids = _to_numpy(labels[0] if isinstance(labels, tuple) else labels)
        if label_ids.ndim != 2:
            raise ValueError(f"labels must be token ids [batch, length], got shape {label_ids.shape}")
        if len(prediction_ids) != len(label_ids):
            raise ValueError(f"got {len(prediction_ids)} predictions but {len(label_ids)} labels")
        label_ids = self._decodable(label_ids, "label")
        stats = self.scorer.stats(self.decode(prediction_ids), self.decode(label_ids), ("decoded predictions", "decoded labels"))
        # Generated length as transformers' examples define it: tokens other than padding.
        gen_tokens = int(np.count_nonzero(prediction_ids != self.pad_token_id))
        return stats, gen_tokens, len(prediction_ids)

    def __call__(self, eval_pred: Any, compute_result: bool | None = None) -> dict[str, float]:
        """Scores an ``EvalPrediction`` (or ``(predictions, labels)``) alone (``compute_result=None``), or
        adds its statistics and returns ``{}`` (``False``) or the result of everything added since the
        last result (``True``)."""
        stats, gen_tokens, count = self.batch(eval_pred)
        if compute_result is None:
            return self.result(stats, gen_tokens, count)
        self._stats = GleuStats.summed([self._stats, stats])
        self._gen_tokens += gen_tokens
        self._gen_count += count
        if not compute_result:
            return {}
        output = self.result(self._stats, self._gen_tokens, self._gen_count)
        self.reset()
        return output

    @staticmethod
    def result(stats: GleuStats, gen_tokens: int, count: int) -> dict[str, float]:
        """The metrics dict: ``google_bleu``, ``precision``, ``recall``, ``gen_len``."""
        scores = {"google_bleu": stats.score(), "precision": stats.precision(), "recall": stats.recall()}
        return {**scores, "gen_len": gen_tokens / count if count else 0.0}
