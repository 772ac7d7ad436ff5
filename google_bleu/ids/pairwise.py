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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..engine import NUMPY, chunks, extend, ngram_counts, pair_counts
from ..keys import LineStore, first_positions, group_in_segments, token_groups
from ..scorer import GLEU, scorer_from_options
from ..tokenizers import Tokenizer
from ..validation import check_bool, describe, is_tensor
from .batched import flat_ids
from .checks import check_id_tensor, check_lengths, check_pad_id, id_array, token_orders, torch_module

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


# -- exact weighted means ----------------------------------------------------------------
#
# Every weighted mean of MBR is computed exactly and rounded once. The weights become
# integers with the same ratios (:func:`_integer_weights`), the sentence scores integer
# multiples of one power of two, the n-gram counts are integers already; the sums are then
# exact integers, held in float64 or int64 "limbs" of a few bits each (limb k of a number
# is worth ``2**(width * k)``), each limb small enough that no sum of them reaches 2**53
# (float64) or 2**63 (int64). Only the final quotient is a float: a Python ``int / int``,
# which rounds correctly. So no subtraction loses what it subtracts from (a leave-one-out
# mean beside one dominant weight), no product of a tiny weight underflows, and scaling
# every weight by one constant changes nothing.


def _integer_weights(w: np.ndarray) -> list[int]:
    """Integers in the same ratios as the float weights, exactly (``w[j] = W[j] * 2**e``)."""
    ratios = [weight.as_integer_ratio() for weight in w.tolist()]  # denominators: powers of two
    scale = max(denominator for _, denominator in ratios)
    integers = [numerator * (scale // denominator) for numerator, denominator in ratios]
    common = 0
    for value in integers:
        common |= value
    shift = (common & -common).bit_length() - 1  # the powers of two they all share
    return [value >> shift for value in integers]


def _limbs(values: Sequence[int], width: int, count: int) -> np.ndarray:
    """``[count, len(values)]`` float64: the non-negative ``values`` in limbs of ``width`` bits."""
    mask = (1 << width) - 1
    return np.array([[(value >> (width * k)) & mask for value in values] for k in range(count)], np.float64).reshape(
        count, len(values)
    )


def _carry(limbs: np.ndarray, width: int) -> np.ndarray:
    """The same numbers with every limb but the last in ``[0, 2**width)`` (the last keeps the
    sign); float64 operations on integers below 2**53, all exact."""
    out = limbs.copy()
    scale = float(1 << width)
    for k in range(len(out) - 1):
        carry = np.floor(out[k] / scale)
        out[k] -= carry * scale
        out[k + 1] += carry
    return out


def _value(limbs: Sequence[float], width: int) -> int:
    return sum(int(limb) << (width * k) for k, limb in enumerate(limbs))


def _weighted_means(scores: np.ndarray, weights: list[int], exclude: bool) -> np.ndarray:
    """Per row ``i`` of the ``N x M`` sentence scores, ``sum_j W[j] * scores[i, j] / sum_j W[j]``
    over ``j`` (``j != i`` with ``exclude``), exact and rounded once; 0.0 where the weights
    sum to 0."""
    n, m = scores.shape
    x = scores.astype(np.float64, copy=True)
    if exclude:
        np.fill_diagonal(x, 0.0)
    # Every score is a float in [0, 1], so an integer multiple of 2**-bits for the finest
    # of their last bits (a score m/n of integers below 2**63 needs at most 116).
    positive = x[x > 0]
    bits = 53 - int(np.frexp(positive)[1].min()) if positive.size else 0
    # Limbs of ``width`` bits: a product of two is below 2**(2 * width) and M of them sum
    # below 2**53, so one float64 matrix product (BLAS, any order) sums them exactly.
    width = max(1, (52 - max(m, 1).bit_length()) // 2)
    n_score_limbs = max(1, -(-bits // width))
    weight_limbs = _limbs(weights, width, max(1, -(-max(weights).bit_length() // width))).T  # [M, limbs]
    # sums[l][i, k] = sum_j (limb l of score ij, from the top) * (limb k of W[j])
    sums = []
    for _ in range(n_score_limbs):
        x *= float(1 << width)
        limb = np.floor(x)
        x -= limb
        sums.append((limb @ weight_limbs).tolist())
    total = sum(weights)
    expected = np.zeros(n, np.float64)
    for i in range(n):
        denominator = total - weights[i] if exclude else total
        if denominator <= 0:
            continue
        numerator = 0
        for row in sums:
            numerator = (numerator << width) + sum(int(value) << (width * k) for k, value in enumerate(row[i]))
        expected[i] = numerator / (denominator << (width * n_score_limbs))
    return expected


def _aggregate_scores(prepared: _Prepared, weights: list[int], exclude: bool, min_len: int, max_len: int) -> np.ndarray:
    """Per candidate, its GLEU against the pseudo-references' expected n-gram counts.

    Reference aggregation (DeNero et al. 2009, "Fast consensus decoding over translation
    forests"; Vamvas & Sennrich 2024, "Linear-time minimum Bayes risk decoding with
    reference aggregation"): the M pseudo-references become one bag of n-grams whose
    count of n-gram g is the weighted mean ``r_g`` of their counts, and whose n-gram total
    is the weighted mean of theirs; candidate i scores ``sum_g min(h_ig, r_g) / max(n_hyp_i,
    n_ref)``, one pass over the candidates' and the pseudo-references' n-grams (N + M)
    instead of N x M sentence scores. With ``exclude`` (the candidates are their own
    pseudo-references), candidate i's mean leaves out its own index.

    Exact: with integer weights ``W`` and ``D_i`` the sum of candidate i's, ``min(h, r_g)``
    is ``h`` when ``sum_j W_j c_jg >= h * D_i`` and that sum over ``D_i`` otherwise, so the
    score is one quotient of integers, ``(D_i * sum of the h + sum of the weighted
    counts) / max(n_hyp_i * D_i, sum_j W_j n_ref_j)``, rounded once. The weighted counts
    are summed per n-gram in float64 limbs (see above), the leave-one-out subtraction
    included, exactly.
    """
    within = prepared.ref is None
    hyp = prepared.hyp
    ref = hyp if within else prepared.ref
    n_left = hyp.lengths.size
    lengths = hyp.lengths if within else np.concatenate((hyp.lengths, ref.lengths))
    n_sentences = lengths.size
    n_pos = int(lengths.sum())
    n_inputs = hyp.inverse.size
    # Integer weights per distinct pseudo-reference sentence, and what each input leaves out.
    sentence_weights = [0] * ref.lengths.size
    for j, sentence in enumerate(ref.inverse.tolist()):
        sentence_weights[sentence] += weights[j]
    own = weights if exclude else [0] * n_inputs
    total = sum(weights)
    denominators = [total - value for value in own]
    n_hyp = ngram_counts(hyp.lengths, min_len, max_len).tolist()
    ref_totals = ngram_counts(ref.lengths, min_len, max_len).tolist()
    weighted_total = sum(weight * count for weight, count in zip(sentence_weights, ref_totals))
    hyp_sentence = hyp.inverse.tolist()
    # With exclude the candidates are the pseudo-references: candidate i's sentence is its own.
    mean_totals = [weighted_total - (own[i] * ref_totals[hyp_sentence[i]] if exclude else 0) for i in range(n_inputs)]
    # Limbs: every float64 sum below is of integers under 2**50 (a carry may add 2**51).
    width = max(1, 50 - max(n_pos, 1).bit_length())
    bits = max(total, 1).bit_length() + max(n_pos, 1).bit_length() + 1
    count = -(-bits // width)
    weight_limbs = _limbs(sentence_weights, width, count)  # [count, sentences]
    own_limbs = _limbs(own, width, count)  # [count, inputs]
    denominator_limbs = _limbs([max(value, 0) for value in denominators], width, count)
    capped_h = np.zeros(n_inputs)
    kept_sums = np.zeros((count, n_inputs))
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
            # Weighted sum of the pseudo-references' counts of each n-gram (group), per limb.
            on_ref = sentence >= ref_offset
            ref_group = group[on_ref]
            ref_sentence = sentence[on_ref] - ref_offset
            ref_sum = np.stack(
                [np.bincount(ref_group, weights=np.take(limb, ref_sentence), minlength=n) for limb in weight_limbs]
            )
            # Count each (n-gram, candidate sentence) pair once.
            on_hyp = np.flatnonzero(sentence < n_left)
            hyp_group = np.take(group, on_hyp)
            pair_sentence_all = np.take(sentence, on_hyp)
            _, pair_count = pair_counts(NUMPY, hyp_group, pair_sentence_all, n_left)
            found = np.flatnonzero(pair_count)
            pair_group = np.take(hyp_group, found)
            pair_sentence = np.take(pair_sentence_all, found)
            h = pair_count[found].astype(np.float64)
            if order >= min_len:
                # Every input of the pair's sentence gets the pair (its own leave-one-out mean).
                n_each = np.take(inputs_of, pair_sentence)
                which = np.repeat(np.arange(found.size), n_each)
                first = np.cumsum(inputs_of) - inputs_of
                step = np.arange(which.size) - np.repeat(np.cumsum(n_each) - n_each, n_each)
                target = np.take(by_sentence, np.take(first, np.take(pair_sentence, which)) + step)
                h_each = np.take(h, which)
                # kept = sum over the other pseudo-references of weight x count, exactly.
                kept = np.take(ref_sum, np.take(pair_group, which), axis=1) - np.take(own_limbs, target, axis=1) * h_each
                # min(h, kept / D) is h where kept - h * D >= 0 (the sign of the top limb, once carried).
                difference = _carry(kept - np.take(denominator_limbs, target, axis=1) * h_each, width)
                capped = difference[-1] >= 0
                capped_h += np.bincount(target[capped], weights=h_each[capped], minlength=n_inputs)
                kept = _carry(kept[:, ~capped], width)
                for k in range(count):
                    kept_sums[k] += np.bincount(target[~capped], weights=kept[k], minlength=n_inputs)
            if order == max_len:
                break
            # Only an n-gram in some candidate and some weighted pseudo-reference can extend.
            live = np.zeros(n, bool)
            live[pair_group] = True
            live &= ref_sum.any(axis=0)
            group, position, survivors = extend(NUMPY, group, position, live, n, same_sentence if order == 1 else None)
            n = survivors.size
            if n == 0:
                break
    expected = np.zeros(n_inputs)
    if count == 1 and (max(total, 1) * max(n_pos, 1)) << 2 < 1 << 53:
        # Every number below fits float64 exactly: one correctly rounded division each.
        denominator = np.array(denominators, np.float64)
        n_all = np.maximum(np.take(np.array(n_hyp, np.float64), hyp.inverse) * denominator, np.array(mean_totals, np.float64))
        np.divide(capped_h * denominator + kept_sums[0], n_all, out=expected, where=(denominator > 0) & (n_all > 0))
        return expected
    for i in range(n_inputs):
        denominator = denominators[i]
        n_all = max(n_hyp[hyp_sentence[i]] * denominator, mean_totals[i])
        if denominator > 0 and n_all > 0:
            expected[i] = (int(capped_h[i]) * denominator + _value(kept_sums[:, i], width)) / n_all
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
    return array


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

        sum(w[j] * gleu[i, j] for j) / sum(w[j] for j)

    computed exactly and rounded once (whatever the order, however the weights differ in
    size; scaling every weight by one constant changes nothing). With
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
            means (computed exactly, rounded once). Without ``include_self`` a candidate's mean leaves out its own index.
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
    # Only ratios of weights matter: as integers in the same ratios, exactly, every mean is
    # computed in integers and rounded once (see _weighted_means).
    w = [1] * n_refs if weights is None else _integer_weights(_check_weights(weights, n_refs, ref_name))
    exclude = within and not include_self
    if aggregate:
        expected = _aggregate_scores(prepared, w, exclude, min_len, max_len)
    else:
        scores = _scores(prepared, min_len, max_len)
        if prepared.device is not None:
            scores = scores.cpu().numpy()
        expected = _weighted_means(scores, w, exclude)
    index = int(np.argmax(expected))
    return MbrResult(index, candidates[index], expected)
