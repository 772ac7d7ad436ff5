"""The engine's torch backend: every size fixed by the input's shape, nothing read back.

:func:`google_bleu.engine.count_matches` and :func:`~google_bleu.engine.choose_references`
run unchanged over it on any torch device (the numpy backend is the core's).
"""

from __future__ import annotations

from typing import Any

from .checks import torch_module


class TorchBackend:
    """torch on any device, with every size fixed by the input's shape.

    Nothing here reads a value back to the host (no ``nonzero``, ``unique``, ``bincount``
    or ``.item()``): dead positions are not dropped but given keys of their own, grouping
    is a sort, and counts are scatter-adds into buffers of known size. A call can therefore
    be captured as a CUDA graph and replayed. The same code runs on CPU tensors.
    """

    compacts = False

    def __init__(self, device: Any) -> None:
        torch = torch_module()
        self.xp = torch
        self.device = torch.device(device)

    def arange(self, n: int) -> Any:
        return self.xp.arange(n, dtype=self.xp.int64, device=self.device)

    def full(self, n: int, value: int) -> Any:
        return self.xp.full((n,), value, dtype=self.xp.int64, device=self.device)

    def count(self, labels: Any, n: int) -> Any:
        return self.full(n, 0).scatter_add_(0, labels, self.xp.ones_like(labels))

    def found(self, counts: Any) -> Any:
        return self.arange(counts.numel())  # labels that do not occur have count 0

    def take(self, values: Any, index: Any) -> Any:
        return values[index]

    def group(self, keys: Any, *more: Any) -> Any:
        """Per element, a representative index of its equal elements (by ``keys`` and then
        each of ``more``, any int64 values): stable sorts, last key first."""
        if keys.numel() == 0:
            return keys.clone()
        perm = None
        for values in (*more[::-1], keys):
            order = self.xp.sort(values if perm is None else values[perm], stable=True).indices
            perm = order if perm is None else perm[order]
        new = self.xp.zeros_like(keys, dtype=self.xp.bool)
        # fill_ takes the value as a kernel argument; ``new[0] = True`` copies a host tensor,
        # which CUDA graph capture refuses.
        new[:1].fill_(True)
        for values in (keys, *more):
            ordered = values[perm]
            new[1:] |= ordered[1:] != ordered[:-1]
        # Run ``k`` of equal elements in sorted order; its representative is its smallest
        # original index (the first of the run, the sorts being stable). A scan and a
        # scatter-min: ``cummax`` over one long row runs a slow scan kernel on CUDA (60% of
        # a 256 x 256 call on an H100).
        run = new.cumsum(0) - 1
        first = self.full(keys.numel(), keys.numel()).scatter_reduce_(0, run, perm, "amin")
        rep = self.xp.empty_like(perm)
        rep[perm] = first[run]
        return rep

    def index_sum(self, index: Any, values: Any, n: int) -> Any:
        return self.full(n, 0).scatter_add_(0, index, values)

    def per_segment(self, reduce: str, values: Any, segment: Any, first: Any) -> Any:
        n = first.numel()
        if values.is_floating_point():
            init = self.xp.full(
                (n,), -float("inf") if reduce == "max" else float("inf"), dtype=values.dtype, device=self.device
            )
        else:
            init = self.full(n, -(1 << 62) if reduce == "max" else 1 << 62)
        return init.scatter_reduce(0, segment, values, "amax" if reduce == "max" else "amin")

    def columns(self, *columns: Any) -> Any:
        return self.xp.stack(columns, dim=1)
