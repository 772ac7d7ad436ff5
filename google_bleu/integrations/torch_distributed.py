"""Exact corpus GLEU over a ``torch.distributed`` process group: one ``all_reduce`` (MAX)
that checks every rank counted with the same orders, then one (SUM) of the four totals;
every rank gets the exact corpus statistics."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..imports import import_optional
from ..stats import GleuStats


def all_reduce_stats(stats: GleuStats, group: Any = None, device: Any = None) -> GleuStats:
    """Sums the statistics of every rank of a ``torch.distributed`` group.

    Each rank passes the statistics of its own shard; all ranks get back the same one-row
    :class:`GleuStats` of the whole corpus, whose ``score()`` is exactly the score of one
    process over all shards (the four totals are summed as int64, no float is reduced).
    Launched with ``torchrun`` it works unchanged on one machine or many. Every rank must
    call it, with statistics counted with the same orders (checked: a ``ValueError`` on
    every rank otherwise).

    Args:
        stats: This rank's statistics (any number of segments, also zero).
        group: The process group (default: the whole world).
        device: Where the reduced tensor lives. Default: the current CUDA device when the
            group's backend is NCCL, else the CPU (gloo).

    Returns:
        The corpus totals as a one-row :class:`GleuStats`. Without an initialised process
        group (a single process), simply ``stats.total()``.

    Example:
        >>> from google_bleu import GLEU
        >>> stats = GLEU().stats(["the cat sat on the mat"], ["the cat ate the mat"])
        >>> all_reduce_stats(stats).score()  # one process: nothing to reduce
        0.3333333333333333
    """
    torch = import_optional("torch", "torch", "all_reduce_stats")
    dist = import_optional("torch.distributed", "torch", "all_reduce_stats")

    if not isinstance(stats, GleuStats):
        raise TypeError(f"stats must be a GleuStats, got {type(stats).__name__}")
    if not (dist.is_available() and dist.is_initialized()):
        return stats.total()
    if device is None:
        backend = str(dist.get_backend(group))
        use_cuda = "nccl" in backend and torch.cuda.is_available()
        device = torch.device("cuda", torch.cuda.current_device()) if use_cuda else torch.device("cpu")
    # Orders must agree: max and -min of (min_len, max_len) over ranks, in one reduction.
    orders = torch.tensor(
        [stats.min_len, stats.max_len, -stats.min_len, -stats.max_len], dtype=torch.int64, device=device
    )
    dist.all_reduce(orders, op=dist.ReduceOp.MAX, group=group)
    high_min, high_max, low_min, low_max = (int(value) for value in orders.tolist())
    if (high_min, high_max) != (-low_min, -low_max):
        raise ValueError(
            "ranks counted statistics with different n-gram orders: min_len from "
            f"{-low_min} to {high_min}, max_len from {-low_max} to {high_max}"
        )
    totals = torch.tensor(stats.totals(), dtype=torch.int64, device=device)
    dist.all_reduce(totals, op=dist.ReduceOp.SUM, group=group)
    return GleuStats(np.asarray([totals.tolist()], np.int64), stats.min_len, stats.max_len)
