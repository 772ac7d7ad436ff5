"""Pairwise GLEU of id tensors on their device, in torch (docs/design.md, end of "Token ids on a GPU")."""

from __future__ import annotations

from typing import Any

from ..stats import ratio
from .checks import torch_module
from .fixed import dense, ngram_keys

#: Elements of one dense 0/1 block (float64: 256 MiB on the device).
DEVICE_BLOCK_ELEMENTS = 1 << 25


def device_score_matrix(hyp: Any, hyp_len: Any, ref: Any, ref_len: Any, min_len: int, max_len: int) -> Any:
    """float64 ``[N, M]`` sentence GLEU of every row of ``hyp`` (``[N, Lh]`` int64 ids, each row's
    ``hyp_len`` ids first) against every row of ``ref`` (``[M, Lr]``; ``None``: within ``hyp``), on their device."""
    torch = torch_module()
    within = ref is None
    device = hyp.device
    n_left = int(hyp.shape[0])
    if within:
        tokens, lengths, n_right = hyp, hyp_len, n_left
    else:
        width = max(int(hyp.shape[1]), int(ref.shape[1]))
        pad = torch.nn.functional.pad
        tokens = torch.cat((pad(hyp, (0, width - hyp.shape[1])), pad(ref, (0, width - ref.shape[1]))))
        lengths, n_right = torch.cat((hyp_len, ref_len)), int(ref.shape[0])
    n_sentences, width = int(tokens.shape[0]), int(tokens.shape[1])
    orders = torch.arange(min_len - 1, max_len, dtype=torch.int64, device=lengths.device)
    totals = (lengths[:, None] - orders).clamp_(min=0).sum(-1)  # n-grams per sentence
    n_hyp, n_ref = totals[:n_left], totals[:n_left] if within else totals[n_left:]
    matches = torch.zeros((n_left, n_right), dtype=torch.float64, device=device)
    n_pos = n_sentences * width
    if n_pos:
        _add_matches(torch, matches, tokens, lengths, n_left, within, min_len, max_len)
    if within:  # a sentence matches all of its own n-grams (the columns leave out unshared ones)
        matches.diagonal().copy_(n_hyp)
    return ratio(matches, torch.maximum(n_hyp[:, None], n_ref[None, :]))


def _add_matches(
    torch: Any, matches: Any, tokens: Any, lengths: Any, n_left: int, within: bool, min_len: int, max_len: int
) -> None:
    device = tokens.device
    n_sentences, width = tokens.shape
    n_pos = n_sentences * width
    labels = torch.zeros((1, n_pos + max_len - 1), dtype=torch.int64, device=device)
    labels[:, :n_pos] = dense(tokens.reshape(1, n_pos))
    run = dense(ngram_keys(labels, n_pos, min_len, max_len)[:, 0])  # [K, P]: per order, n-gram labels
    n_orders = max_len - min_len + 1
    orders = torch.arange(min_len - 1, max_len, dtype=torch.int64, device=device)
    left = lengths[:, None] - torch.arange(width, dtype=torch.int64, device=device)  # tokens from p on
    inside = left.reshape(1, n_pos) > orders[:, None]  # [K, P]: the n-gram lies inside its sentence
    # Each (order, n-gram, sentence) once, with its count.
    ngram = run + torch.arange(n_orders, dtype=torch.int64, device=device)[:, None] * (n_pos + 1)
    sentence = torch.arange(n_pos, dtype=torch.int64, device=device) // width
    pairs, counts = torch.unique((ngram * n_sentences + sentence)[inside], return_counts=True)
    if pairs.numel() == 0:
        return
    # Thresholds 1..count of each pair: a column per (n-gram, threshold).
    entry = torch.repeat_interleave(torch.arange(pairs.numel(), device=device), counts)
    starts = torch.cumsum(counts, 0) - counts
    threshold = torch.arange(entry.numel(), device=device) - starts[entry]
    top = int(counts.max())
    column_key = (pairs[entry] // n_sentences) * top + threshold
    row = pairs[entry] % n_sentences
    keys, column = torch.unique(column_key, return_inverse=True)
    on_left = row < n_left
    if within:
        shared = torch.bincount(column, minlength=keys.numel()) >= 2
    else:
        shared = torch.bincount(column[on_left], minlength=keys.numel()) > 0
        shared &= torch.bincount(column[~on_left], minlength=keys.numel()) > 0
    keep = shared[column]
    column = (torch.cumsum(shared, 0) - 1)[column[keep]]
    row = row[keep]
    n_columns = int(shared.sum())
    if n_columns == 0:
        return
    column, order = torch.sort(column)
    add_products(matches, row[order], column, n_columns, n_left, within, max(1, DEVICE_BLOCK_ELEMENTS // n_sentences))


def add_products(matches: Any, row: Any, column: Any, n_columns: int, n_left: int, within: bool, block: int) -> None:
    """Adds ``H @ R.T`` of the 0/1 entries ``(row, column)`` (sorted by column; the right side's rows after
    the left's ``n_left``, unless ``within``) to the float64 ``matches``, one ``addmm`` per ``block`` columns."""
    torch = torch_module()
    n_sentences = matches.shape[0] if within else matches.shape[0] + matches.shape[1]
    bounds = torch.searchsorted(column, torch.arange(0, n_columns + block, block, device=column.device)).tolist()
    for start, (low, high) in enumerate(zip(bounds[:-1], bounds[1:])):
        if low == high:
            continue
        shape = (n_sentences, min(block, n_columns - start * block))
        ones = torch.zeros(shape, dtype=torch.float64, device=matches.device)
        ones[row[low:high], column[low:high] - start * block] = 1.0
        left, right = (ones, ones) if within else (ones[:n_left], ones[n_left:])
        matches.addmm_(left, right.T)  # float64: no TF32 or reduced-precision path applies
