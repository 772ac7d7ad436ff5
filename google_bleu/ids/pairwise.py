"""Pairwise GLEU, the sentence GLEU of every hypothesis against every reference, for MBR (docs/mbr.md).

Example:
    >>> from google_bleu.ids import pairwise_gleu, mbr_select
    >>> candidates = ["the cat sat on the mat", "the cat ate the mat", "a cat sat on the mat"]
    >>> pairwise_gleu(candidates).round(4).tolist()
    [[1.0, 0.3333, 0.7778], [0.3333, 1.0, 0.2222], [0.7778, 0.2222, 1.0]]
    >>> best = mbr_select(candidates)
    >>> best.index, best.candidate, best.expected_scores.round(4).tolist()
    (0, 'the cat sat on the mat', [0.5556, 0.2778, 0.5])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..counting import ngram_counts
from ..keys import LineStore, first_positions, group_in_segments, token_groups
from ..settings import GLEU, scorer_from_options
from ..stats import ratio
from ..text import tokenized
from ..tokenizers import Tokenizer
from ..validation import check_sequence, describe, is_sequence, is_tensor
from .checks import check_id_tensor, check_lengths, check_pad_id, id_array, token_orders, torch_module
from .device_pairwise import device_score_matrix
from .inputs import compact_rows, flat_ids
from .matrix import match_matrix, shared_columns

if TYPE_CHECKING:
    import torch

__all__ = ["pairwise_gleu"]


class Side(NamedTuple):
    """The distinct sentences of one side and where each input sentence went."""

    sentences: Any  # token sequences, or (text) their lines' indices in the ``store``
    lengths: np.ndarray  # int64 token counts of ``sentences``
    inverse: np.ndarray  # int64: input sentence i is ``sentences[inverse[i]]``


class Prepared(NamedTuple):
    """Both sides of a pairwise call, checked and made distinct."""

    kind: str  # "text", "tokens" or "tensor"
    hyp: Side
    ref: Side | None  # None: all pairs within the hypotheses
    store: LineStore | None  # text: the tokenized lines the sentences name
    ids: np.ndarray | None  # tensor input: flat int64 ids of hyp then ref distinct sentences
    device: Any  # tensor input: the tensors' device
    tensors: tuple | None = None  # tensors on a GPU: (hyp, hyp_len, ref or None, ref_len), compacted there


def _kind_of(name: str, value: Any) -> str | None:
    """``"tensor"``, ``"text"``, ``"tokens"``, or None for an empty sequence."""
    if is_tensor(value):
        return "tensor"
    check_sequence(value, name, "a list of texts, a list of token sequences or a 2-D id tensor")
    if len(value) == 0:
        return None
    kinds = set(map(type, value))
    if kinds == {str}:
        return "text"
    for i, item in enumerate(value):
        if isinstance(item, str) != isinstance(value[0], str):
            raise TypeError(f"{name} mixes texts and token sequences: {name}[0] is {describe(value[0])}, {name}[{i}] is {describe(item)}")
        if isinstance(item, bytes) or not is_sequence(item):
            raise TypeError(f"{name}[{i}] must be a text or a token sequence, got {describe(item)}")
    return "text" if isinstance(value[0], str) else "tokens"


def _distinct(keys: list) -> tuple[np.ndarray, np.ndarray]:
    """Where each distinct key first occurs, and per key the index of its distinct key."""
    position = first_positions(keys)
    is_first = position == np.arange(len(keys))
    distinct = np.cumsum(is_first)
    distinct -= 1
    return np.flatnonzero(is_first), np.take(distinct, position)


def _text_sides(sides: list[list[str]], tokenize: Tokenizer) -> tuple[list[Side], LineStore | None]:
    """Each side's distinct texts, tokenized (as lines of a ``LineStore`` where the tokenizer gives byte spans)."""
    distinct = [_distinct(side) for side in sides]
    texts = [[side[i] for i in first.tolist()] for side, (first, _) in zip(sides, distinct)]
    store = LineStore() if tokenize.spans is not None else None
    keys = tokenized(tokenize, [text for side in texts for text in side], store)
    out, start = [], 0
    for side, (_, inverse) in zip(texts, distinct):
        part = keys[start : start + len(side)]
        start += len(side)
        if store is not None:
            out.append(Side(part, np.take(store.counts, part), inverse))
        else:
            out.append(Side(part, np.fromiter(map(len, part), np.int64, len(part)), inverse))
    return out, store


def _token_side(name: str, value: Sequence, pad_id: int | None) -> Side:
    sentences = []
    for i, sentence in enumerate(value):
        if is_tensor(sentence) or isinstance(sentence, np.ndarray):
            sentence = id_array(f"{name}[{i}]", sentence).tolist()
        if pad_id is not None:
            sentence = [token for token in sentence if token != pad_id]
        sentences.append(tuple(sentence))
    try:
        first, inverse = _distinct(sentences)
    except TypeError as error:
        raise TypeError(f"{name}: tokens must be hashable (e.g. str or int): {error}") from None
    chosen = [sentences[i] for i in first.tolist()]
    return Side(chosen, np.fromiter(map(len, chosen), np.int64, len(chosen)), inverse)


def _checked_tensor(torch, name: str, value, lengths: Any, lengths_name: str, device, first_name: str) -> Any:
    """The checked lengths (or None) of a padded ``[N, L]`` id tensor on ``device``."""
    check_id_tensor(torch, name, value)
    if value.dim() != 2:
        raise ValueError(f"{name} must be a 2-D tensor [n, length], got shape {list(value.shape)}")
    if value.device != device:
        raise ValueError(f"{first_name} and {name} must be on the same device, got {device} and {value.device}")
    if lengths is not None:
        lengths = check_lengths(torch, lengths_name, lengths, (value.shape[0],), value.shape[1], device)
    return lengths


def _tensor_side(value: Any, pad_id: int | None, lengths: Any) -> tuple[Side, np.ndarray]:
    """Distinct rows of a checked padded ``[N, L]`` id tensor: ``(Side with no sentences, flat ids)``."""
    tokens, counts = flat_ids(value, lengths, pad_id)
    ends = np.cumsum(counts).tolist()
    rows = [tokens[end - size : end].tobytes() for end, size in zip(ends, counts.tolist())]
    first, inverse = _distinct(rows)
    is_first = np.zeros(counts.size, bool)
    is_first[first] = True
    return Side([], counts[first], inverse), tokens[np.repeat(is_first, counts)]


def prepare(
    hypotheses: Any, references: Any, scorer: GLEU, pad_id: Any, hypothesis_lengths: Any, reference_lengths: Any,
    names: tuple[str, str, str, str] = ("hypotheses", "references", "hypothesis_lengths", "reference_lengths"),
    on_device: bool = True,
) -> Prepared:
    """Both sides checked, each as its distinct sentences, or (id tensors on a GPU, ``on_device``) compacted there."""
    hyp_name, ref_name, hyp_lengths_name, ref_lengths_name = names
    pad_id = check_pad_id(pad_id)
    hyp_kind = _kind_of(hyp_name, hypotheses)
    ref_kind = None if references is None else _kind_of(ref_name, references)
    if references is None and reference_lengths is not None:
        raise ValueError(f"{ref_lengths_name} needs {ref_name}; without them the pairs are within {hyp_name}")
    kind = hyp_kind or ref_kind or "tokens"
    if hyp_kind is not None and ref_kind is not None and hyp_kind != ref_kind:
        raise TypeError(f"{hyp_name} and {ref_name} must be of the same kind, got {hyp_kind} and {ref_kind}")
    if kind == "tensor" and (hyp_kind is None or (references is not None and ref_kind is None)):
        empty = hyp_name if hyp_kind is None else ref_name
        raise TypeError(f"{empty} must be a tensor too when the other side is one, got an empty sequence")
    if kind != "tensor":
        for name, lengths in ((hyp_lengths_name, hypothesis_lengths), (ref_lengths_name, reference_lengths)):
            if lengths is not None:
                raise ValueError(f"{name} applies to a padded id tensor; sequences carry their own lengths")
    if kind != "text":
        token_orders(scorer, "token sequences and ids")
    elif pad_id is not None:
        raise ValueError("pad_id applies to token ids; texts have no padding")

    if kind == "text":
        sides = [list(hypotheses)] + ([] if references is None else [list(references)])
        prepared, store = _text_sides(sides, scorer.tokenizer)
        return Prepared(kind, prepared[0], prepared[1] if references is not None else None, store, None, None)
    if kind == "tokens":
        hyp = _token_side(hyp_name, hypotheses, pad_id)
        ref = None if references is None else _token_side(ref_name, references, pad_id)
        return Prepared(kind, hyp, ref, None, None, None)
    torch = torch_module()
    device = hypotheses.device
    hyp_lengths = _checked_tensor(torch, hyp_name, hypotheses, hypothesis_lengths, hyp_lengths_name, device, hyp_name)
    ref_lengths = None
    if references is not None:
        ref_lengths = _checked_tensor(torch, ref_name, references, reference_lengths, ref_lengths_name, device, hyp_name)
    if on_device and device.type != "cpu":
        hyp_t, hyp_len = _device_side(torch, hypotheses, hyp_lengths, pad_id)
        ref_t, ref_len = (None, None) if references is None else _device_side(torch, references, ref_lengths, pad_id)
        hyp = Side([], np.zeros(0, np.int64), np.arange(int(hypotheses.shape[0])))
        ref = None if references is None else Side([], np.zeros(0, np.int64), np.arange(int(references.shape[0])))
        return Prepared(kind, hyp, ref, None, None, device, (hyp_t, hyp_len, ref_t, ref_len))
    hyp, ids = _tensor_side(hypotheses, pad_id, hyp_lengths)
    ref = None
    if references is not None:
        ref, ref_ids = _tensor_side(references, pad_id, ref_lengths)
        ids = np.concatenate((ids, ref_ids))
    return Prepared(kind, hyp, ref, None, ids, device)


def _device_side(torch: Any, value: Any, lengths: Any, pad_id: int | None) -> tuple[Any, Any]:
    ids, counts = compact_rows(torch, value, lengths, pad_id)
    if counts is None:
        counts = torch.full((int(ids.shape[0]),), int(ids.shape[1]), dtype=torch.int64, device=ids.device)
    return ids, counts


def ngram_groups(prepared: Prepared, lengths: np.ndarray) -> np.ndarray:
    """Per token position of all distinct sentences, a representative position of the same token."""
    n_tokens = int(lengths.sum())
    one_segment = np.zeros(n_tokens, np.int64)
    if n_tokens == 0:
        return one_segment
    if prepared.ids is not None:
        return group_in_segments(prepared.ids.view(np.uint64), one_segment)
    if prepared.store is not None:
        lines = prepared.hyp.sentences if prepared.ref is None else np.concatenate((prepared.hyp.sentences, prepared.ref.sentences))
        return prepared.store.groups(lines, lengths, one_segment)
    sentences = prepared.hyp.sentences + ([] if prepared.ref is None else prepared.ref.sentences)
    return token_groups(sentences, lengths, one_segment)


def score_matrix(prepared: Prepared, min_len: int, max_len: int) -> Any:
    """float64 ``[N, M]`` sentence GLEU of every pair: numpy, or for tensors a tensor on their device."""
    if prepared.tensors is not None:
        return device_score_matrix(*prepared.tensors, min_len, max_len)
    within = prepared.ref is None
    hyp_lengths = prepared.hyp.lengths
    ref_lengths = hyp_lengths if within else prepared.ref.lengths
    lengths = hyp_lengths if within else np.concatenate((hyp_lengths, ref_lengths))
    n_left, n_right = hyp_lengths.size, ref_lengths.size
    group = ngram_groups(prepared, lengths)
    rows, columns, n_columns = shared_columns(group, lengths, n_left, within, min_len, max_len)
    matches = match_matrix(rows, columns, n_columns, n_left, n_right, within)
    n_hyp = ngram_counts(hyp_lengths, min_len, max_len)
    n_ref = ngram_counts(ref_lengths, min_len, max_len)
    if within:  # a sentence matches all of its own n-grams (the columns leave out unshared ones)
        np.fill_diagonal(matches, n_hyp)
    hyp_inverse = prepared.hyp.inverse
    ref_inverse = hyp_inverse if within else prepared.ref.inverse
    scores = ratio(matches, np.maximum(n_hyp[:, None], n_ref[None, :]))[hyp_inverse][:, ref_inverse]
    # Tensors here are on the CPU (on another device they are scored there, above).
    return scores if prepared.device is None else torch_module().from_numpy(scores).to(prepared.device)


def pairwise_gleu(
    hypotheses: Any, references: Any = None, *, scorer: GLEU | None = None, pad_id: int | None = None,
    hypothesis_lengths: Any = None, reference_lengths: Any = None, **settings: Any,
) -> np.ndarray | torch.Tensor:
    """float64 ``[N, M]`` sentence GLEU of every hypothesis against every reference, entry ``[i, j]`` ``==``
    nltk's ``sentence_gleu([references[j]], hypotheses[i])``: numpy, or a tensor on the ids' device.

    Args:
        hypotheses: ``N`` texts, token sequences, or a 2-D id tensor ``[N, L]`` on any device.
        references: ``M`` of the same kind, or None (default): all pairs within ``hypotheses``.
        scorer: A :class:`~google_bleu.GLEU` (or its settings as keywords); ids and tokens take only orders.
        pad_id: For ids: every id equal to it is removed; any other id, ``0`` included, is a token.
        hypothesis_lengths: For a tensor, ``[N]``: only the first ``length`` ids of a row count.

    Example:
        >>> pairwise_gleu(["the cat sat on the mat"], ["the cat ate the mat", "the cat"]).tolist()
        [[0.3333333333333333, 0.16666666666666666]]
        >>> pairwise_gleu([[1, 2, 3], [3]], min_len=1, max_len=2).tolist()
        [[1.0, 0.2], [0.2, 1.0]]
        >>> import torch
        >>> ids = torch.tensor([[7, 8, 9, 0], [7, 8, -1, -1]])
        >>> pairwise_gleu(ids, pad_id=-1)  # 0 is a real token here
        tensor([[1.0000, 0.3000],
                [0.3000, 1.0000]], dtype=torch.float64)
    """
    scorer = scorer_from_options(scorer, settings, caller="pairwise_gleu")
    prepared = prepare(hypotheses, references, scorer, pad_id, hypothesis_lengths, reference_lengths)
    return score_matrix(prepared, scorer.min_len, scorer.max_len)
