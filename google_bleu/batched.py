"""Batched Google-BLEU on token ids with torch, on CPU or GPU: per-sentence RL rewards.

GLEU was made as a sentence-level reward for reinforcement learning (Wu et al. 2016,
GNMT). This module scores a whole batch of token-id sequences at once, on the device the
ids live on, with each score equal to nltk's ``sentence_gleu`` on the same id lists.

How it works, in the spirit of TensorBLEU (arXiv 2510.05485), which did this for BLEU:

1. Padding is removed once: every hypothesis and reference becomes a run in one flat id
   array (row-major, so token order is kept), each run followed by a separator id of
   its own, so an n-gram that runs past its sequence is unique and never matches.
2. Order 1: each position gets the exact integer key ``(row, token)``; one
   ``unique(return_inverse=True)`` turns the keys into a compact per-batch dictionary
   of n-gram ids that are specific to a row (a hypothesis only meets its own
   references). Order n+1: the key ``(id of the n-gram at p, token at p+n)`` names the
   (n+1)-gram at p exactly. Only n-grams that occur in a row's hypothesis and in one of
   its references are extended, since nothing else can lead to a longer match. On GPUs
   this step is ``torch.unique``; on CPU the same steps run with numpy on views of the
   tensors (torch's CPU sort and gathers were several times slower), grouping the exact
   keys with the engine's verified hash table instead of a sort.
3. Per order, an offset ``bincount`` counts each dictionary entry in the hypothesis and
   in each reference slot; clipped matches ``min(hyp count, ref count)`` are summed per
   ``(row, reference)``.
4. GLEU's rule, not BLEU's max-count clip: per row the reference with the highest ratio
   ``n_match / max(n_hyp, n_ref)`` is kept, the first one on a tie (nltk's ``max``). A
   reference for which ``max(n_hyp, n_ref) == 0`` is not a candidate; a row where no
   reference is a candidate scores 0.0 and contributes a zero row of statistics.

Hypothesis and reference n-gram totals follow from lengths alone, so a row shorter than
an order simply has no n-grams of that order, without affecting any other row.

Scores are ``float64``: ``n_match / n_all`` divides two exactly represented integers
with one correctly rounded IEEE division, as Python does, so every score equals nltk's
float (``==``). Statistics are ``int64``.

torch is imported when these functions are called, never by ``import google_bleu``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .engine import _group_keys
from .stats import COLUMNS, GleuStats
from .validation import check_orders, describe

if TYPE_CHECKING:
    import torch

# Largest key the packed integer keys may reach (they stay below 2**62 to leave room).
_KEY_LIMIT = 1 << 62


class _Batch:
    """All sequences of a batch in one flat id array, plus where each sequence lies."""

    __slots__ = ("tokens", "lengths", "n_rows", "n_slots", "present", "device")

    def __init__(self, tokens, lengths, n_rows: int, n_slots: int, present, device) -> None:
        # tokens: int64 [T]; sequences are the B hypotheses, then the references row by
        # row, slot by slot (only the present ones); lengths: int64 [B + n_present].
        self.tokens = tokens
        self.lengths = lengths
        self.n_rows = n_rows
        self.n_slots = n_slots
        self.present = present  # bool [B, R]: reference slot holds a reference
        self.device = device


def _check_pad_id(pad_id: Any) -> int | None:
    if pad_id is None:
        return None
    if isinstance(pad_id, bool) or not hasattr(pad_id, "__index__"):
        raise TypeError(f"pad_id must be an integer or None, got {describe(pad_id)}")
    return int(pad_id)


def _check_integer_tensor(torch, name: str, tensor) -> None:
    if tensor.dtype == torch.bool or tensor.is_floating_point() or tensor.is_complex():
        raise TypeError(f"{name} must hold integer token ids, got dtype {tensor.dtype}")


def _lengths_tensor(torch, name: str, lengths: Any, shape: tuple[int, ...], size: int, device):
    """Validates explicit lengths for tensor input: integers in ``0..size`` of this shape."""
    if not isinstance(lengths, torch.Tensor):
        try:
            lengths = torch.as_tensor(np.asarray(lengths))
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be integers, got {describe(lengths)}") from None
    _check_integer_tensor(torch, name, lengths)
    if tuple(lengths.shape) != shape:
        raise ValueError(f"{name} must have shape {list(shape)}, got {list(lengths.shape)}")
    lengths = lengths.to(device=device, dtype=torch.int64)
    if lengths.numel():
        low, high = int(lengths.min()), int(lengths.max())
        if low < 0 or high > size:
            raise ValueError(f"{name} must lie in 0..{size} (the padded length), got values from {low} to {high}")
    return lengths


def _flatten_padded(torch, matrix, pad_id: int | None, lengths):
    """Flat ids and lengths of the rows of a padded ``[N, L]`` id matrix."""
    keep = None
    if lengths is not None:
        keep = torch.arange(matrix.shape[1], device=matrix.device)[None, :] < lengths[:, None]
    if pad_id is not None:
        not_pad = matrix != pad_id
        keep = not_pad if keep is None else keep & not_pad
    if keep is None:
        return matrix.reshape(-1), torch.full(
            (matrix.shape[0],), matrix.shape[1], dtype=torch.int64, device=matrix.device
        )
    return matrix[keep], keep.sum(dim=1)


def _as_id_array(name: str, sequence: Any) -> np.ndarray:
    """One id sequence (list of ints, 1-D array or tensor) as int64 numpy."""
    if isinstance(sequence, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of integer token ids, got {describe(sequence)}")
    if hasattr(sequence, "detach"):  # a torch tensor, possibly on a GPU
        sequence = sequence.detach().cpu().numpy()
    try:
        array = np.asarray(sequence)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of integer token ids, got {describe(sequence)}") from None
    if array.ndim != 1:
        if array.ndim == 0:
            raise TypeError(f"{name} must be a sequence of integer token ids, got {describe(sequence)}")
        raise ValueError(f"{name} must be one sequence of ids (1-D), got shape {list(array.shape)}")
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer token ids, got {array.dtype} values such as {array[0]!r}")
    if array.dtype.kind == "u" and array.size and int(array.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds ids above the int64 range")
    return array.astype(np.int64, copy=False)


def _is_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "dim")


def _check_sequence(name: str, value: Any) -> None:
    if isinstance(value, (str, bytes, dict)) or not (hasattr(value, "__len__") and hasattr(value, "__getitem__")):
        raise TypeError(f"{name} must be a sequence, got {describe(value)}")


def _list_sides(name: str, rows: Sequence, pad_id: int | None) -> list[np.ndarray]:
    arrays = [_as_id_array(f"{name}[{i}]", row) for i, row in enumerate(rows)]
    if pad_id is not None:
        arrays = [array[array != pad_id] for array in arrays]
    return arrays


def _prepare(
    hypotheses: Any,
    references: Any,
    pad_id: Any,
    hypothesis_lengths: Any,
    reference_lengths: Any,
    device: Any,
) -> _Batch:
    import torch

    pad_id = _check_pad_id(pad_id)
    hyp_is_tensor, ref_is_tensor = _is_tensor(hypotheses), _is_tensor(references)
    if hyp_is_tensor and ref_is_tensor and hypotheses.device != references.device:
        raise ValueError(
            f"hypotheses and references must be on the same device, got {hypotheses.device} and {references.device}"
        )
    if device is None:
        device = hypotheses.device if hyp_is_tensor else references.device if ref_is_tensor else torch.device("cpu")
    device = torch.device(device)

    # -- hypotheses -----------------------------------------------------------------
    if hyp_is_tensor:
        _check_integer_tensor(torch, "hypotheses", hypotheses)
        if hypotheses.dim() != 2:
            raise ValueError(f"hypotheses must be a 2-D tensor [batch, length], got shape {list(hypotheses.shape)}")
        matrix = hypotheses.to(device=device, dtype=torch.int64)
        n_rows = matrix.shape[0]
        lengths = None
        if hypothesis_lengths is not None:
            lengths = _lengths_tensor(
                torch, "hypothesis_lengths", hypothesis_lengths, (n_rows,), matrix.shape[1], device
            )
        hyp_tokens, hyp_lengths = _flatten_padded(torch, matrix, pad_id, lengths)
    else:
        _check_sequence("hypotheses", hypotheses)
        if hypothesis_lengths is not None:
            raise ValueError(
                "hypothesis_lengths applies to a padded tensor; a list of id lists carries its own lengths"
            )
        arrays = _list_sides("hypotheses", hypotheses, pad_id)
        n_rows = len(arrays)
        hyp_tokens = torch.from_numpy(np.concatenate(arrays) if arrays else np.zeros(0, np.int64)).to(device)
        hyp_lengths = torch.tensor([a.size for a in arrays], dtype=torch.int64, device=device)

    # -- references -----------------------------------------------------------------
    if ref_is_tensor:
        _check_integer_tensor(torch, "references", references)
        if references.dim() not in (2, 3):
            raise ValueError(
                "references must be a tensor [batch, length] or [batch, n_references, length], "
                f"got shape {list(references.shape)}"
            )
        ref3 = references if references.dim() == 3 else references[:, None, :]
        if ref3.shape[0] != n_rows:
            raise ValueError(f"got {n_rows} hypotheses but {ref3.shape[0]} rows of references")
        n_slots = ref3.shape[1]
        if n_slots == 0 and n_rows:
            raise ValueError(f"references has shape {list(references.shape)}: every row needs at least one reference")
        lengths = None
        if reference_lengths is not None:
            shape = (n_rows,) if references.dim() == 2 else (n_rows, n_slots)
            lengths = _lengths_tensor(torch, "reference_lengths", reference_lengths, shape, ref3.shape[2], device)
            lengths = lengths.reshape(-1)
        matrix = ref3.to(device=device, dtype=torch.int64).reshape(n_rows * n_slots, ref3.shape[2])
        ref_tokens, ref_lengths = _flatten_padded(torch, matrix, pad_id, lengths)
        present = torch.ones((n_rows, n_slots), dtype=torch.bool, device=device)
    else:
        _check_sequence("references", references)
        if reference_lengths is not None:
            raise ValueError("reference_lengths applies to a padded tensor; lists of id lists carry their own lengths")
        if len(references) != n_rows:
            raise ValueError(f"got {n_rows} hypotheses but {len(references)} reference lists")
        arrays: list[np.ndarray] = []
        counts = []
        for i, refs in enumerate(references):
            if isinstance(refs, (str, bytes)) or not hasattr(refs, "__len__"):
                raise TypeError(
                    f"references[{i}] must be a list of references (each a sequence of ids), got {describe(refs)}"
                )
            if len(refs) == 0:
                raise ValueError(f"row {i} has no reference; every hypothesis needs at least one")
            first = refs[0]
            if isinstance(first, (int, np.integer)) or (_is_tensor(first) and first.dim() == 0):
                raise TypeError(
                    f"references[{i}] must be a list of references, each a sequence of ids, got a flat id list "
                    f"{describe(refs)}; wrap a single reference: references=[[ref] for ref in references]"
                )
            row = _list_sides(f"references[{i}]", refs, pad_id)
            arrays.extend(row)
            counts.append(len(row))
        n_slots = max(counts, default=0)
        ref_tokens = torch.from_numpy(np.concatenate(arrays) if arrays else np.zeros(0, np.int64)).to(device)
        ref_lengths = torch.tensor([a.size for a in arrays], dtype=torch.int64, device=device)
        counts_t = torch.tensor(counts, dtype=torch.int64, device=device)
        present = torch.arange(n_slots, device=device)[None, :] < counts_t[:, None]

    tokens = torch.cat([hyp_tokens, ref_tokens])
    lengths = torch.cat([hyp_lengths, ref_lengths])
    return _Batch(tokens, lengths, n_rows, n_slots, present, device)


class _NumpyOps:
    """Array operations on CPU: numpy's, which run several times faster than torch's there.

    Measured on this project's 2-core machine with one torch thread: gathers 3x, sorts
    10x, ``nonzero`` 8x. torch CPU tensors share memory with numpy, so nothing is copied.
    """

    @staticmethod
    def arange(n: int):
        return np.arange(n, dtype=np.int64)

    @staticmethod
    def empty(n: int):
        return np.empty(n, dtype=np.int64)

    @staticmethod
    def repeat(values, counts):
        return np.repeat(values, counts)

    @staticmethod
    def flatnonzero(mask):
        return np.flatnonzero(mask)

    @staticmethod
    def bincount(values, minlength: int):
        return np.bincount(values, minlength=minlength)

    @staticmethod
    def minimum(a, b):
        return np.minimum(a, b)

    @staticmethod
    def compact(values):
        """Dense ids ``0..k-1`` for the distinct values, in value order."""
        return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64, copy=False)

    @staticmethod
    def group(keys, positions, side, n_sides: int):
        """The dictionary step: ``(distinct keys, entry id, positions, side)``.

        The engine's verified hash grouping (:func:`google_bleu.engine._group`): one pass
        of scatters and gathers, no sort (numpy's sort is several times slower on some
        processors, AMD Zen 4 among them). Entries come in no particular order, and the
        occurrences keep theirs.
        """
        rep = _group_keys(keys)  # keys are non-negative
        first = rep == np.arange(rep.size)
        index = np.cumsum(first)
        index -= 1
        return keys[first], np.take(index, rep), positions, side

    @staticmethod
    def row_sums(values, rows, n_rows: int):
        """``[n_rows, R]``: per row, the sums of the columns of ``values`` ``[R, entries]`` in it."""
        n_slots = values.shape[0]
        cells = rows * n_slots + np.arange(n_slots)[:, None]
        # float64 sums of counts this small are exact
        sums = np.bincount(cells.reshape(-1), weights=values.reshape(-1), minlength=n_rows * n_slots)
        return sums.astype(np.int64).reshape(n_rows, n_slots)


class _TorchOps:
    """The same operations with torch, on any device (TensorBLEU's ``torch.unique``)."""

    def __init__(self, device) -> None:
        import torch

        self.torch = torch
        self.device = device

    def arange(self, n: int):
        return self.torch.arange(n, device=self.device)

    def empty(self, n: int):
        return self.torch.empty(n, dtype=self.torch.int64, device=self.device)

    def repeat(self, values, counts):
        return self.torch.repeat_interleave(values, counts)

    @staticmethod
    def flatnonzero(mask):
        return mask.nonzero().squeeze(1)

    def bincount(self, values, minlength: int):
        return self.torch.bincount(values, minlength=minlength)

    def minimum(self, a, b):
        return self.torch.minimum(a, b)

    def compact(self, values):
        return self.torch.unique(values, return_inverse=True)[1]

    def group(self, keys, positions, side, n_sides: int):
        distinct, inverse = self.torch.unique(keys, return_inverse=True)
        return distinct, inverse, positions, side

    def row_sums(self, values, rows, n_rows: int):
        # torch.unique's entries ascend, and so do their rows: a row's entries are contiguous,
        # and its sums are differences of running sums (exact integers).
        running = self.torch.cat([values[:, :1] * 0, values.cumsum(1)], dim=1)
        per_row = self.torch.bincount(rows, minlength=n_rows)
        ends = per_row.cumsum(0)
        return (running[:, ends] - running[:, ends - per_row]).T


def _ngram_totals(lengths, min_len: int, max_len: int):
    """N-grams of orders ``min_len..max_len`` in sequences of these lengths (as the engine's)."""
    top = lengths.clamp(max=max_len)
    terms = (top - min_len + 1).clamp(min=0)
    return (terms * (2 * lengths - min_len - top + 2)) // 2


def _count_matches(ops, tokens, lengths, seq_row, seq_side, n_rows: int, n_slots: int, min_len: int, max_len: int):
    """Clipped n-gram matches per ``(row, reference slot)``, int64 ``[B, R]``, with ``ops``'s arrays.

    ``tokens``: all sequences' ids, one after the other; ``lengths``: per sequence; per
    sequence also its row and side (0: the hypothesis, ``1 + slot``: a reference).
    """
    n_tokens = int(tokens.shape[0])
    n_sides = n_slots + 1
    n_sequences = int(lengths.shape[0])
    matches = ops.bincount(ops.arange(0), minlength=n_rows * n_slots).reshape(n_rows, n_slots)  # zeros
    if n_tokens == 0:
        return matches

    # Token ids as small non-negative integers: shifted when their range is small, else compacted.
    low, high = int(tokens.min()), int(tokens.max())
    if (high - low + 1) * max(n_rows, 1) < _KEY_LIMIT and high - low < n_tokens * 64:
        token_ids, vocab = tokens - low, high - low + 1
    else:
        token_ids = ops.compact(tokens - low)
        vocab = int(token_ids.max()) + 1
    # Each sequence is followed by a separator id of its own. An n-gram running into one
    # is unique to its sequence, so it never matches and is never extended: no bounds
    # checks are needed, and such n-grams add nothing (totals come from lengths).
    sequence = ops.arange(n_sequences)
    positions = ops.arange(n_tokens) + ops.repeat(sequence, lengths)
    text = ops.empty(n_tokens + n_sequences)
    text[positions] = token_ids
    text[lengths.cumsum(0) + sequence] = vocab + sequence
    vocab += n_sequences

    side = ops.repeat(seq_side, lengths)
    keys = ops.repeat(seq_row, lengths) * vocab + token_ids
    entry_row = ngram = keys[:0]
    n_entries = 0
    for order in range(1, max_len + 1):
        if order > 1:
            if int(positions.shape[0]) == 0:
                break
            if n_entries * vocab >= _KEY_LIMIT:
                raise ValueError(f"batch too large for exact 63-bit n-gram keys ({n_tokens} tokens); split it")
            # The (n+1)-gram at p is the n-gram at p followed by the token at p+n.
            keys = ngram * vocab + text[positions + (order - 1)]
        entry_keys, ngram, positions, side = ops.group(keys, positions, side, n_sides)
        n_entries = int(entry_keys.shape[0])
        # Row of each dictionary entry: order 1 has it in the key, later orders inherit it.
        entry_row = entry_keys // vocab if order == 1 else entry_row[entry_keys // vocab]
        # Offset bincount, side-major: row 0 counts each entry in the hypothesis, row
        # 1 + j in reference j, so every later step runs over contiguous memory.
        counts = ops.bincount(side * n_entries + ngram, minlength=n_sides * n_entries).reshape(n_sides, n_entries)
        clipped = ops.minimum(counts[1:], counts[:1])  # [R, entries]
        # Only n-grams shared by a hypothesis and one of its references match, and only
        # they can extend to longer matches.
        live = (clipped > 0).any(0)
        shared = ops.flatnonzero(live)
        if order >= min_len and int(shared.shape[0]):
            matches = matches + ops.row_sums(clipped[:, shared], entry_row[shared], n_rows)
        if order == max_len or not int(shared.shape[0]):
            break
        keep = ops.flatnonzero(live[ngram])
        positions, ngram, side = positions[keep], ngram[keep], side[keep]
    return matches


def _matches(batch: _Batch, min_len: int, max_len: int):
    """Clipped n-gram matches per ``(row, reference slot)``: int64 ``[B, R]`` on the batch's device."""
    import torch

    device = batch.device
    n_rows = batch.n_rows
    ref_row, ref_slot = batch.present.nonzero(as_tuple=True)
    seq_row = torch.cat([torch.arange(n_rows, device=device), ref_row])
    seq_side = torch.cat([torch.zeros(n_rows, dtype=torch.int64, device=device), ref_slot + 1])
    arrays = (batch.tokens, batch.lengths, seq_row, seq_side)
    ops = _ops_for(device)
    if ops is not _NumpyOps:
        return _count_matches(ops, *arrays, n_rows, batch.n_slots, min_len, max_len)
    arrays = tuple(array.numpy() for array in arrays)
    matches = _count_matches(ops, *arrays, n_rows, batch.n_slots, min_len, max_len)
    return torch.from_numpy(np.ascontiguousarray(matches, dtype=np.int64))


def _ops_for(device) -> Any:
    """numpy's operations for CPU tensors (zero-copy views), torch's on other devices."""
    return _NumpyOps if device.type == "cpu" else _TorchOps(device)


def _choose(batch: _Batch, matches, min_len: int, max_len: int):
    """GLEU statistics per row with nltk's choice of reference: int64 ``[B, 4]``."""
    import torch

    device = batch.device
    n_rows, n_slots = batch.n_rows, batch.n_slots
    counts = _ngram_totals(batch.lengths, min_len, max_len)
    n_hyp = counts[:n_rows]
    n_ref = torch.zeros((n_rows, n_slots), dtype=torch.int64, device=device)
    n_ref[batch.present] = counts[n_rows:]
    n_all = torch.maximum(n_ref, n_hyp[:, None])
    candidate = batch.present & (n_all > 0)
    # Same float64 division as nltk's ``tp / n_all``; -1 ranks below every candidate.
    ratio = torch.where(candidate, matches.double() / n_all.clamp(min=1).double(), torch.tensor(-1.0, device=device))
    best = ratio.max(dim=1, keepdim=True).values
    slot_index = torch.arange(n_slots, device=device).expand(n_rows, n_slots)
    # The first maximal reference, as Python's max() keeps it (explicit, not argmax's tie rule).
    chosen = torch.where(ratio == best, slot_index, n_slots).min(dim=1, keepdim=True).values
    rows = torch.stack(
        [
            matches.gather(1, chosen)[:, 0],
            n_hyp,
            n_ref.gather(1, chosen)[:, 0],
            n_all.gather(1, chosen)[:, 0],
        ],
        dim=1,
    )
    scored = candidate.any(dim=1)
    return torch.where(scored[:, None], rows, torch.zeros_like(rows))


def batch_gleu_stats(
    hypotheses: Any,
    references: Any,
    *,
    pad_id: int | None = None,
    hypothesis_lengths: Any = None,
    reference_lengths: Any = None,
    min_len: int = 1,
    max_len: int = 4,
    device: Any = None,
) -> torch.Tensor:
    """Per-row GLEU sufficient statistics of a batch of token ids, on the ids' device.

    Args:
        hypotheses: A 2-D integer tensor ``[B, L]`` (padded), or a list of ``B`` id
            sequences (lists of ints, 1-D arrays or tensors) of any lengths.
        references: A 2-D integer tensor ``[B, L]`` (one reference per row), a 3-D one
            ``[B, R, L]`` (``R`` references per row), or a list of ``B`` lists of id
            sequences (counts and lengths may vary; each row needs at least one).
        pad_id: Padding id. Every token equal to it is removed before counting (left,
            right or inner padding alike); any other id, ``0`` included, is a real token.
            ``None`` (default): nothing is removed by value.
        hypothesis_lengths: For tensor hypotheses, ``[B]`` lengths: only the first
            ``length`` ids of a row are its sequence (right padding, whatever its value).
        reference_lengths: For tensor references, ``[B]`` or ``[B, R]`` lengths.
            With both ``pad_id`` and lengths, a token must pass both to count.
        min_len: Lowest n-gram order (default 1).
        max_len: Highest n-gram order (default 4).
        device: Where list input is placed and counted (default: the device of a tensor
            argument, else CPU).

    Returns:
        ``int64`` tensor ``[B, 4]`` with columns ``(n_match, n_hyp, n_ref, n_all)``
        (:data:`google_bleu.stats.COLUMNS`), the same rows as
        :func:`google_bleu.gleu_stats` on the same id lists. Sum it for a corpus score or
        a running mean; :func:`to_gleu_stats` makes a :class:`~google_bleu.GleuStats`.

    Raises:
        TypeError: Non-integer ids or lengths, a string where ids belong.
        ValueError: Shape or count mismatches, a row without reference, lengths out of
            range, bad orders.

    Example:
        >>> import torch
        >>> hyp = torch.tensor([[5, 6, 7, -1], [0, 0, 1, 2]])
        >>> ref = torch.tensor([[5, 6, 8, -1], [0, 1, 2, -1]])
        >>> batch_gleu_stats(hyp, ref, pad_id=-1).tolist()
        [[3, 6, 6, 6], [6, 10, 6, 10]]
    """
    min_len, max_len = check_orders(min_len, max_len)
    batch = _prepare(hypotheses, references, pad_id, hypothesis_lengths, reference_lengths, device)
    if batch.n_rows == 0:
        import torch

        return torch.zeros((0, len(COLUMNS)), dtype=torch.int64, device=batch.device)
    return _choose(batch, _matches(batch, min_len, max_len), min_len, max_len)


def batch_sentence_gleu(
    hypotheses: Any,
    references: Any,
    *,
    pad_id: int | None = None,
    hypothesis_lengths: Any = None,
    reference_lengths: Any = None,
    min_len: int = 1,
    max_len: int = 4,
    device: Any = None,
) -> torch.Tensor:
    """Sentence GLEU of every row of a batch of token ids: one reward per row.

    Arguments as :func:`batch_gleu_stats`. Each score equals nltk's
    ``sentence_gleu(references[i], hypotheses[i], min_len, max_len)`` on the same id
    lists (after padding is removed), to the last bit.

    Returns:
        ``float64`` tensor ``[B]`` on the ids' device (``n_match / n_all``; 0.0 for a
        row where no reference gives an n-gram). float64 keeps nltk's exact values;
        cast with ``.float()`` if a trainer wants float32.

    Example:
        >>> import torch
        >>> hyp = torch.tensor([[1, 2, 3, 4, 5, 6]])
        >>> refs = torch.tensor([[[1, 2, 9, 4, 5, 6], [1, 2, 3, 4, 5, 0]]])  # [B=1, R=2, L=6]
        >>> scores = batch_sentence_gleu(hyp, refs)  # second reference: 14 of 18 n-grams
        >>> scores.dtype, scores.tolist()
        (torch.float64, [0.7777777777777778])
        >>> batch_sentence_gleu([[1, 2, 3]], [[[1, 2], [3]]]).tolist()  # lists of any lengths
        [0.5]
    """
    rows = batch_gleu_stats(
        hypotheses,
        references,
        pad_id=pad_id,
        hypothesis_lengths=hypothesis_lengths,
        reference_lengths=reference_lengths,
        min_len=min_len,
        max_len=max_len,
        device=device,
    )
    return stats_scores(rows)


def stats_scores(rows: torch.Tensor) -> torch.Tensor:
    """``n_match / n_all`` of each row of a ``[B, 4]`` statistics tensor (0.0 where ``n_all == 0``).

    Example:
        >>> import torch
        >>> stats_scores(torch.tensor([[1, 3, 2, 3], [0, 0, 0, 0]])).tolist()
        [0.3333333333333333, 0.0]
    """
    import torch

    n_match, n_all = rows[:, 0].double(), rows[:, 3]
    return torch.where(n_all > 0, n_match / n_all.clamp(min=1).double(), torch.zeros_like(n_match))


def to_gleu_stats(rows: torch.Tensor, min_len: int = 1, max_len: int = 4) -> GleuStats:
    """A ``[B, 4]`` statistics tensor (any device) as :class:`~google_bleu.GleuStats`.

    Pass the orders the rows were counted with; :class:`~google_bleu.GleuStats` refuses
    to add statistics of different orders.

    Example:
        >>> import torch
        >>> stats = to_gleu_stats(batch_gleu_stats(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1, 2], [3, 5]])))
        >>> stats.rows.tolist(), stats.score()
        ([[3, 3, 3, 3], [1, 3, 3, 3]], 0.6666666666666666)
    """
    if not _is_tensor(rows):
        raise TypeError(f"rows must be a torch tensor from batch_gleu_stats, got {describe(rows)}")
    if rows.dim() != 2 or rows.shape[1] != len(COLUMNS):
        raise ValueError(f"rows must have shape [B, {len(COLUMNS)}], got {list(rows.shape)}")
    return GleuStats(rows.detach().cpu().numpy(), min_len, max_len)
