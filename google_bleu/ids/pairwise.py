"""Pairwise Google-BLEU: the sentence GLEU of every hypothesis against every reference.

Minimum Bayes risk (MBR) decoding needs the sentence score of all pairs of N candidates
(N = 16 to 1,024). :func:`pairwise_gleu` returns that ``N x M`` matrix, each entry equal
to nltk's ``sentence_gleu([reference], hypothesis, min_len, max_len)`` (``==``), and
:func:`mbr_select` picks the candidate with the highest expected GLEU.

How it works (exact integer counts, then one matrix product):

1. Every sentence of both sides goes into one batch that is ONE segment for the engine's
   grouping (:func:`google_bleu.keys.token_groups`, :func:`~google_bleu.keys.group_keys`),
   so equal n-grams of different sentences share a group. Order n+1 keys a position by
   the groups of its n-gram and of its neighbour's, as the engine does.
2. Per order, each (sentence, n-gram) pair is counted. Only n-grams that occur on both
   sides (with ``references=None``: in two different sentences) can add a match, and only
   they extend to the next order.
3. Clipped matches ``sum_g min(h_g, r_g)`` of all pairs at once: ``min(a, b)`` is the
   number of thresholds ``t >= 1`` with ``a >= t`` and ``b >= t``, so with a 0/1 column
   per (n-gram, threshold) the match matrix is ``H @ R.T``. Columns that many sentences
   share go through float64 products of dense 0/1 blocks (``torch.float64`` on a
   tensor's device, never TF32): every partial sum is an integer far below 2**53, so it
   is exact. Columns that few share (most of them) add 1 to each of their pairs with a
   ``bincount``. Blocks and chunks bound the extra memory.
4. ``n_all = max(n_hyp_i, n_ref_j)`` follows from lengths (:func:`~google_bleu.engine.ngram_counts`);
   a score is ``n_match / n_all`` with one correctly rounded division (as Python's on
   nltk's integers), 0.0 where ``n_all == 0``.

Identical sentences are counted once. With ``references=None`` the diagonal (a
sentence against itself) is 1.0, or 0.0 for a sentence with no n-gram, as nltk gives.

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

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..engine import NUMPY, chunks, extend, ngram_counts, pair_counts
from ..keys import LineStore, first_positions, group_in_segments, token_groups
from ..scorer import GLEU, scorer_from_options, token_orders
from ..tokenizers import Tokenizer
from ..validation import check_bool, describe, is_tensor
from .batched import flat_ids
from .checks import check_id_tensor, check_lengths, check_pad_id, id_array, torch_module

if TYPE_CHECKING:
    import torch

__all__ = ["MbrResult", "mbr_select", "pairwise_gleu"]

#: Elements of the dense 0/1 blocks of both sides together (float64: 32 MiB); the
#: column blocks of the match product are sized to stay within it.
BLOCK_ELEMENTS = 1 << 22
#: A column (n-gram, threshold) goes to the dense product when its pairs number more
#: than 1/DENSE_RATIO of all pairs: a BLAS multiply-add costs about a hundredth of
#: adding one pair with ``bincount``.
DENSE_RATIO = 128
#: Most pairs of light columns expanded at a time (int64 temporaries of 32 MiB); a
#: column with more pairs than this goes to the dense product.
PAIR_CHUNK = 1 << 22


class _Side(NamedTuple):
    """The distinct sentences of one side and where each input sentence went."""

    sentences: Any  # token sequences, or (text) their lines' indices in the ``store``
    lengths: np.ndarray  # int64 token counts of ``sentences``
    inverse: np.ndarray  # int64: input sentence i is ``sentences[inverse[i]]``


class _Prepared(NamedTuple):
    kind: str  # "text", "tokens" or "tensor"
    hyp: _Side
    ref: _Side | None  # None: all pairs within the hypotheses
    store: LineStore | None  # text: the tokenized lines the sentences name
    ids: np.ndarray | None  # tensor input: flat int64 ids of hyp then ref distinct sentences
    device: Any  # tensor input: the tensors' device


# -- input ------------------------------------------------------------------------------


def _kind_of(name: str, value: Any) -> str | None:
    """``"tensor"``, ``"text"``, ``"tokens"``, or None for an empty sequence."""
    if is_tensor(value):
        return "tensor"
    if isinstance(value, (str, bytes, dict)) or not (hasattr(value, "__len__") and hasattr(value, "__getitem__")):
        raise TypeError(
            f"{name} must be a list of texts, a list of token sequences or a 2-D id tensor, got {describe(value)}"
        )
    if len(value) == 0:
        return None
    kinds = set(map(type, value))
    if kinds == {str}:
        return "text"
    for i, item in enumerate(value):
        if isinstance(item, str) != isinstance(value[0], str):
            raise TypeError(
                f"{name} mixes texts and token sequences: {name}[0] is {describe(value[0])}, "
                f"{name}[{i}] is {describe(item)}"
            )
        if isinstance(item, bytes) or not (isinstance(item, str) or hasattr(item, "__len__")):
            raise TypeError(f"{name}[{i}] must be a text or a token sequence, got {describe(item)}")
    return "text" if isinstance(value[0], str) else "tokens"


def _distinct(keys: list) -> tuple[np.ndarray, np.ndarray]:
    """Where each distinct key first occurs, and per key the index of its distinct key."""
    position = first_positions(keys)
    is_first = position == np.arange(len(keys))
    distinct = np.cumsum(is_first)
    distinct -= 1
    return np.flatnonzero(is_first), np.take(distinct, position)


def _text_sides(sides: list[list[str]], tokenize: Tokenizer) -> tuple[list[_Side], LineStore | None]:
    distinct = [_distinct(side) for side in sides]
    texts = [[side[i] for i in first.tolist()] for side, (first, _) in zip(sides, distinct)]
    out = []
    if tokenize.spans is not None:  # the tokens as byte spans: no token objects
        store = LineStore()
        ids = store.ids([text for side in texts for text in side], tokenize.spans_all)
        start = 0
        for side, (_, inverse) in zip(texts, distinct):
            lines = ids[start : start + len(side)]
            out.append(_Side(lines, np.take(store.counts, lines), inverse))
            start += len(side)
        return out, store
    unique = list(dict.fromkeys(text for side in texts for text in side))
    tokens_of = dict(zip(unique, tokenize.tokenize_all(unique)))
    for side, (_, inverse) in zip(texts, distinct):
        tokens = list(map(tokens_of.__getitem__, side))
        out.append(_Side(tokens, np.fromiter(map(len, tokens), np.int64, len(tokens)), inverse))
    return out, None


def _token_side(name: str, value: Sequence, pad_id: int | None) -> _Side:
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
    return _Side(chosen, np.fromiter(map(len, chosen), np.int64, len(chosen)), inverse)


def _tensor_side(torch, name: str, value, pad_id: int | None, lengths: Any, lengths_name: str, device, first_name: str):
    """Distinct rows of a padded ``[N, L]`` id tensor: ``(_Side with no sentences, flat ids)``."""
    check_id_tensor(torch, name, value)
    if value.dim() != 2:
        raise ValueError(f"{name} must be a 2-D tensor [n, length], got shape {list(value.shape)}")
    if value.device != device:
        raise ValueError(f"{first_name} and {name} must be on the same device, got {device} and {value.device}")
    if lengths is not None:
        lengths = check_lengths(torch, lengths_name, lengths, (value.shape[0],), value.shape[1], device)
    tokens, counts = flat_ids(value, lengths, pad_id)
    ends = np.cumsum(counts).tolist()
    rows = [tokens[end - size : end].tobytes() for end, size in zip(ends, counts.tolist())]
    first, inverse = _distinct(rows)
    is_first = np.zeros(counts.size, bool)
    is_first[first] = True
    return _Side([], counts[first], inverse), tokens[np.repeat(is_first, counts)]


def _prepare(
    hypotheses: Any,
    references: Any,
    scorer: GLEU,
    pad_id: Any,
    hypothesis_lengths: Any,
    reference_lengths: Any,
    names: tuple[str, str, str, str] = ("hypotheses", "references", "hypothesis_lengths", "reference_lengths"),
) -> _Prepared:
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
        return _Prepared(kind, prepared[0], prepared[1] if references is not None else None, store, None, None)
    if kind == "tokens":
        hyp = _token_side(hyp_name, hypotheses, pad_id)
        ref = None if references is None else _token_side(ref_name, references, pad_id)
        return _Prepared(kind, hyp, ref, None, None, None)
    torch = torch_module()

    device = hypotheses.device
    hyp, hyp_ids = _tensor_side(
        torch, hyp_name, hypotheses, pad_id, hypothesis_lengths, hyp_lengths_name, device, hyp_name
    )
    ref, ids = None, hyp_ids
    if references is not None:
        ref, ref_ids = _tensor_side(
            torch, ref_name, references, pad_id, reference_lengths, ref_lengths_name, device, hyp_name
        )
        ids = np.concatenate((hyp_ids, ref_ids))
    return _Prepared(kind, hyp, ref, None, ids, device)


# -- counting ---------------------------------------------------------------------------


def _columns(
    group: np.ndarray, lengths: np.ndarray, n_left: int, within: bool, min_len: int, max_len: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """The 0/1 entries ``(sentence, column)`` whose products count the clipped matches.

    ``group`` holds, per token position of all sentences (left side first), a
    representative position of the same token anywhere in the batch. A column stands for
    one (n-gram, threshold t): sentence s has a 1 there when it holds the n-gram at least
    t times. Only columns that some left and some right sentence share are made (with
    ``within``, columns two different sentences share). Returns the entries and the
    number of columns.
    """
    n_sentences = lengths.size
    n_pos = group.size
    if n_pos == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    sentence_of = np.repeat(np.arange(n_sentences, dtype=np.int64), lengths)
    same_sentence = sentence_of[1:] == sentence_of[:-1]
    position = np.arange(n_pos, dtype=np.int64)
    n = n_pos  # entries (n-gram occurrences), and the bound of their group labels
    entry_sentence, entry_feature, entry_count = [], [], []
    n_features = 0
    for order in range(1, max_len + 1):
        sentence = np.take(sentence_of, position)
        pair, pair_count = pair_counts(NUMPY, group, sentence, n_sentences)
        found = np.flatnonzero(pair_count)  # one representative per (n-gram, sentence)
        found_group = np.take(group, found)
        found_sentence = np.take(sentence, found)
        live = _shared(found_group, found_sentence, n_left, within, n)
        if order >= min_len:
            keep = np.take(live, found_group)
            feature = np.cumsum(live)
            feature -= 1
            entry_sentence.append(found_sentence[keep])
            entry_feature.append(np.take(feature, found_group[keep]) + n_features)
            entry_count.append(pair_count[found[keep]])
            n_features += int(np.count_nonzero(live))
        if order == max_len:
            break
        # Only an n-gram that both sides share can extend to a shared (n+1)-gram.
        group, position, kept = extend(NUMPY, group, position, live, n, same_sentence if order == 1 else None)
        n = kept.size
        if n == 0:
            break
    if not entry_sentence:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    sentence = np.concatenate(entry_sentence)
    feature = np.concatenate(entry_feature)
    count = np.concatenate(entry_count)
    # Threshold t: the entries holding their n-gram at least t times; a column for each
    # n-gram still shared at that level.
    rows, columns = [], []
    n_columns = 0
    while sentence.size:
        live = _shared(feature, sentence, n_left, within, n_features)
        column = np.cumsum(live)
        column -= 1
        keep = np.take(live, feature)
        rows.append(sentence[keep])
        columns.append(np.take(column, feature[keep]) + n_columns)
        n_columns += int(np.count_nonzero(live))
        more = count > 1
        more &= keep
        sentence, feature, count = sentence[more], feature[more], count[more] - 1
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    return np.concatenate(rows), np.concatenate(columns), n_columns


def _shared(item: np.ndarray, sentence: np.ndarray, n_left: int, within: bool, size: int) -> np.ndarray:
    """Per item id (``0..size-1``), whether both sides hold it (``within``: two sentences).

    Each (item, sentence) pair appears at most once in the arguments.
    """
    if within:
        return np.bincount(item, minlength=size) >= 2
    left = sentence < n_left
    shared = np.bincount(item[left], minlength=size) > 0
    shared &= np.bincount(item[~left], minlength=size) > 0
    return shared


def _groups(prepared: _Prepared, lengths: np.ndarray) -> np.ndarray:
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


def _match_matrix(rows: np.ndarray, columns: np.ndarray, n_columns: int, n_left: int, n_right: int, within: bool, device):
    """``H @ R.T`` of the 0/1 entries: clipped matches of every pair, exact.

    A column that few sentences share adds 1 to each of its pairs directly (a
    ``bincount`` of their cells); the columns that many share, which hold most of the
    pairs, go through float64 products of dense 0/1 blocks (numpy, or torch on
    ``device``). Both are exact integer sums. Returns float64 on ``device`` (numpy when None).
    """
    order = np.argsort(columns, kind="stable")
    rows, columns = rows[order], columns[order]
    if within:
        left_rows = right_rows = rows
        left_columns = right_columns = columns
    else:
        is_left = rows < n_left
        left_rows, left_columns = rows[is_left], columns[is_left]
        right_rows, right_columns = rows[~is_left] - n_left, columns[~is_left]
    k_left = np.bincount(left_columns, minlength=n_columns)
    k_right = k_left if within else np.bincount(right_columns, minlength=n_columns)
    pairs = k_left * k_right
    heavy = pairs * DENSE_RATIO > n_left * n_right
    heavy |= pairs > PAIR_CHUNK
    matches = _sparse_matches(left_rows, left_columns, right_rows, k_right, heavy, n_left, n_right)
    if heavy.any():
        dense_id = np.cumsum(heavy)
        dense_id -= 1
        keep = np.take(heavy, columns)
        dense_rows, dense_columns = rows[keep], np.take(dense_id, columns[keep])
        n_side = n_left if within else n_left + n_right
        product = _dense_matches(dense_rows, dense_columns, int(dense_id[-1]) + 1, n_side, n_left, within, device)
    else:
        product = None
    if device is None:
        matches = matches.astype(np.float64)
        return matches if product is None else matches.__iadd__(product)
    torch = torch_module()

    matches = torch.from_numpy(matches).to(device=device, dtype=torch.float64)
    return matches if product is None else matches.add_(product)


def _sparse_matches(
    left_rows: np.ndarray,
    left_columns: np.ndarray,
    right_rows: np.ndarray,
    k_right: np.ndarray,
    heavy: np.ndarray,
    n_left: int,
    n_right: int,
) -> np.ndarray:
    """Per pair, how many light columns it shares (entries sorted by column), ``int64 [n_left, n_right]``."""
    counts = np.zeros(n_left * n_right, np.int64)
    right_start = np.cumsum(k_right)
    right_start -= k_right  # the right entries of column c start there
    light = np.flatnonzero(~np.take(heavy, left_columns))
    repeats = np.take(k_right, np.take(left_columns, light))
    for start, stop in chunks(repeats, PAIR_CHUNK):
        entries, times = light[start:stop], repeats[start:stop]
        # Each left entry meets every right entry of its column.
        first = np.take(right_start, np.take(left_columns, entries))
        first -= np.cumsum(times) - times
        position = np.repeat(first, times)
        position += np.arange(position.size)
        cell = np.repeat(np.take(left_rows, entries) * n_right, times)
        cell += np.take(right_rows, position)
        counts += np.bincount(cell, minlength=counts.size)
    return counts.reshape(n_left, n_right)


def _dense_matches(rows: np.ndarray, columns: np.ndarray, n_columns: int, n_side: int, n_left: int, within: bool, device):
    """``H @ R.T`` of 0/1 entries in float64 column blocks (numpy, or torch on ``device``)."""
    block = max(1, BLOCK_ELEMENTS // max(n_side, 1))
    bounds = np.searchsorted(columns, np.arange(0, n_columns + block, block)).tolist()  # columns are sorted
    n_right = n_side if within else n_side - n_left
    if device is None:
        matches = np.zeros((n_left, n_right), np.float64)
        for start, (low, high) in enumerate(zip(bounds[:-1], bounds[1:])):
            if low == high:
                continue
            dense = np.zeros((n_side, min(block, n_columns - start * block)), np.float64)
            dense[rows[low:high], columns[low:high] - start * block] = 1.0
            if within:
                matches += dense @ dense.T
            else:
                matches += dense[:n_left] @ dense[n_left:].T
        return matches
    torch = torch_module()

    matches = torch.zeros((n_left, n_right), dtype=torch.float64, device=device)
    rows_t = torch.from_numpy(rows).to(device)
    columns_t = torch.from_numpy(columns).to(device)
    for start, (low, high) in enumerate(zip(bounds[:-1], bounds[1:])):
        if low == high:
            continue
        dense = torch.zeros((n_side, min(block, n_columns - start * block)), dtype=torch.float64, device=device)
        dense[rows_t[low:high], columns_t[low:high] - start * block] = 1.0
        left = dense if within else dense[:n_left]
        right = dense if within else dense[n_left:]
        matches.addmm_(left, right.T)  # float64: no TF32 or reduced-precision path applies
    return matches


def _scores(prepared: _Prepared, min_len: int, max_len: int):
    within = prepared.ref is None
    hyp_lengths = prepared.hyp.lengths
    ref_lengths = hyp_lengths if within else prepared.ref.lengths
    lengths = hyp_lengths if within else np.concatenate((hyp_lengths, ref_lengths))
    n_left, n_right = hyp_lengths.size, ref_lengths.size
    group = _groups(prepared, lengths)
    rows, columns, n_columns = _columns(group, lengths, n_left, within, min_len, max_len)
    device = prepared.device
    matches = _match_matrix(rows, columns, n_columns, n_left, n_right, within, device)
    n_hyp = ngram_counts(hyp_lengths, min_len, max_len)
    n_ref = ngram_counts(ref_lengths, min_len, max_len)
    if within:
        # A sentence matches all of its own n-grams (the columns leave out unshared ones).
        diagonal = np.arange(n_left)
        if device is None:
            matches[diagonal, diagonal] = n_hyp
        else:
            torch = torch_module()

            index = torch.from_numpy(diagonal).to(device)
            matches[index, index] = torch.from_numpy(n_hyp).to(device=device, dtype=torch.float64)
    hyp_inverse = prepared.hyp.inverse
    ref_inverse = hyp_inverse if within else prepared.ref.inverse
    if device is None:
        n_all = np.maximum(n_hyp[:, None], n_ref[None, :])
        scores = np.zeros(n_all.shape, np.float64)
        np.divide(matches, n_all, out=scores, where=n_all > 0)
        return scores[hyp_inverse][:, ref_inverse]
    torch = torch_module()

    n_hyp_t = torch.from_numpy(n_hyp).to(device)
    n_ref_t = torch.from_numpy(n_ref).to(device)
    n_all = torch.maximum(n_hyp_t[:, None], n_ref_t[None, :])
    scores = torch.where(n_all > 0, matches / n_all.clamp(min=1).to(torch.float64), 0.0)
    hyp_index = torch.from_numpy(hyp_inverse).to(device)
    ref_index = torch.from_numpy(ref_inverse).to(device)
    return scores.index_select(0, hyp_index).index_select(1, ref_index)


# -- public -----------------------------------------------------------------------------


def pairwise_gleu(
    hypotheses: Any,
    references: Any = None,
    *,
    scorer: GLEU | None = None,
    pad_id: int | None = None,
    hypothesis_lengths: Any = None,
    reference_lengths: Any = None,
    **settings: Any,
) -> np.ndarray | torch.Tensor:
    """Sentence GLEU of every hypothesis against every reference: an ``N x M`` matrix.

    Entry ``[i, j]`` equals nltk's ``sentence_gleu([references[j]], hypotheses[i],
    min_len, max_len)`` on the same tokens, to the last bit.

    Args:
        hypotheses: ``N`` texts (tokenized by the scorer), ``N`` token sequences
            (lists of str, of int, or any hashable tokens), or a 2-D integer tensor
            ``[N, L]`` of padded ids on any device.
        references: ``M`` of the same kind (a tensor may have another padded length), or
            None (default) for all pairs within ``hypotheses`` (``M = N``).
        scorer: The settings, a :class:`~google_bleu.GLEU` (default ``GLEU()``): its orders,
            and for texts its tokenizer and case (token sequences and ids take only orders).
        pad_id: For ids: every id equal to it is removed before counting; any other id,
            ``0`` included, is a real token (as :func:`google_bleu.batch_sentence_gleu`).
        hypothesis_lengths: For a tensor of hypotheses, ``[N]`` lengths: only the first
            ``length`` ids of a row count.
        reference_lengths: The same for a tensor of references.
        **settings: Or the settings as keywords (``tokenizer=``, ``lowercase=``,
            ``min_len=``, ``max_len=``), instead of ``scorer``.

    Returns:
        float64 ``[N, M]``: a numpy array for texts and token sequences, a torch tensor
        on the ids' device for tensors. 0.0 where neither sentence has an n-gram of the
        orders; with ``references=None`` the diagonal is 1.0 (0.0 for such a sentence).

    Raises:
        TypeError: A wrong kind of input (a bare string, mixed texts and tokens, sides of
            different kinds, unhashable tokens, non-integer ids).
        ValueError: Bad orders, shapes or lengths, options that do not apply to the input.

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
    prepared = _prepare(hypotheses, references, scorer, pad_id, hypothesis_lengths, reference_lengths)
    return _scores(prepared, scorer.min_len, scorer.max_len)


def _aggregate_scores(prepared: _Prepared, w: np.ndarray, exclude: bool, min_len: int, max_len: int) -> np.ndarray:
    """Per candidate, its GLEU against the pseudo-references' expected n-gram counts.

    Reference aggregation (DeNero et al. 2009, "Fast consensus decoding over translation
    forests"; Vamvas & Sennrich 2024, "Linear-time minimum Bayes risk decoding with
    reference aggregation"): the M pseudo-references become one bag of n-grams whose
    count of n-gram g is the weighted mean ``r_g`` of their counts, and whose n-gram total
    is the weighted mean of theirs; candidate i scores ``sum_g min(h_ig, r_g) / max(n_hyp_i,
    n_ref)``, one pass over the candidates' and the pseudo-references' n-grams (N + M)
    instead of N x M sentence scores. With ``exclude`` (the candidates are their own
    pseudo-references), candidate i's mean leaves out its own index. Float64 means: an
    approximation of the expected GLEU, not nltk's integers.
    """
    within = prepared.ref is None
    hyp = prepared.hyp
    ref = hyp if within else prepared.ref
    n_left = hyp.lengths.size
    lengths = hyp.lengths if within else np.concatenate((hyp.lengths, ref.lengths))
    n_sentences = lengths.size
    n_pos = int(lengths.sum())
    n_inputs = hyp.inverse.size
    total = math.fsum(w.tolist())
    # Each input's weight on its distinct sentence, and per input what its mean leaves out.
    own = w if exclude else np.zeros(n_inputs)
    ref_weight = np.bincount(ref.inverse, weights=w, minlength=ref.lengths.size)
    denominator = total - own  # 0: every other pseudo-reference has weight 0
    n_hyp = ngram_counts(hyp.lengths, min_len, max_len)
    ref_totals = ngram_counts(ref.lengths, min_len, max_len).astype(np.float64)
    own_total = own * np.take(ref_totals, hyp.inverse) if exclude else 0.0
    mean_total = (float(ref_weight @ ref_totals) - own_total) / np.where(denominator > 0, denominator, 1.0)
    matches = np.zeros(n_inputs)
    # Per distinct candidate sentence, its inputs (to spread its n-grams over them).
    by_sentence = np.argsort(hyp.inverse, kind="stable")
    inputs_of = np.bincount(hyp.inverse, minlength=n_left)
    if n_pos:
        group = _groups(prepared, lengths)
        sentence_of = np.repeat(np.arange(n_sentences, dtype=np.int64), lengths)
        ref_offset = 0 if within else n_left
        same_sentence = sentence_of[1:] == sentence_of[:-1]
        position = np.arange(n_pos, dtype=np.int64)
        n = n_pos  # entries, and the bound of their group labels
        for order in range(1, max_len + 1):
            sentence = np.take(sentence_of, position)
            # Weighted sum of the pseudo-references' counts of each n-gram (group).
            on_ref = sentence >= ref_offset
            ref_sum = np.bincount(
                group[on_ref], weights=np.take(ref_weight, sentence[on_ref] - ref_offset), minlength=n
            )
            # Count each (n-gram, candidate sentence) pair once.
            on_hyp = np.flatnonzero(sentence < n_left)
            hyp_group = np.take(group, on_hyp)
            hyp_sentence = np.take(sentence, on_hyp)
            _, pair_count = pair_counts(NUMPY, hyp_group, hyp_sentence, n_left)
            found = np.flatnonzero(pair_count)
            pair_group = np.take(hyp_group, found)
            pair_sentence = np.take(hyp_sentence, found)
            h = pair_count[found].astype(np.float64)
            if order >= min_len:
                # Every input of the pair's sentence gets the pair (its own leave-one-out mean).
                n_each = np.take(inputs_of, pair_sentence)
                which = np.repeat(np.arange(found.size), n_each)
                first = np.cumsum(inputs_of) - inputs_of
                step = np.arange(which.size) - np.repeat(np.cumsum(n_each) - n_each, n_each)
                target = np.take(by_sentence, np.take(first, np.take(pair_sentence, which)) + step)
                h_each = np.take(h, which)
                kept = np.take(ref_sum, np.take(pair_group, which)) - np.take(own, target) * h_each
                mean = kept / np.take(np.where(denominator > 0, denominator, 1.0), target)
                matches += np.bincount(target, weights=np.minimum(h_each, mean), minlength=n_inputs)
            if order == max_len:
                break
            # Only an n-gram in some candidate and some weighted pseudo-reference can extend.
            live = np.zeros(n, bool)
            live[pair_group] = True
            live &= ref_sum > 0
            group, position, kept = extend(NUMPY, group, position, live, n, same_sentence if order == 1 else None)
            n = kept.size
            if n == 0:
                break
    n_all = np.maximum(np.take(n_hyp, hyp.inverse).astype(np.float64), mean_total)
    expected = np.zeros(n_inputs)
    np.divide(matches, n_all, out=expected, where=(n_all > 0) & (denominator > 0))
    return expected


class MbrResult(NamedTuple):
    """What :func:`mbr_select` chose, and why."""

    #: Position of the chosen candidate in ``candidates``.
    index: int
    #: The chosen candidate, as given (a text, a token sequence or a tensor row).
    candidate: Any
    #: float64 ``[N]``: each candidate's expected GLEU against the pseudo-references.
    expected_scores: np.ndarray


def _check_weights(weights: Any, n: int, name: str) -> np.ndarray:
    if is_tensor(weights):
        weights = weights.detach().cpu().numpy()
    if isinstance(weights, (str, bytes)):
        raise TypeError(f"weights must be a sequence of numbers, got {describe(weights)}")
    try:
        array = np.asarray(weights)
    except (TypeError, ValueError):
        raise TypeError(f"weights must be a sequence of numbers, got {describe(weights)}") from None
    if array.ndim != 1:
        raise ValueError(f"weights must be 1-D (one per {name[:-1]}), got shape {list(array.shape)}")
    if array.size and array.dtype.kind not in "iuf":
        raise TypeError(f"weights must be real numbers, got {array.dtype} values such as {array[0]!r}")
    if array.size != n:
        raise ValueError(f"got {array.size} weights but {n} {name}")
    array = array.astype(np.float64)
    if not np.isfinite(array).all():
        raise ValueError(f"weights must be finite, got {float(array[~np.isfinite(array)][0])!r}")
    if (array < 0).any():
        raise ValueError(f"weights must be non-negative, got {float(array[array < 0][0])!r}")
    if not (array > 0).any():
        raise ValueError("weights must not all be zero")
    # Only ratios of weights matter: scaled by a power of two so that the largest is in
    # [0.5, 1), exactly, a choice does not change when every weight is scaled by one
    # constant, tiny weights (probabilities of long samples, subnormal ones included) keep
    # their precision, and huge finite ones cannot overflow the sums.
    return np.ldexp(array, -int(np.frexp(array.max())[1]))


def mbr_select(
    candidates: Any,
    pseudo_references: Any = None,
    *,
    weights: Any = None,
    include_self: bool = False,
    aggregate: bool = False,
    scorer: GLEU | None = None,
    pad_id: int | None = None,
    candidate_lengths: Any = None,
    reference_lengths: Any = None,
    **settings: Any,
) -> MbrResult:
    """Minimum Bayes risk selection: the candidate with the highest expected GLEU.

    The expected score of candidate ``i`` is the weighted mean of its sentence GLEU
    against the pseudo-references ``j`` (:func:`pairwise_gleu`)::

        fsum(w[j] * gleu[i, j] for j) / fsum(w[j] for j)

    computed with ``math.fsum`` (correctly rounded, whatever the order). With
    ``pseudo_references=None`` the pseudo-references are the candidates themselves and,
    by the usual MBR convention, a candidate is not counted against itself (``j != i``;
    the same text at another index still counts); ``include_self=True`` counts it too.
    A candidate whose pseudo-references all have weight 0 scores 0.0. The first
    candidate with the highest expected score wins a tie.

    Args:
        candidates: ``N >= 1`` candidates: texts, token sequences or a 2-D id tensor
            (as the hypotheses of :func:`pairwise_gleu`).
        pseudo_references: ``M`` pseudo-references of the same kind, or None (default):
            the candidates.
        weights: ``M`` (or ``N``) non-negative finite weights of the pseudo-references,
            not all zero (for example sampling probabilities); default: equal weights.
        include_self: With ``pseudo_references=None``, count a candidate against itself.
        aggregate: Reference aggregation, an approximation of the above: each candidate is
            scored once against the weighted mean n-gram counts of the pseudo-references
            (``sum_g min(h_g, mean r_g) / max(n_hyp, mean n_ref)``, as DeNero et al. 2009
            and Vamvas & Sennrich 2024 do for BLEU and chrF), so the cost grows with
            N + M instead of N x M. It usually picks the candidate exact MBR picks, not
            always (``docs/mbr.md`` measures how often); its scores are not sentence GLEU
            means. Without ``include_self`` a candidate's mean leaves out its own index.
        scorer: As for :func:`pairwise_gleu`; so are ``pad_id`` and ``**settings``.
        candidate_lengths: For a tensor of candidates, ``[N]`` lengths.
        reference_lengths: For a tensor of pseudo-references, ``[M]`` lengths.

    Returns:
        An :class:`MbrResult` ``(index, candidate, expected_scores)``; ``expected_scores``
        is a float64 numpy array whatever the input.

    Raises:
        TypeError, ValueError: As :func:`pairwise_gleu`; also for no candidates, bad
            weights, or ``include_self`` with separate pseudo-references.

    Example:
        >>> candidates = [["a", "b", "c"], ["a", "b"], ["x", "y"]]
        >>> mbr_select(candidates).index
        0
        >>> mbr_select(candidates, weights=[0, 1, 1]).expected_scores.tolist()
        [0.25, 0.0, 0.0]
        >>> approximate = mbr_select(candidates, aggregate=True)  # N + M, and not always the same pick
        >>> approximate.index, approximate.expected_scores.round(4).tolist()
        (1, [0.25, 0.3333, 0.0])
        >>> mbr_select(candidates, weights=[1, 1, -1])
        Traceback (most recent call last):
        ...
        ValueError: weights must be non-negative, got -1.0
    """
    check_bool(include_self, "include_self")
    check_bool(aggregate, "aggregate")
    scorer = scorer_from_options(scorer, settings, caller="mbr_select")
    min_len, max_len = scorer.min_len, scorer.max_len
    prepared = _prepare(
        candidates,
        pseudo_references,
        scorer,
        pad_id,
        candidate_lengths,
        reference_lengths,
        ("candidates", "pseudo_references", "candidate_lengths", "reference_lengths"),
    )
    n_candidates = prepared.hyp.inverse.size
    if n_candidates == 0:
        raise ValueError("candidates must hold at least one candidate, got none")
    within = pseudo_references is None
    if include_self and not within:
        raise ValueError("include_self applies when the candidates are their own pseudo-references")
    n_refs = n_candidates if within else prepared.ref.inverse.size
    if n_refs == 0:
        raise ValueError("pseudo_references must hold at least one pseudo-reference, got none")
    ref_name = "candidates" if within else "pseudo_references"
    w = np.ones(n_refs) if weights is None else _check_weights(weights, n_refs, ref_name)
    if aggregate:
        expected = _aggregate_scores(prepared, w, within and not include_self, min_len, max_len)
        index = int(np.argmax(expected))
        return MbrResult(index, candidates[index], expected)
    scores = _scores(prepared, min_len, max_len)
    if prepared.device is not None:
        scores = scores.cpu().numpy()
    products = scores * w[None, :]  # each product rounded once, as Python's float *
    exclude = within and not include_self
    if exclude:
        np.fill_diagonal(products, 0.0)
    numerators = np.array(list(map(math.fsum, products.tolist())), np.float64)
    total = sum(map(Fraction, w.tolist()))
    if exclude:
        denominators = np.array([float(total - Fraction(x)) for x in w.tolist()], np.float64)
    else:
        denominators = np.full(n_candidates, float(total))
    expected = np.zeros(n_candidates, np.float64)
    np.divide(numerators, denominators, out=expected, where=denominators > 0)
    index = int(np.argmax(expected))
    return MbrResult(index, candidates[index], expected)
