"""Checks of token-id inputs (lists, numpy arrays, torch tensors), in :mod:`google_bleu.validation`'s style."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..imports import import_optional
from ..tokenizers import DEFAULT_TOKENIZER, get_tokenizer
from ..validation import check_sequence, describe, integer, is_sequence, is_tensor

if TYPE_CHECKING:
    from ..settings import GLEU

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_DEFAULT_TOKENIZER = get_tokenizer(DEFAULT_TOKENIZER)


def torch_module() -> Any:
    """torch, imported when a token-id function needs it (an ImportError naming the extra if absent)."""
    return import_optional("torch", "torch", "GLEU on token ids (google_bleu.ids)")


def check_pad_id(pad_id: Any) -> int | None:
    """A padding id: ``None`` or an integer within int64 (token ids are int64)."""
    if pad_id is None:
        return None
    if integer(pad_id) is None:
        raise TypeError(f"pad_id must be an integer or None, got {describe(pad_id)}")
    value = int(pad_id)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"pad_id must fit in int64 (token ids are int64), got {value}")
    return value


def check_device(torch: Any, device: Any) -> Any:
    """A ``torch.device`` that exists here (``"cuda"`` without CUDA is refused)."""
    try:
        device = torch.device(device)
    except (TypeError, RuntimeError, ValueError):
        raise ValueError(f"device must name a torch device such as 'cpu' or 'cuda', got {describe(device)}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device is {str(device)!r} but CUDA is not available here")
    if device.type == "meta":
        raise ValueError("device is 'meta', which holds no values to count; name a device such as 'cpu' or 'cuda'")
    return device


def check_id_tensor(torch: Any, name: str, tensor: Any) -> None:
    """Refuses a tensor that does not hold readable integer token ids in the int64 range."""
    if tensor.layout != torch.strided:
        raise TypeError(f"{name} must be a dense tensor of token ids, got layout {tensor.layout}; use .to_dense()")
    if tensor.device.type == "meta":
        raise ValueError(f"{name} is on the 'meta' device, which holds no values to count")
    if tensor.dtype == torch.bool or tensor.is_floating_point() or tensor.is_complex():
        raise TypeError(f"{name} must hold integer token ids, got dtype {tensor.dtype}")
    if tensor.dtype in (torch.uint16, torch.uint32, torch.uint64) and tensor.numel():
        # torch has no max() for these unsigned types: read on the host with numpy.
        if int(tensor.detach().cpu().numpy().max()) > _INT64_MAX:
            raise ValueError(f"{name} holds ids above the int64 range")


def check_lengths(
    torch: Any, name: str, lengths: Any, shape: tuple[int, ...], size: int, device: Any, check: bool = True
) -> Any:
    """Explicit lengths of tensor input as an int64 tensor on ``device``, in ``0..size`` (read only with ``check``)."""
    if not isinstance(lengths, torch.Tensor):
        try:
            lengths = torch.as_tensor(np.asarray(lengths))
        except (TypeError, ValueError, RuntimeError):
            raise TypeError(f"{name} must be integers, got {describe(lengths)}") from None
    check_id_tensor(torch, name, lengths)
    if tuple(lengths.shape) != shape:
        raise ValueError(f"{name} must have shape {list(shape)}, got {list(lengths.shape)}")
    lengths = lengths.to(device=device, dtype=torch.int64)
    if check and lengths.numel():
        low, high = torch.aminmax(lengths)
        low, high = int(low), int(high)
        if low < 0 or high > size:
            raise ValueError(f"{name} must lie in 0..{size} (the padded length), got values from {low} to {high}")
    return lengths


def id_array(name: str, sequence: Any) -> np.ndarray:
    """One id sequence (list of ints, 1-D array or tensor, on any device) as int64 numpy."""
    if isinstance(sequence, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of integer token ids, got {describe(sequence)}")
    if is_tensor(sequence):  # possibly on a GPU
        check_id_tensor(torch_module(), name, sequence)
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


def id_list(name: str, sequence: Any, pad_id: int | None) -> list[int]:
    """One id sequence as a list of Python ints, without the padding id (a list of ints makes no array)."""
    if type(sequence) in (list, tuple) and set(map(type, sequence)) <= {int}:
        if sequence and not (_INT64_MIN <= min(sequence) and max(sequence) <= _INT64_MAX):
            raise ValueError(f"{name} holds ids outside the int64 range")
        ids = list(sequence)
    else:
        ids = id_array(name, sequence).tolist()
    return ids if pad_id is None else [token for token in ids if token != pad_id]


def id_lists(name: str, rows: Sequence, pad_id: int | None) -> list[list[int]]:
    """Each of ``rows`` as a list of ids (:func:`id_list`), without the padding id."""
    return [id_list(f"{name}[{i}]", row, pad_id) for i, row in enumerate(rows)]


def id_references(references: Any, n_rows: int, pad_id: int | None) -> list[list[list[int]]]:
    """Per row, its references as id lists: at least one each, ``n_rows`` rows."""
    check_sequence(references, "references", "a sequence of reference lists")
    if len(references) != n_rows:
        raise ValueError(f"got {n_rows} hypotheses but {len(references)} reference lists")
    rows = []
    for i, refs in enumerate(references):
        if isinstance(refs, (str, bytes)) or not is_sequence(refs):
            raise TypeError(f"references[{i}] must be a list of references (each a sequence of ids), got {describe(refs)}")
        if len(refs) == 0:
            raise ValueError(f"row {i} has no reference; every hypothesis needs at least one")
        first = refs[0]
        if isinstance(first, (int, np.integer)) or (is_tensor(first) and first.dim() == 0):
            raise TypeError(f"references[{i}] must be a list of references, each a sequence of ids, got a flat id list {describe(refs)}; wrap a single reference: references=[[ref] for ref in references]")
        rows.append(id_lists(f"references[{i}]", refs, pad_id))
    return rows


def token_orders(scorer: GLEU, what: str = "token ids") -> tuple[int, int]:
    """The orders of ``scorer`` for tokens or ids, refusing a scorer that sets a tokenizer or lowercase.

    Example:
        >>> from google_bleu import GLEU
        >>> token_orders(GLEU(max_len=2))
        (1, 2)
        >>> token_orders(GLEU(lowercase=True))
        Traceback (most recent call last):
        ...
        ValueError: token ids are scored as they are: give a scorer only orders (e.g. GLEU(min_len=1, max_len=4)), got GLEU(tokenizer='13a', lowercase=True, min_len=1, max_len=4)
    """
    if scorer.tokenizer != _DEFAULT_TOKENIZER:
        raise ValueError(f"{what} are scored as they are: give a scorer only orders (e.g. GLEU(min_len=1, max_len=4)), got {scorer!r}")
    return scorer.min_len, scorer.max_len
