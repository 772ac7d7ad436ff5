"""Exact corpus GLEU over a ``torch.distributed`` process group (docs/training.md, "torch.distributed")."""

from __future__ import annotations

from typing import Any

from ..imports import import_optional
from ..stats import GleuStats, check_stats


def all_reduce_stats(stats: GleuStats, group: Any = None, device: Any = None) -> GleuStats:
    """The one-row :class:`GleuStats` of every rank's ``stats`` summed, on every rank (one ``all_gather``);
    every rank must call it, with statistics of the same orders (else a ``ValueError`` on every rank).
    ``device`` holds the gathered tensor (default: the current CUDA device with NCCL, else the CPU).

    Example:
        >>> from google_bleu import GLEU
        >>> stats = GLEU().stats(["the cat sat on the mat"], ["the cat ate the mat"])
        >>> all_reduce_stats(stats).score()  # one process: nothing to reduce
        0.3333333333333333
    """
    torch = import_optional("torch", "torch", "all_reduce_stats")
    dist = import_optional("torch.distributed", "torch", "all_reduce_stats")
    check_stats(stats, "stats")
    if not (dist.is_available() and dist.is_initialized()):
        return stats.total()
    if device is None:
        use_cuda = "nccl" in str(dist.get_backend(group)) and torch.cuda.is_available()
        device = torch.device("cuda", torch.cuda.current_device()) if use_cuda else torch.device("cpu")
    mine = torch.tensor([stats.min_len, stats.max_len, *stats.totals()], dtype=torch.int64, device=device)
    every = [torch.empty_like(mine) for _ in range(dist.get_world_size(group))]
    dist.all_gather(every, mine, group=group)
    ranks = [row.tolist() for row in every]
    orders = {tuple(row[:2]) for row in ranks}
    if len(orders) > 1:
        low, high = sorted({row[0] for row in ranks}), sorted({row[1] for row in ranks})
        raise ValueError(f"ranks counted statistics with different n-gram orders: min_len from {low[0]} to {low[-1]}, max_len from {high[0]} to {high[-1]}")
    return GleuStats.summed(GleuStats([row[2:]], stats.min_len, stats.max_len) for row in ranks)
