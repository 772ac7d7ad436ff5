"""GLEU statistics of padded id tensors in fixed shapes, nothing read back (docs/design.md, "Token ids on a GPU")."""

from __future__ import annotations

from typing import Any

from ..stats import ratio
from .checks import torch_module

#: Keys are int64: ``(W + 1) ** 2`` must fit, so a row holds at most this many positions.
MAX_ROW_POSITIONS = 3_037_000_498


def dense(keys: Any, bound: int | None = None) -> Any:
    """Per element of each row of ``keys``, a label in ``0..W`` (the row's width), equal exactly for equal keys;
    with ``bound`` (keys in ``0..bound-1``) and rows x ``bound`` within 2**62, all rows in one sort."""
    torch = torch_module()
    width = keys.shape[-1]
    n_rows = keys.numel() // width if width else 0
    # 2**62, not 2**63: torch.arange sizes its range in float64, which rounds near 2**63.
    if bound is not None and n_rows and n_rows * bound <= 1 << 62:
        offset = torch.arange(0, n_rows * bound, bound, dtype=torch.int64, device=keys.device)
        ordered, order = (keys.reshape(-1) + offset.repeat_interleave(width)).sort()
        run = (ordered != ordered.roll(1)).cumsum(0)
        # Rows are contiguous in the sorted array: a row's labels count from its first element's run.
        run -= run[::width].repeat_interleave(width)
        return torch.empty_like(run).scatter_(0, order, run).view(keys.shape)
    ordered, order = keys.sort(dim=-1)
    # The first element is compared with the last: a row of one value gets 0 throughout,
    # any other row starts at 1, so labels stay within 0..W.
    run = (ordered != ordered.roll(1, -1)).cumsum(-1)
    return torch.empty_like(run).scatter_(-1, order, run)


def ngram_keys(labels: Any, width: int, min_len: int, max_len: int) -> Any:
    """``[orders, *rows, width]`` int64 keys of the n-grams starting at each position of ``labels`` (labels in
    ``0..width``, ``[*rows, width + max_len - 1]``), exact but where an n-gram runs into the padding."""
    torch = torch_module()
    base = width + 1
    if base ** max_len <= 1 << 63:
        # Every order at once: key_k = sum_{i < k} label[p + i] * base ** i, a running sum.
        powers = torch.pow(base, torch.arange(max_len, dtype=torch.int64, device=labels.device))
        digits = labels.new_empty((max_len, *labels.shape[:-1], width))  # contiguous, order first
        torch.mul(labels.unfold(-1, max_len, 1).movedim(-1, 0), powers.view(max_len, *[1] * labels.dim()), out=digits)
        return digits.cumsum_(0)[min_len - 1 :]
    # Longer keys: order by order (Horner's rule), made dense again where one more label would overflow int64.
    keys = labels.new_empty((max_len - min_len + 1, *labels.shape[:-1], width))
    key = labels[..., :width]
    span = 1  # the number of labels folded into ``key``
    if min_len == 1:
        keys[0].copy_(key)
    for order in range(2, max_len + 1):
        if base ** (span + 1) > 1 << 63:
            key, span = dense(key), 1
        out = keys[order - min_len] if order >= min_len else None
        key = torch.add(labels[..., order - 1 : order - 1 + width], key, alpha=base, out=out)
        span += 1
    return keys


def fixed_shape_rows(hyp: Any, hyp_len: Any, ref: Any, ref_len: Any, present: Any, min_len: int, max_len: int) -> Any:
    """``int64 [B, 4]`` rows of ``hyp [B, Lh]`` and ``ref [B, R, Lr]`` int64 ids (each row's tokens first) with
    lengths ``[B]`` and ``[B, R]`` and ``present [B, R]`` (whether each reference slot exists); ``None``: all."""
    torch = torch_module()
    n_rows, hyp_width = hyp.shape
    n_refs, ref_width = ref.shape[1], ref.shape[2]
    n_sides, width = 1 + n_refs, max(hyp_width, ref_width)
    if n_sides * width > MAX_ROW_POSITIONS:
        raise ValueError(f"a row of {n_sides} sentences of {width} padded ids ({n_sides * width} positions) is too wide to count with int64 keys; the most is {MAX_ROW_POSITIONS} (score it as id lists or in parts)")
    device = hyp.device
    if n_rows == 0 or width == 0:
        return torch.zeros((n_rows, 4), dtype=torch.int64, device=device)
    n_pos = n_sides * width
    # [B, S * L]: the hypothesis, then the references, each padded to the widest.
    pad = torch.nn.functional.pad
    if hyp_width == ref_width:
        tokens = torch.cat((hyp, ref.reshape(n_rows, n_refs * width)), 1)
    else:
        tokens = torch.cat((pad(hyp, (0, width - hyp_width)), pad(ref, (0, width - ref_width)).reshape(n_rows, -1)), 1)
    if hyp_len is None and ref_len is None and hyp_width == ref_width:
        lengths = torch.full((n_rows, n_sides), width, dtype=torch.int64, device=device)
    else:
        if hyp_len is None:
            hyp_len = torch.full((n_rows,), hyp_width, dtype=torch.int64, device=device)
        if ref_len is None:
            ref_len = torch.full((n_rows, n_refs), ref_width, dtype=torch.int64, device=device)
        lengths = torch.cat((hyp_len[:, None], ref_len), 1)  # [B, S]
    keys = ngram_keys(pad(dense(tokens), (0, max_len - 1)), n_pos, min_len, max_len)  # [K, B, W]
    n_orders = max_len - min_len + 1
    # Per order, row and position: its sentence's bins (one per label), or spare bins if it runs past the end.
    base = n_pos + 1
    orders = torch.arange(min_len - 1, max_len, dtype=torch.int64, device=device)  # order - 1
    left = lengths[:, :, None] - torch.arange(width, dtype=torch.int64, device=device)  # tokens from p on
    sentence_bin = torch.arange(0, n_sides * base, base, dtype=torch.int64, device=device)
    bins = torch.where(left > orders[:, None, None, None], sentence_bin[:, None], n_sides * base)
    run = dense(keys, base**max_len)
    run += bins.reshape(n_orders, n_rows, n_pos)
    counts = torch.zeros((n_orders, n_rows, (n_sides + 1) * base), dtype=torch.int32, device=device)
    counts.scatter_add_(-1, run, torch.ones(run.shape, dtype=torch.int32, device=device))
    hyp_counts, ref_counts, _ = counts.view(n_orders, n_rows, n_sides + 1, base).split((1, n_refs, 1), 2)
    matches = torch.minimum(hyp_counts, ref_counts).sum((0, 3))  # [B, R] int64
    totals = (lengths[..., None] - orders).clamp_(min=0).sum(-1)  # [B, S]
    n_hyp, n_ref = totals.split((1, n_refs), 1)
    n_all = torch.maximum(n_hyp, n_ref)
    if n_refs == 1 and present is None:
        # The one reference: a row without n-grams is zeros by itself.
        return torch.cat((matches, n_hyp, n_ref, n_all), 1)
    candidate = n_all > 0 if present is None else (n_all > 0) & present
    best_ratio, best = torch.where(candidate, ratio(matches, n_all), -1.0).max(1, keepdim=True)
    # The first best, as nltk's max keeps it. Where no reference is a candidate, n_hyp is 0 and slot 0 (always
    # present) has no n-gram and no match: the row is zeros.
    chosen = torch.stack((matches, n_ref, n_all)).gather(2, best.expand(3, n_rows, 1))
    return torch.cat((chosen[0], n_hyp, chosen[1], chosen[2]), 1)
