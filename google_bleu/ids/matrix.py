"""The exact clipped-match matrix of all pairs of sentences (docs/mbr.md, "How it is exact and fast")."""

from __future__ import annotations

import numpy as np

from ..counting import chunks, pair_counts, walk

#: Elements of the dense 0/1 blocks of both sides together (float64: 32 MiB).
BLOCK_ELEMENTS = 1 << 22
#: A column goes to the dense product when its pairs number more than 1/DENSE_RATIO of all pairs: a BLAS
#: multiply-add costs about a hundredth of adding one pair with ``bincount``.
DENSE_RATIO = 128
#: Most pairs of light columns expanded at a time (int64 temporaries of 32 MiB); more go to the dense product.
PAIR_CHUNK = 1 << 22


def shared_columns(
    group: np.ndarray, lengths: np.ndarray, n_left: int, within: bool, min_len: int, max_len: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """The 0/1 entries ``(sentence, column)`` and the number of columns: sentence s has a 1 in the column of
    (n-gram, t) when it holds the n-gram at least t times; only columns both sides share are made."""
    if group.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    entry_sentence, entry_feature, entry_count, n_features = _shared_ngrams(
        group, lengths, n_left, within, min_len, max_len
    )
    if not entry_sentence:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    sentence = np.concatenate(entry_sentence)
    feature = np.concatenate(entry_feature)
    count = np.concatenate(entry_count)
    # Threshold t: the entries holding their n-gram at least t times; a column per n-gram still shared.
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


def _shared_ngrams(
    group: np.ndarray, lengths: np.ndarray, n_left: int, within: bool, min_len: int, max_len: int
) -> tuple[list, list, list, int]:
    """Per order, the (sentence, n-gram id, count) of n-grams both sides share, and the number of n-gram ids."""
    n_sentences = lengths.size
    sentence_of = np.repeat(np.arange(n_sentences, dtype=np.int64), lengths)
    entry_sentence, entry_feature, entry_count = [], [], []
    n_features = 0
    for step in walk(group, sentence_of[1:] == sentence_of[:-1], min_len, max_len):
        group, n = step.group, step.n
        sentence = np.take(sentence_of, step.position)
        _, pair_count = pair_counts(group, sentence, n_sentences)
        found = np.flatnonzero(pair_count)  # one representative per (n-gram, sentence)
        found_group = np.take(group, found)
        found_sentence = np.take(sentence, found)
        # Only an n-gram that both sides share can extend to a shared (n+1)-gram.
        live = step.live = _shared(found_group, found_sentence, n_left, within, n)
        if step.counted:
            keep = np.take(live, found_group)
            feature = np.cumsum(live)
            feature -= 1
            entry_sentence.append(found_sentence[keep])
            entry_feature.append(np.take(feature, found_group[keep]) + n_features)
            entry_count.append(pair_count[found[keep]])
            n_features += int(np.count_nonzero(live))
    return entry_sentence, entry_feature, entry_count, n_features


def _shared(item: np.ndarray, sentence: np.ndarray, n_left: int, within: bool, size: int) -> np.ndarray:
    """Per item id (``0..size-1``), whether both sides hold it (each (item, sentence) pair given once)."""
    if within:
        return np.bincount(item, minlength=size) >= 2
    left = sentence < n_left
    shared = np.bincount(item[left], minlength=size) > 0
    shared &= np.bincount(item[~left], minlength=size) > 0
    return shared


def match_matrix(rows: np.ndarray, columns: np.ndarray, n_columns: int, n_left: int, n_right: int, within: bool):
    """float64 ``H @ R.T`` of the 0/1 entries, exact: a column few sentences share adds 1 to each of its pairs,
    the others go through float64 products of dense 0/1 blocks (integer sums far below 2**53)."""
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
        product = _dense_matches(dense_rows, dense_columns, int(dense_id[-1]) + 1, n_side, n_left, within)
    else:
        product = None
    matches = matches.astype(np.float64)
    return matches if product is None else matches.__iadd__(product)


def _sparse_matches(
    left_rows: np.ndarray, left_columns: np.ndarray, right_rows: np.ndarray, k_right: np.ndarray, heavy: np.ndarray,
    n_left: int, n_right: int,
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


def _dense_matches(rows: np.ndarray, columns: np.ndarray, n_columns: int, n_side: int, n_left: int, within: bool):
    """``H @ R.T`` of 0/1 entries (sorted by column) in float64 column blocks."""
    block = max(1, BLOCK_ELEMENTS // max(n_side, 1))
    bounds = np.searchsorted(columns, np.arange(0, n_columns + block, block)).tolist()
    matches = np.zeros((n_left, n_side if within else n_side - n_left), np.float64)
    for start, (low, high) in enumerate(zip(bounds[:-1], bounds[1:])):
        if low == high:
            continue
        dense = np.zeros((n_side, min(block, n_columns - start * block)), np.float64)
        dense[rows[low:high], columns[low:high] - start * block] = 1.0
        matches += dense @ dense.T if within else dense[:n_left] @ dense[n_left:].T
    return matches
