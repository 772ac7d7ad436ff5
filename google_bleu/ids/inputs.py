"""A batch of token ids checked once (:func:`read_batch`), read as flat numpy arrays or fixed-shape tensors."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from ..validation import check_sequence, is_tensor
from .checks import check_device, check_id_tensor, check_lengths, id_lists, id_references


@dataclass(frozen=True)
class Padded:
    """One side as a padded tensor, ``[B, L]`` or ``[B, R, L]``, with optional lengths on the same device."""

    ids: Any
    lengths: Any = None


@dataclass(frozen=True)
class Ragged:
    """One side as id lists: hypotheses a list of id lists, references per row a list of them."""

    rows: list


def n_rows(side: Padded | Ragged) -> int:
    return int(side.ids.shape[0]) if isinstance(side, Padded) else len(side.rows)


def read_batch(
    torch: Any, hypotheses: Any, references: Any, pad_id: int | None, hypothesis_lengths: Any, reference_lengths: Any,
    device: Any, validate_lengths: bool = True,
) -> tuple[Padded | Ragged, Padded | Ragged, Any]:
    """``(hypotheses, references, device)`` of a batch, checked; ``device``: where it is counted."""
    hyp_is_tensor, ref_is_tensor = is_tensor(hypotheses), is_tensor(references)
    if hyp_is_tensor:
        check_id_tensor(torch, "hypotheses", hypotheses)
    if ref_is_tensor:
        check_id_tensor(torch, "references", references)
    if hyp_is_tensor and ref_is_tensor and hypotheses.device != references.device:
        raise ValueError(f"hypotheses and references must be on the same device, got {hypotheses.device} and {references.device}")
    if device is None:
        device = hypotheses.device if hyp_is_tensor else references.device if ref_is_tensor else torch.device("cpu")
    device = check_device(torch, device)

    if hyp_is_tensor:
        if hypotheses.dim() != 2:
            raise ValueError(f"hypotheses must be a 2-D tensor [batch, length], got shape {list(hypotheses.shape)}")
        lengths = None
        if hypothesis_lengths is not None:
            shape, size = (int(hypotheses.shape[0]),), int(hypotheses.shape[1])
            lengths = check_lengths(
                torch, "hypothesis_lengths", hypothesis_lengths, shape, size, hypotheses.device, validate_lengths
            )
        hyp: Padded | Ragged = Padded(hypotheses, lengths)
    else:
        check_sequence(hypotheses, "hypotheses", "a sequence of id sequences")
        if hypothesis_lengths is not None:
            raise ValueError("hypothesis_lengths applies to a padded tensor; a list of id lists carries its own lengths")
        hyp = Ragged(id_lists("hypotheses", hypotheses, pad_id))
    rows = n_rows(hyp)

    if ref_is_tensor:
        if references.dim() not in (2, 3):
            raise ValueError(f"references must be a tensor [batch, length] or [batch, n_references, length], got shape {list(references.shape)}")
        ref3 = references if references.dim() == 3 else references[:, None, :]
        if ref3.shape[0] != rows:
            raise ValueError(f"got {rows} hypotheses but {ref3.shape[0]} rows of references")
        n_slots = int(ref3.shape[1])
        if n_slots == 0 and rows:
            raise ValueError(f"references has shape {list(references.shape)}: every row needs at least one reference")
        lengths = None
        if reference_lengths is not None:
            shape = (rows,) if references.dim() == 2 else (rows, n_slots)
            lengths = check_lengths(
                torch, "reference_lengths", reference_lengths, shape, int(ref3.shape[2]), references.device, validate_lengths
            ).reshape(rows, n_slots)
        ref: Padded | Ragged = Padded(ref3, lengths)
    else:
        if reference_lengths is not None:
            raise ValueError("reference_lengths applies to a padded tensor; lists of id lists carry their own lengths")
        ref = Ragged(id_references(references, rows, pad_id))
    return hyp, ref, device


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


def flat_lists(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Flat ids and lengths of id lists."""
    lengths = np.fromiter(map(len, rows), np.int64, len(rows))
    return np.fromiter(chain.from_iterable(rows), np.int64, int(lengths.sum())), lengths


def id_lists_of(ids: np.ndarray, lengths: np.ndarray) -> list[list[int]]:
    """The id lists of flat ids and lengths (:func:`flat_lists` undone)."""
    flat, ends = ids.tolist(), np.cumsum(lengths).tolist()
    return [flat[end - length : end] for end, length in zip(ends, lengths.tolist())]


def compact_rows(torch: Any, matrix: Any, lengths: Any, pad_id: int | None) -> tuple[Any, Any]:
    """Each row's kept ids moved to its front (order kept), and the row lengths (``None``: every row full)."""
    width = matrix.shape[-1]
    if matrix.dtype != torch.int64:
        matrix = matrix.to(torch.int64)
    keep = None
    if lengths is not None:
        keep = torch.arange(width, device=matrix.device) < lengths[..., None]
    if pad_id is not None:
        keep = matrix != pad_id if keep is None else keep & (matrix != pad_id)
    if keep is None:
        return matrix, None
    if pad_id is not None:  # inner padding: a stable sort brings the kept ids forward
        order = torch.sort((~keep).to(torch.int8), dim=-1, stable=True).indices
        matrix = matrix.gather(-1, order)
    return matrix, keep.sum(dim=-1)


def _pad_host(torch: Any, rows: list[list[int]], device: Any) -> tuple[Any, Any]:
    ids, lengths = flat_lists(rows)
    width = int(lengths.max()) if lengths.size else 0
    matrix = np.zeros((len(rows), width), np.int64)
    if width:
        matrix[np.arange(width)[None, :] < lengths[:, None]] = ids
    return torch.from_numpy(matrix).to(device), torch.from_numpy(lengths).to(device)


def device_tensors(
    torch: Any, hyp: Padded | Ragged, ref: Padded | Ragged, pad_id: int | None, device: Any
) -> tuple[Any, Any, Any, Any, Any]:
    """``hyp``, ``hyp_len``, ``ref [B, R, Lr]``, ``ref_len``, ``present`` (or None) on ``device``, ids to the front."""
    if isinstance(hyp, Padded):
        lengths = None if hyp.lengths is None else hyp.lengths.to(device)
        hyp_ids, hyp_len = compact_rows(torch, hyp.ids.to(device), lengths, pad_id)
    else:
        hyp_ids, hyp_len = _pad_host(torch, hyp.rows, device)
    present = None
    if isinstance(ref, Padded):
        lengths = None if ref.lengths is None else ref.lengths.to(device)
        ref_ids, ref_len = compact_rows(torch, ref.ids.to(device), lengths, pad_id)
    else:
        rows = len(ref.rows)
        n_slots = max(map(len, ref.rows), default=0)
        matrix, lengths = _pad_host(torch, [ids for row in ref.rows for ids in row], torch.device("cpu"))
        counts = torch.tensor([len(row) for row in ref.rows], dtype=torch.int64)
        present = torch.arange(n_slots)[None, :] < counts[:, None]
        ref_ids = torch.zeros((rows, n_slots, matrix.shape[1]), dtype=torch.int64)
        ref_len = torch.zeros((rows, n_slots), dtype=torch.int64)
        ref_ids[present] = matrix
        ref_len[present] = lengths
        ref_ids, ref_len, present = ref_ids.to(device), ref_len.to(device), present.to(device)
    return hyp_ids, hyp_len, ref_ids, ref_len, present
