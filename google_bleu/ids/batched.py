"""Batched Google-BLEU on token ids with torch, on CPU or GPU: per-sentence RL rewards.

GLEU was made as a sentence-level reward for reinforcement learning (Wu et al. 2016,
GNMT). This module scores a whole batch of token-id sequences at once, each score equal
to nltk's ``sentence_gleu`` on the same id lists. It holds tensor preparation, validation
and the public functions; the counting is the engine's one core
(:func:`google_bleu.engine.count_matches` and :func:`~google_bleu.engine.choose_references`):

- CPU tensors and id lists are read as numpy arrays (zero-copy for CPU tensors) and
  counted by the engine's numpy backend, the same path as token lists: no torch operation
  runs, so torch's thread settings do not matter.
- Tensors on another device are counted there by the engine's torch backend, whose every
  size is fixed by the input's shape: no value is read back to the host, so
  :class:`BatchScorer` can capture a call as a CUDA graph and replay it for every batch of
  the same shape. The same backend runs on CPU tensors (``BatchScorer`` on CPU), which is
  how it is tested without a GPU.

Padding: with ``pad_id`` every token equal to it is removed (left, right or inner
padding); with explicit lengths only the first ``length`` ids of a row count. Any other
id, ``0`` included, is a real token.

Scores are ``float64``: ``n_match / n_all`` divides two exactly represented integers
with one correctly rounded IEEE division, as Python does, so every score equals nltk's
float (``==``). Statistics are ``int64``.

torch is imported when these functions are called, never by ``import google_bleu``.
"""

from __future__ import annotations

from collections import OrderedDict
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import choose_references, count_matches, python_rows, rows_by_chunk, small_input
from ..keys import group_in_segments
from ..stats import COLUMNS, GleuStats, ratio
from ..validation import check_bool, check_orders, check_sequence, describe, integer, is_tensor
from .checks import check_device, check_id_tensor, check_lengths, check_pad_id, id_lists, id_references, torch_module
from .torch_backend import TorchBackend

if TYPE_CHECKING:
    import torch


def id_rows(
    hyp_ids: np.ndarray,
    hyp_lengths: np.ndarray,
    ref_ids: np.ndarray,
    n_refs: np.ndarray,
    ref_lengths: np.ndarray,
    min_len: int,
    max_len: int,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~google_bleu.engine.segment_rows` for integer token ids laid out flat, with numpy.

    Args:
        hyp_ids: ``int64`` ids of every hypothesis, one after the other.
        hyp_lengths: Per segment, its hypothesis length.
        ref_ids: ``int64`` ids of every reference, segment by segment.
        n_refs: Per segment, its number of references (at least 1).
        ref_lengths: Per reference, its length.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.
    """
    hyp_ends = np.cumsum(hyp_lengths)
    ref_ends = np.cumsum(ref_lengths)

    def groups(
        start: int, stop: int, ref_start: int, ref_stop: int, lengths: np.ndarray, segment_of: np.ndarray
    ) -> np.ndarray:
        first = int(hyp_ends[start - 1]) if start else 0
        ref_first = int(ref_ends[ref_start - 1]) if ref_start else 0
        ids = np.concatenate(
            (hyp_ids[first : int(hyp_ends[stop - 1])], ref_ids[ref_first : int(ref_ends[ref_stop - 1])])
        )
        return group_in_segments(ids.view(np.uint64), segment_of)

    return rows_by_chunk(groups, hyp_lengths, n_refs, ref_lengths, min_len, max_len)


class _Input:
    """A validated batch: each side either padded tensors (with optional lengths) or id lists.

    ``hyp``: ``("padded", [B, L] tensor, [B] lengths or None)`` or ``("ragged", [id lists])``;
    ``ref``: ``("padded", [B, R, L] tensor, [B, R] lengths or None)`` or
    ``("ragged", [[id lists] per row])``.
    """

    __slots__ = ("hyp", "ref", "n_rows", "device")

    def __init__(self, hyp: tuple, ref: tuple, n_rows: int, device: Any) -> None:
        self.hyp, self.ref, self.n_rows, self.device = hyp, ref, n_rows, device


def _read_input(
    torch: Any,
    hypotheses: Any,
    references: Any,
    pad_id: int | None,
    hypothesis_lengths: Any,
    reference_lengths: Any,
    device: Any,
    validate_lengths: bool = True,
) -> _Input:
    hyp_is_tensor, ref_is_tensor = is_tensor(hypotheses), is_tensor(references)
    if hyp_is_tensor and ref_is_tensor and hypotheses.device != references.device:
        raise ValueError(
            f"hypotheses and references must be on the same device, got {hypotheses.device} and {references.device}"
        )
    if device is None:
        device = hypotheses.device if hyp_is_tensor else references.device if ref_is_tensor else torch.device("cpu")
    device = check_device(torch, device)

    if hyp_is_tensor:
        check_id_tensor(torch, "hypotheses", hypotheses)
        if hypotheses.dim() != 2:
            raise ValueError(f"hypotheses must be a 2-D tensor [batch, length], got shape {list(hypotheses.shape)}")
        n_rows = int(hypotheses.shape[0])
        lengths = None
        if hypothesis_lengths is not None:
            lengths = check_lengths(
                torch,
                "hypothesis_lengths",
                hypothesis_lengths,
                (n_rows,),
                int(hypotheses.shape[1]),
                hypotheses.device,
                validate_lengths,
            )
        hyp: tuple = ("padded", hypotheses, lengths)
    else:
        check_sequence(hypotheses, "hypotheses", "a sequence of id sequences")
        if hypothesis_lengths is not None:
            raise ValueError(
                "hypothesis_lengths applies to a padded tensor; a list of id lists carries its own lengths"
            )
        rows = id_lists("hypotheses", hypotheses, pad_id)
        n_rows = len(rows)
        hyp = ("ragged", rows)

    if ref_is_tensor:
        check_id_tensor(torch, "references", references)
        if references.dim() not in (2, 3):
            raise ValueError(
                "references must be a tensor [batch, length] or [batch, n_references, length], "
                f"got shape {list(references.shape)}"
            )
        ref3 = references if references.dim() == 3 else references[:, None, :]
        if ref3.shape[0] != n_rows:
            raise ValueError(f"got {n_rows} hypotheses but {ref3.shape[0]} rows of references")
        n_slots = int(ref3.shape[1])
        if n_slots == 0 and n_rows:
            raise ValueError(f"references has shape {list(references.shape)}: every row needs at least one reference")
        lengths = None
        if reference_lengths is not None:
            shape = (n_rows,) if references.dim() == 2 else (n_rows, n_slots)
            lengths = check_lengths(
                torch,
                "reference_lengths",
                reference_lengths,
                shape,
                int(ref3.shape[2]),
                references.device,
                validate_lengths,
            )
            lengths = lengths.reshape(n_rows, n_slots)
        ref: tuple = ("padded", ref3, lengths)
    else:
        if reference_lengths is not None:
            raise ValueError("reference_lengths applies to a padded tensor; lists of id lists carry their own lengths")
        ref = ("ragged", id_references(references, n_rows, pad_id))
    return _Input(hyp, ref, n_rows, device)


# -- CPU: flat numpy arrays through the engine's numpy backend -------------------------


def flat_ids(matrix: Any, lengths: Any, pad_id: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Flat ids (row-major) and row lengths of a padded ``[N, L]`` tensor, with numpy."""
    ids = matrix.detach().cpu().numpy().astype(np.int64, copy=False)
    keep = None
    if lengths is not None:
        keep = np.arange(ids.shape[1])[None, :] < lengths.detach().cpu().numpy()[:, None]
    if pad_id is not None:
        keep = ids != pad_id if keep is None else keep & (ids != pad_id)
    if keep is None:
        return ids.reshape(-1), np.full(ids.shape[0], ids.shape[1], np.int64)
    return ids[keep], keep.sum(axis=1, dtype=np.int64)


def _flat(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter(map(len, rows), np.int64, len(rows))
    return np.fromiter(chain.from_iterable(rows), np.int64, int(lengths.sum())), lengths


def _lists(ids: np.ndarray, lengths: np.ndarray) -> list[list[int]]:
    flat, ends = ids.tolist(), np.cumsum(lengths).tolist()
    return [flat[end - length : end] for end, length in zip(ends, lengths.tolist())]


def _cpu_rows(batch: _Input, pad_id: int | None, min_len: int, max_len: int) -> tuple[Any, Any]:
    """Rows and chosen references of a batch on the CPU: plain Python for a small batch,
    else flat numpy arrays through the engine (:func:`~google_bleu.engine.small_input`)."""
    hyp, ref = batch.hyp, batch.ref
    if hyp[0] == "padded":
        hyp_ids, hyp_lengths = flat_ids(hyp[1], hyp[2], pad_id)
    if ref[0] == "padded":
        ref3, lengths, n_slots = ref[1], ref[2], int(ref[1].shape[1])
        flat_lengths = None if lengths is None else lengths.reshape(-1)
        ref_ids, ref_lengths = flat_ids(ref3.reshape(batch.n_rows * n_slots, ref3.shape[2]), flat_lengths, pad_id)
        n_tokens = ref_ids.size
    else:
        n_tokens = sum(len(ids) for refs in ref[1] for ids in refs)
    n_tokens += hyp_ids.size if hyp[0] == "padded" else sum(map(len, hyp[1]))
    if small_input(n_tokens):
        hyps = _lists(hyp_ids, hyp_lengths) if hyp[0] == "padded" else hyp[1]
        if ref[0] == "padded":
            flat = _lists(ref_ids, ref_lengths)
            refs = [flat[row * n_slots : (row + 1) * n_slots] for row in range(batch.n_rows)]
        else:
            refs = ref[1]
        return python_rows(hyps, refs, min_len, max_len)
    if hyp[0] == "ragged":
        hyp_ids, hyp_lengths = _flat(hyp[1])
    if ref[0] == "ragged":
        n_refs = np.fromiter(map(len, ref[1]), np.int64, batch.n_rows)
        ref_ids, ref_lengths = _flat([ids for refs in ref[1] for ids in refs])
    else:
        n_refs = np.full(batch.n_rows, n_slots, np.int64)
    return id_rows(hyp_ids, hyp_lengths, ref_ids, n_refs, ref_lengths, min_len, max_len)


# -- other devices: fixed-shape tensors through the engine's torch backend -------------


def _compact_rows(torch: Any, matrix: Any, lengths: Any, pad_id: int | None) -> tuple[Any, Any]:
    """Each row's kept ids moved to its front (order kept), and the row lengths; fixed shapes."""
    n_rows, width = matrix.shape[0], matrix.shape[-1]
    matrix = matrix.to(torch.int64)
    keep = None
    if lengths is not None:
        keep = torch.arange(width, device=matrix.device) < lengths[..., None]
    if pad_id is not None:
        keep = matrix != pad_id if keep is None else keep & (matrix != pad_id)
    if keep is None:
        return matrix, torch.full(matrix.shape[:-1], width, dtype=torch.int64, device=matrix.device)
    if pad_id is not None:  # inner padding: a stable sort brings the kept ids forward
        order = torch.sort((~keep).to(torch.int8), dim=-1, stable=True).indices
        matrix = matrix.gather(-1, order)
    del n_rows
    return matrix, keep.sum(dim=-1)


def _pad_host(torch: Any, rows: list[list[int]], device: Any) -> tuple[Any, Any]:
    ids, lengths = _flat(rows)
    width = int(lengths.max()) if lengths.size else 0
    matrix = np.zeros((len(rows), width), np.int64)
    if width:
        matrix[np.arange(width)[None, :] < lengths[:, None]] = ids
    return torch.from_numpy(matrix).to(device), torch.from_numpy(lengths).to(device)


def _device_tensors(torch: Any, batch: _Input, pad_id: int | None) -> tuple[Any, Any, Any, Any, Any]:
    """``hyp [B, Lh]``, ``hyp_len [B]``, ``ref [B, R, Lr]``, ``ref_len [B, R]``, ``present [B, R]`` or None."""
    device = batch.device
    if batch.hyp[0] == "padded":
        lengths = None if batch.hyp[2] is None else batch.hyp[2].to(device)
        hyp, hyp_len = _compact_rows(torch, batch.hyp[1].to(device), lengths, pad_id)
    else:
        hyp, hyp_len = _pad_host(torch, batch.hyp[1], device)
    present = None
    if batch.ref[0] == "padded":
        lengths = None if batch.ref[2] is None else batch.ref[2].to(device)
        ref, ref_len = _compact_rows(torch, batch.ref[1].to(device), lengths, pad_id)
    else:
        rows = batch.ref[1]
        n_slots = max(map(len, rows), default=0)
        flat = [array for row in rows for array in row]
        matrix, lengths = _pad_host(torch, flat, torch.device("cpu"))
        counts = torch.tensor([len(row) for row in rows], dtype=torch.int64)
        present = torch.arange(n_slots)[None, :] < counts[:, None]
        ref = torch.zeros((batch.n_rows, n_slots, matrix.shape[1]), dtype=torch.int64)
        ref_len = torch.zeros((batch.n_rows, n_slots), dtype=torch.int64)
        ref[present] = matrix
        ref_len[present] = lengths
        ref, ref_len, present = ref.to(device), ref_len.to(device), present.to(device)
    return hyp, hyp_len, ref, ref_len, present


def _static_rows(torch: Any, hyp: Any, hyp_len: Any, ref: Any, ref_len: Any, present: Any, min_len: int, max_len: int):
    """``[B, 4]`` rows from fixed-shape tensors with the engine's torch backend (no host sync)."""
    backend = TorchBackend(hyp.device)
    n_rows, hyp_width = int(hyp.shape[0]), int(hyp.shape[1])
    n_slots, ref_width = int(ref.shape[1]), int(ref.shape[2])
    n_hyp_pos = n_rows * hyp_width
    n_pos = n_hyp_pos + n_rows * n_slots * ref_width
    n_sentences = n_rows + n_rows * n_slots
    if n_rows == 0:
        return torch.zeros((0, len(COLUMNS)), dtype=torch.int64, device=hyp.device)
    tokens = torch.cat([hyp.reshape(-1), ref.reshape(-1)])
    lengths = torch.cat([hyp_len.reshape(-1), ref_len.reshape(-1)])
    hyp_positions = backend.arange(n_hyp_pos)
    ref_positions = backend.arange(n_pos - n_hyp_pos)
    sentence_of = torch.cat([hyp_positions // max(hyp_width, 1), n_rows + ref_positions // max(ref_width, 1)])
    column = torch.cat([hyp_positions % max(hyp_width, 1), ref_positions % max(ref_width, 1)])
    segment_of_sentence = torch.cat([backend.arange(n_rows), backend.arange(n_rows * n_slots) // n_slots])
    valid = column < lengths[sentence_of]
    # A position past its sentence's end is a segment of its own: it never matches.
    segment = torch.where(valid, segment_of_sentence[sentence_of], n_rows + backend.arange(n_pos))
    group = backend.group(segment, tokens)
    matches = count_matches(backend, group, sentence_of, n_hyp_pos, n_sentences, n_slots == 1, min_len, max_len)
    ref_segment = segment_of_sentence[n_rows:]
    first_ref = backend.arange(n_rows) * n_slots
    # An absent reference slot (ragged lists) is no candidate.
    candidate = None if present is None else present.reshape(-1)
    rows, _ = choose_references(backend, matches, lengths, n_rows, ref_segment, first_ref, min_len, max_len, candidate)
    return rows


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
        device: Where the batch is counted (default: the device of a tensor argument,
            else CPU). On CPU the ids are counted with numpy (torch's thread settings do
            not matter); elsewhere with torch, on the device.

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
    torch, rows = _batch_rows(hypotheses, references, pad_id, hypothesis_lengths, reference_lengths, min_len, max_len, device)
    return _rows_tensor(torch, rows)


def _batch_rows(
    hypotheses: Any,
    references: Any,
    pad_id: Any,
    hypothesis_lengths: Any,
    reference_lengths: Any,
    min_len: Any,
    max_len: Any,
    device: Any,
) -> tuple[Any, Any]:
    """``(torch, rows)``: the rows as the engine gives them on the CPU (a list of rows for a
    small batch, else an array), or an ``int64`` tensor on another device."""
    torch = torch_module()

    min_len, max_len = check_orders(min_len, max_len)
    pad_id = check_pad_id(pad_id)
    batch = _read_input(torch, hypotheses, references, pad_id, hypothesis_lengths, reference_lengths, device)
    if batch.device.type == "cpu":
        return torch, _cpu_rows(batch, pad_id, min_len, max_len)[0]
    return torch, _static_rows(torch, *_device_tensors(torch, batch, pad_id), min_len, max_len)


def _rows_tensor(torch: Any, rows: Any) -> Any:
    if isinstance(rows, list):
        return torch.tensor(rows, dtype=torch.int64).reshape(-1, len(COLUMNS))
    if isinstance(rows, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(rows))
    return rows


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
    torch, rows = _batch_rows(hypotheses, references, pad_id, hypothesis_lengths, reference_lengths, min_len, max_len, device)
    if isinstance(rows, list):  # a small batch: no array made before the result
        return torch.tensor([ratio(n_match, n_all) for n_match, _, _, n_all in rows], dtype=torch.float64)
    return stats_scores(_rows_tensor(torch, rows))


def stats_scores(rows: torch.Tensor) -> torch.Tensor:
    """``n_match / n_all`` of each row of a ``[B, 4]`` statistics tensor (0.0 where ``n_all == 0``).

    Example:
        >>> import torch
        >>> stats_scores(torch.tensor([[1, 3, 2, 3], [0, 0, 0, 0]])).tolist()
        [0.3333333333333333, 0.0]
    """
    return ratio(rows[:, 0], rows[:, 3])


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
    if not is_tensor(rows):
        raise TypeError(f"rows must be a torch tensor from batch_gleu_stats, got {describe(rows)}")
    if rows.dim() != 2 or rows.shape[1] != len(COLUMNS):
        raise ValueError(f"rows must have shape [B, {len(COLUMNS)}], got {list(rows.shape)}")
    return GleuStats(rows.detach().cpu().numpy(), min_len, max_len)


class BatchScorer:
    """Sentence GLEU of padded id batches, at the latency floor on a GPU.

    For an RL loop that scores batches of the same shape again and again: on a CUDA
    device the first call for a shape (batch size, references, lengths, dtypes) captures
    the whole computation as a CUDA graph, and every later call of that shape copies the
    new ids in and replays it (no host synchronisation inside, a few microseconds of
    launch). On other devices the fixed-shape computation runs eagerly, and CPU tensors are
    counted with numpy as :func:`batch_sentence_gleu` counts them. Scores are those of
    :func:`batch_sentence_gleu`: ``==`` nltk's ``sentence_gleu``.

    Args:
        pad_id: Padding id removed from every row (``None``: nothing removed by value).
        min_len: Lowest n-gram order (default 1).
        max_len: Highest n-gram order (default 4).
        cuda_graphs: Capture and replay CUDA graphs on CUDA devices (default True).
        max_graphs: Most shapes whose graphs are kept (least recently used go first).
        check_lengths: Check that explicit lengths lie in ``0..L`` (one host read per call;
            turn off only for lengths known to be valid).

    Example:
        >>> import torch
        >>> scorer = BatchScorer(pad_id=-1)
        >>> hyp = torch.tensor([[5, 6, 7, -1], [0, 0, 1, 2]])
        >>> ref = torch.tensor([[5, 6, 8, -1], [0, 1, 2, -1]])
        >>> scorer(hyp, ref).tolist()
        [0.5, 0.6]
        >>> scorer.stats(hyp, ref).tolist()
        [[3, 6, 6, 6], [6, 10, 6, 10]]
    """

    def __init__(
        self,
        *,
        pad_id: int | None = None,
        min_len: int = 1,
        max_len: int = 4,
        cuda_graphs: bool = True,
        max_graphs: int = 16,
        check_lengths: bool = True,
    ) -> None:
        self.min_len, self.max_len = check_orders(min_len, max_len)
        self.pad_id = check_pad_id(pad_id)
        check_bool(cuda_graphs, "cuda_graphs")
        check_bool(check_lengths, "check_lengths")
        if integer(max_graphs) is None or max_graphs < 1:
            raise ValueError(f"max_graphs must be a positive integer, got {describe(max_graphs)}")
        self.cuda_graphs = cuda_graphs
        self.max_graphs = max_graphs
        self.check_lengths = check_lengths
        self._graphs: OrderedDict = OrderedDict()

    def _inputs(self, hypotheses: Any, references: Any, hypothesis_lengths: Any, reference_lengths: Any) -> tuple:
        torch = torch_module()

        if not (is_tensor(hypotheses) and is_tensor(references)):
            raise TypeError(
                "BatchScorer takes padded tensors (hypotheses [B, L], references [B, L] or [B, R, L]); "
                f"got {describe(hypotheses)} and {describe(references)}; use batch_sentence_gleu for id lists"
            )
        batch = _read_input(
            torch, hypotheses, references, self.pad_id, hypothesis_lengths, reference_lengths, None, self.check_lengths
        )
        return torch, batch

    def _compute(self, torch: Any, hyp: Any, hyp_lengths: Any, ref3: Any, ref_lengths: Any) -> Any:
        # Everything from the raw padded tensors on: fixed shapes, no host read.
        hyp, hyp_len = _compact_rows(torch, hyp, hyp_lengths, self.pad_id)
        ref, ref_len = _compact_rows(torch, ref3, ref_lengths, self.pad_id)
        return _static_rows(torch, hyp, hyp_len, ref, ref_len, None, self.min_len, self.max_len)

    def stats(
        self, hypotheses: Any, references: Any, *, hypothesis_lengths: Any = None, reference_lengths: Any = None
    ) -> torch.Tensor:
        """``int64 [B, 4]`` statistics rows, as :func:`batch_gleu_stats` (same arguments, tensors only)."""
        torch, batch = self._inputs(hypotheses, references, hypothesis_lengths, reference_lengths)
        args = (batch.hyp[1], batch.hyp[2], batch.ref[1], batch.ref[2])
        if batch.device.type == "cpu":  # nothing to capture: numpy counts CPU tensors fastest
            return _rows_tensor(torch, _cpu_rows(batch, self.pad_id, self.min_len, self.max_len)[0])
        if not (self.cuda_graphs and batch.device.type == "cuda"):
            return self._compute(torch, *args)
        key = tuple(None if value is None else (tuple(value.shape), value.dtype, value.device) for value in args)
        entry = self._graphs.get(key)
        if entry is None:
            entry = self._capture(torch, args)
            self._graphs[key] = entry
            while len(self._graphs) > self.max_graphs:
                self._graphs.popitem(last=False)
        else:
            self._graphs.move_to_end(key)
        graph, static_args, output = entry
        for static, value in zip(static_args, args):
            if static is not None:
                static.copy_(value)
        graph.replay()
        return output.clone()

    def _capture(self, torch: Any, args: tuple) -> tuple:
        static_args = tuple(None if value is None else value.clone() for value in args)
        stream = torch.cuda.Stream(device=static_args[0].device)
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):  # warm-up outside the graph, as torch.cuda.graphs asks
            for _ in range(2):
                self._compute(torch, *static_args)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            output = self._compute(torch, *static_args)
        return graph, static_args, output

    def __call__(
        self, hypotheses: Any, references: Any, *, hypothesis_lengths: Any = None, reference_lengths: Any = None
    ) -> torch.Tensor:
        """``float64 [B]`` sentence GLEU of each row (as :func:`batch_sentence_gleu`)."""
        rows = self.stats(
            hypotheses, references, hypothesis_lengths=hypothesis_lengths, reference_lengths=reference_lengths
        )
        return stats_scores(rows)
