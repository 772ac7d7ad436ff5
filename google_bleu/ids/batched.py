"""Batched sentence GLEU of token ids (docs/python-api.md, "Batched token ids (torch)")."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np

from ..counting import python_rows, rows_by_chunk, small_input
from ..keys import group_in_segments
from ..settings import GLEU, scorer_from_options
from ..stats import COLUMNS, GleuStats, ratio
from ..validation import check_bool, describe, integer, is_tensor
from .checks import check_pad_id, token_orders, torch_module
from .fixed import fixed_shape_rows
from .inputs import Padded, Ragged, compact_rows, device_tensors, flat_ids, flat_lists, id_lists_of, n_rows, read_batch

if TYPE_CHECKING:
    import torch


def id_rows(
    hyp_ids: np.ndarray, hyp_lengths: np.ndarray, ref_ids: np.ndarray, n_refs: np.ndarray, ref_lengths: np.ndarray,
    min_len: int, max_len: int,
) -> tuple[np.ndarray, np.ndarray]:
    """``segment_rows`` of flat ``int64`` ids: every hypothesis, then every reference (``n_refs`` per segment)."""
    hyp_ends, ref_ends = np.cumsum(hyp_lengths), np.cumsum(ref_lengths)

    def groups(start: int, stop: int, ref_start: int, ref_stop: int, lengths: np.ndarray, segment_of: np.ndarray):
        first = int(hyp_ends[start - 1]) if start else 0
        ref_first = int(ref_ends[ref_start - 1]) if ref_start else 0
        ids = (hyp_ids[first : int(hyp_ends[stop - 1])], ref_ids[ref_first : int(ref_ends[ref_stop - 1])])
        return group_in_segments(np.concatenate(ids).view(np.uint64), segment_of)

    return rows_by_chunk(groups, hyp_lengths, n_refs, ref_lengths, min_len, max_len)


def _cpu_rows(hyp: Padded | Ragged, ref: Padded | Ragged, pad_id: int | None, min_len: int, max_len: int) -> Any:
    """Rows and chosen references of a batch on the CPU, by the engine's size rule (lists or arrays)."""
    rows = n_rows(hyp)
    if isinstance(hyp, Padded):
        hyp_ids, hyp_lengths = flat_ids(hyp.ids, hyp.lengths, pad_id)
        n_tokens = hyp_ids.size
    else:
        n_tokens = sum(map(len, hyp.rows))
    if isinstance(ref, Padded):
        n_slots = int(ref.ids.shape[1])
        lengths = None if ref.lengths is None else ref.lengths.reshape(-1)
        ref_ids, ref_lengths = flat_ids(ref.ids.reshape(rows * n_slots, ref.ids.shape[2]), lengths, pad_id)
        n_tokens += ref_ids.size
    else:
        n_tokens += sum(len(ids) for refs in ref.rows for ids in refs)
    if small_input(n_tokens):
        hyps = id_lists_of(hyp_ids, hyp_lengths) if isinstance(hyp, Padded) else hyp.rows
        if isinstance(ref, Padded):
            flat = id_lists_of(ref_ids, ref_lengths)
            refs = [flat[row * n_slots : (row + 1) * n_slots] for row in range(rows)]
        else:
            refs = ref.rows
        return python_rows(hyps, refs, min_len, max_len)
    if isinstance(hyp, Ragged):
        hyp_ids, hyp_lengths = flat_lists(hyp.rows)
    if isinstance(ref, Ragged):
        n_refs = np.fromiter(map(len, ref.rows), np.int64, rows)
        ref_ids, ref_lengths = flat_lists([ids for refs in ref.rows for ids in refs])
    else:
        n_refs = np.full(rows, n_slots, np.int64)
    return id_rows(hyp_ids, hyp_lengths, ref_ids, n_refs, ref_lengths, min_len, max_len)


def batch_gleu_stats(
    hypotheses: Any, references: Any, *, scorer: GLEU | None = None, pad_id: int | None = None,
    hypothesis_lengths: Any = None, reference_lengths: Any = None, device: Any = None, **settings: Any,
) -> torch.Tensor:
    """``int64 [B, 4]`` statistics of a batch of token ids on their device, :func:`google_bleu.gleu_stats`'s rows.

    Args:
        hypotheses: ``[B, L]`` padded ids, or ``B`` id sequences of any lengths.
        references: ``[B, L]``, ``[B, R, L]``, or ``B`` lists of id sequences (at least one a row).
        scorer: A :class:`~google_bleu.GLEU` giving only orders (or ``min_len=``/``max_len=`` as keywords).
        pad_id: Every token equal to it is removed; any other id, ``0`` included, is a real token.
        hypothesis_lengths: ``[B]``: only the first ``length`` ids of a row count.
        reference_lengths: ``[B]`` or ``[B, R]``, the same for the references.
        device: Where the batch is counted (default: the device of a tensor argument, else CPU).

    Example:
        >>> import torch
        >>> hyp = torch.tensor([[5, 6, 7, -1], [0, 0, 1, 2]])
        >>> ref = torch.tensor([[5, 6, 8, -1], [0, 1, 2, -1]])
        >>> batch_gleu_stats(hyp, ref, pad_id=-1).tolist()
        [[3, 6, 6, 6], [6, 10, 6, 10]]
        >>> batch_gleu_stats(hyp, ref, pad_id=-1, max_len=2).tolist()
        [[3, 5, 5, 5], [5, 7, 5, 7]]
    """
    scorer = scorer_from_options(scorer, settings, caller="batch_gleu_stats")
    torch, rows = _batch_rows(hypotheses, references, scorer, pad_id, hypothesis_lengths, reference_lengths, device)
    return _rows_tensor(torch, rows)


def _batch_rows(
    hypotheses: Any, references: Any, scorer: GLEU, pad_id: Any, hypothesis_lengths: Any, reference_lengths: Any,
    device: Any,
) -> tuple[Any, Any]:
    """``(torch, rows)``: the engine's rows on the CPU (a list, or an array), else an ``int64`` tensor."""
    torch = torch_module()
    min_len, max_len = token_orders(scorer)
    pad_id = check_pad_id(pad_id)
    hyp, ref, device = read_batch(torch, hypotheses, references, pad_id, hypothesis_lengths, reference_lengths, device)
    if device.type == "cpu":
        return torch, _cpu_rows(hyp, ref, pad_id, min_len, max_len)[0]
    return torch, fixed_shape_rows(*device_tensors(torch, hyp, ref, pad_id, device), min_len, max_len)


def _rows_tensor(torch: Any, rows: Any) -> Any:
    if isinstance(rows, list):
        return torch.tensor(rows, dtype=torch.int64).reshape(-1, len(COLUMNS))
    if isinstance(rows, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(rows))
    return rows


def batch_sentence_gleu(
    hypotheses: Any, references: Any, *, scorer: GLEU | None = None, pad_id: int | None = None,
    hypothesis_lengths: Any = None, reference_lengths: Any = None, device: Any = None, **settings: Any,
) -> torch.Tensor:
    """``float64 [B]`` sentence GLEU of every row, ``==`` nltk's, on the ids' device (as :func:`batch_gleu_stats`).

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
    scorer = scorer_from_options(scorer, settings, caller="batch_sentence_gleu")
    torch, rows = _batch_rows(hypotheses, references, scorer, pad_id, hypothesis_lengths, reference_lengths, device)
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
    """A ``[B, 4]`` statistics tensor (any device) as :class:`~google_bleu.GleuStats` of these orders.

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
    """:func:`batch_sentence_gleu` of padded id tensors of the same shapes again and again: on a CUDA device the
    first call of a shape captures a CUDA graph, later calls replay it (docs/rl-rewards.md, "BatchScorer").

    Args:
        max_graphs: Most shapes whose graphs are kept (least recently used go first).
        check_lengths: Check that explicit lengths lie in ``0..L`` (one host read per call).

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
        self, scorer: GLEU | None = None, *, pad_id: int | None = None, cuda_graphs: bool = True, max_graphs: int = 16,
        check_lengths: bool = True, **settings: Any,
    ) -> None:
        self.scorer = scorer_from_options(scorer, settings, caller="BatchScorer")
        self.min_len, self.max_len = token_orders(self.scorer)
        self.pad_id = check_pad_id(pad_id)
        check_bool(cuda_graphs, "cuda_graphs")
        check_bool(check_lengths, "check_lengths")
        if integer(max_graphs) is None or max_graphs < 1:
            raise ValueError(f"max_graphs must be a positive integer, got {describe(max_graphs)}")
        self.cuda_graphs, self.max_graphs, self.check_lengths = cuda_graphs, max_graphs, check_lengths
        self._graphs: OrderedDict = OrderedDict()

    def compute(self, hyp: Any, hyp_lengths: Any, ref3: Any, ref_lengths: Any) -> torch.Tensor:
        """The ``[B, 4]`` rows of checked padded tensors on their device, with no host read: what a graph captures."""
        torch = torch_module()
        hyp, hyp_len = compact_rows(torch, hyp, hyp_lengths, self.pad_id)
        ref, ref_len = compact_rows(torch, ref3, ref_lengths, self.pad_id)
        return fixed_shape_rows(hyp, hyp_len, ref, ref_len, None, self.min_len, self.max_len)

    def stats(
        self, hypotheses: Any, references: Any, *, hypothesis_lengths: Any = None, reference_lengths: Any = None
    ) -> torch.Tensor:
        """``int64 [B, 4]`` statistics rows, as :func:`batch_gleu_stats` (same arguments, tensors only)."""
        torch = torch_module()
        if not (is_tensor(hypotheses) and is_tensor(references)):
            raise TypeError(f"BatchScorer takes padded tensors (hypotheses [B, L], references [B, L] or [B, R, L]); got {describe(hypotheses)} and {describe(references)}; use batch_sentence_gleu for id lists")
        hyp, ref, device = read_batch(
            torch, hypotheses, references, self.pad_id, hypothesis_lengths, reference_lengths, None, self.check_lengths
        )
        if device.type == "cpu":  # nothing to capture: numpy counts CPU tensors fastest
            return _rows_tensor(torch, _cpu_rows(hyp, ref, self.pad_id, self.min_len, self.max_len)[0])
        args = (hyp.ids, hyp.lengths, ref.ids, ref.lengths)
        if not (self.cuda_graphs and device.type == "cuda"):
            return self.compute(*args)
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
                self.compute(*static_args)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            output = self.compute(*static_args)
        return graph, static_args, output

    def __call__(
        self, hypotheses: Any, references: Any, *, hypothesis_lengths: Any = None, reference_lengths: Any = None
    ) -> torch.Tensor:
        """``float64 [B]`` sentence GLEU of each row (as :func:`batch_sentence_gleu`)."""
        rows = self.stats(
            hypotheses, references, hypothesis_lengths=hypothesis_lengths, reference_lengths=reference_lengths
        )
        return stats_scores(rows)
