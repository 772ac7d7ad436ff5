"""The counting engine: per-segment GLEU statistics for token sequences, vectorised.

How it works (integer numpy work, no sort; every hash is checked against exact values):

1. A chunk of segments is laid out as one token array: the hypotheses of its
   segments, then their references (segment by segment).
2. Grouping: each position gets the position of a representative occurrence of the same
   n-gram in the same segment (:func:`_group`, a one-pass hash table whose every hit is
   verified, so equal keys and only they share a representative).
   Order 1 keys a token by (segment, token). ``str`` tokens are read from their UTF-8
   bytes, joined into one buffer at C speed (see :func:`_str_token_words`); other
   hashable tokens get ids from a dict, so any token works and equal tokens (as Python
   compares them) match. Order n+1: a position p whose n-gram and whose neighbour's
   n-gram (at p+1, same sentence) are both "live" gets the exact key (group of p, group
   of p+1), which identifies its (n+1)-gram within the segment.
3. Counting: ``np.bincount`` of the groups gives each n-gram's count in the hypothesis;
   grouping the reference occurrences once more by (n-gram, reference sentence) gives
   each reference's count (with one reference per segment, the n-gram alone does).
   Clipped matches of a reference are ``min(reference count, hypothesis count)`` summed
   over its n-grams.
4. A group is live when it occurs in the hypothesis and in some reference; only live
   n-grams can extend to longer matches, so later orders see ever fewer positions.

N-gram totals per sentence follow from lengths alone. The reference kept for a
segment is the first with the highest ``n_match / max(n_hyp, n_ref)``, as nltk's
``max`` over ``(tp, n_all)`` pairs keeps it.

No step sorts: numpy's sort is fast where its SIMD quicksort suits the processor and
several times slower where it does not (AVX-512 on AMD Zen 4), while scatters, gathers
and ``bincount`` cost about the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain, compress, count

import numpy as np

#: Tokens per chunk (all sides together). Small enough that a chunk's hash table and
#: temporaries stay near the CPU caches (2**15 to 2**18 measured alike here) and extra
#: memory stays bounded whatever the corpus size; a single segment longer than this is
#: one chunk of its own.
CHUNK_TOKENS = 1 << 16
#: Most tokens of one segment (hypothesis and references): a segment is never split, so
#: this bounds a chunk and with it the extra memory.
_MAX_CHUNK_TOKENS = 1 << 21
#: Bytes of a token that its first word holds exactly; longer tokens are hashed.
_WORD = 8
#: ``_WORD_MASKS[k]`` keeps the low ``k`` bytes of a little-endian word (k = 0..8).
_WORD_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(_WORD)] + [(1 << 64) - 1], np.uint64)
#: Odd 64-bit multipliers for hashing (Fibonacci hashing, word mixing).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)
_SPACE = ord(" ")


def ngram_counts(lengths: np.ndarray, min_len: int, max_len: int) -> np.ndarray:
    """Number of n-grams of orders ``min_len..max_len`` in sequences of these lengths.

    Example:
        >>> ngram_counts(np.array([0, 1, 4, 6]), 1, 4).tolist()
        [0, 1, 10, 18]
    """
    lengths = np.asarray(lengths, np.int64)
    top = np.minimum(lengths, max_len)
    terms = np.maximum(top - min_len + 1, 0)
    # Arithmetic series from (L - min_len + 1) down to (L - top + 1).
    return (terms * (2 * lengths - min_len - top + 2)) // 2


def _group(hashed: np.ndarray, exact: tuple[np.ndarray, ...]) -> np.ndarray:
    """For each element, the index of an element equal to it in every array of ``exact``.

    Equal elements get the same index (their group's representative), unequal ones never do.
    ``hashed`` holds ``uint64`` hashes of the exact values (equal values, equal hashes;
    only the top bits are used). One pass of a hash table with no probing: each element
    writes its index into its slot and reads back the slot's winner, which represents it
    when its exact values equal the winner's. Elements that lost their slot to another value
    take another round with rehashed slots, among themselves; each round settles at least
    every slot's winner, so the rounds end, and how the slots fall changes no result.
    """
    n = hashed.size
    bits = n.bit_length() + 1  # at least twice as many slots as elements
    shift = np.uint64(64 - bits)
    table = np.empty(1 << bits, np.int64)  # only slots written in a round are read back in it
    slot = (hashed >> shift).view(np.int64)
    table[slot] = np.arange(n)
    rep = np.take(table, slot)
    lost = np.take(exact[0], rep) != exact[0]
    for values in exact[1:]:
        lost |= np.take(values, rep) != values
    todo = np.flatnonzero(lost)
    rehashed = hashed
    while todo.size:
        rehashed = np.take(rehashed, todo) if rehashed.size != todo.size else rehashed
        rehashed = rehashed ^ (rehashed >> np.uint64(29))
        rehashed *= _MIX
        slot = (rehashed >> shift).view(np.int64)
        table[slot] = todo
        winner = np.take(table, slot)
        rep[todo] = winner
        lost = np.zeros(todo.size, bool)
        for values in exact:
            lost |= np.take(values, winner) != np.take(values, todo)
        keep = np.flatnonzero(lost)
        todo = np.take(todo, keep)
        rehashed = np.take(rehashed, keep)
    return rep


def _group_keys(keys: np.ndarray) -> np.ndarray:
    """:func:`_group` for exact non-negative ``int64`` keys (Fibonacci-hashed)."""
    return _group(keys.view(np.uint64) * _GOLDEN, (keys,))


def _group_in_segments(values: np.ndarray, segment_of: np.ndarray, segment_hash: np.ndarray) -> np.ndarray:
    """:func:`_group` for exact ``uint64`` values that are equal only within one segment."""
    hashed = values ^ segment_hash
    hashed *= _GOLDEN
    return _group(hashed, (values, segment_of))


def _token_groups(sentences: list, lengths: np.ndarray, spaced: bool, segment_of: np.ndarray) -> np.ndarray:
    """Per token position, a representative position holding the same token in the same segment.

    ``sentences`` are token sequences, or with ``spaced`` texts whose tokens are separated
    by ASCII spaces (see :func:`spaced_segment_rows`); ``lengths`` are their token counts,
    ``segment_of`` each position's segment. ``str`` tokens are read from their UTF-8 bytes
    (:func:`_str_token_words`); other tokens, and chunks that path declines, get exact ids
    from a dict, so any hashable token works and equal tokens (as Python compares them) match.
    """
    n_tokens = segment_of.size
    segment_hash = segment_of.astype(np.uint64)
    segment_hash *= _MIX
    non_empty = compress(sentences, lengths.tolist())
    try:
        text = "\0".join(non_empty) if spaced else "\0".join(map("\0".join, non_empty))
    except TypeError:  # some token is not a str
        words = None
    else:
        words = _str_token_words(text, spaced, n_tokens)
    if words is not None:
        words, check = words
        rep = _group_in_segments(words, segment_of, segment_hash)
        if check(rep):
            return rep
    tokens = chain.from_iterable(map(str.split, sentences) if spaced else sentences)
    return _group_in_segments(_token_ids(tokens, n_tokens).view(np.uint64), segment_of, segment_hash)


def _token_ids(tokens: Iterable, n_tokens: int) -> np.ndarray:
    # One pass: a token's id is the position of its first occurrence (setdefault keeps it).
    vocabulary: dict = {}
    try:
        return np.fromiter(map(vocabulary.setdefault, tokens, count()), np.int64, n_tokens)
    except TypeError as error:
        raise TypeError(f"tokens must be hashable (e.g. str or int): {error}") from None


def _str_token_words(text: str, spaced: bool, n_tokens: int):
    """Per token of ``text``, a 64-bit word standing for its bytes, and a check of groups.

    ``text`` holds the (non-empty) sentences joined with NUL: their tokens joined with NUL
    too, or with ``spaced`` separated by runs of ASCII spaces. A token of at most 8 bytes
    is its own word (zero-padded: exact, as no token here holds NUL, so its first byte is
    not zero unless the token is empty); a longer one gets a hash of its length and words
    whose low byte is zero and which is not zero, so it never equals a short token's word.
    Returns ``(words, check)`` where ``check(rep)`` says whether every long token has the
    bytes of its representative (a hash collision makes it False, and the caller counts
    with exact ids instead), or None when a token holds NUL. ``str`` subclasses are read
    (and so compared) by their text.
    """
    data = text.encode("utf-8", "surrogatepass")  # injective, lone surrogates included
    size = len(data)
    buffer = np.zeros((size + 3 * _WORD) // _WORD * _WORD, np.uint8)  # whole words past the end
    buffer[:size] = np.frombuffer(data, np.uint8)
    aligned = buffer.view("<u8").astype(np.uint64, copy=False)  # a view on little-endian hosts
    if spaced:
        starts, lengths = _spaced_tokens(buffer[: size + 1])
        if starts.size != n_tokens:
            return None  # some token holds a NUL character
    else:
        ends = np.flatnonzero(buffer[:size] == 0)
        if ends.size != n_tokens - 1:
            return None  # some token holds a NUL character
        starts = np.empty(n_tokens, np.int64)
        starts[0] = 0
        starts[1:] = ends
        starts[1:] += 1
        lengths = np.empty(n_tokens, np.int64)
        lengths[:-1] = ends
        lengths[-1] = size
        lengths -= starts
    words = _words_at(aligned, starts, lengths)
    long = np.flatnonzero(lengths > _WORD)
    if long.size:
        hashed = _hash_long(aligned, np.take(starts, long), np.take(lengths, long), np.take(words, long))
        hashed &= ~np.uint64(0xFF)
        hashed |= np.uint64(0x100)
        words[long] = hashed

    def check(rep: np.ndarray) -> bool:
        other = np.take(rep, long)
        moved = other != long
        return _tokens_equal(aligned, starts, lengths, long[moved], other[moved])

    return words, check


def _spaced_tokens(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and lengths of the runs of bytes other than space and NUL (``codes`` ends with NUL)."""
    gap = codes == _SPACE
    gap |= codes == 0
    edge = gap[1:] != gap[:-1]  # a token starts after a gap and ends before one
    bounds = np.flatnonzero(edge)
    bounds += 1
    if not gap[0]:
        bounds = np.concatenate(([0], bounds))
    starts = bounds[0::2]
    return starts, bounds[1::2] - starts


def _words_at(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The bytes ``starts[i] .. starts[i] + min(lengths[i], 8)`` as little-endian words.

    Two aligned reads and shifts per token (unaligned fancy indexing is several times slower).
    """
    index = starts >> 3
    shift = ((starts & 7) << 3).astype(np.uint64)
    words = np.take(aligned, index)
    words >>= shift
    index += 1
    high = np.take(aligned, index)
    high <<= np.uint64(1)
    high <<= np.uint64(63) - shift  # two steps: a shift by 64 is not defined
    words |= high
    words &= np.take(_WORD_MASKS, np.minimum(lengths, _WORD))
    return words


def _hash_long(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray, first: np.ndarray) -> np.ndarray:
    """64-bit hashes of tokens longer than one word (their length and every word)."""
    hashed = lengths.astype(np.uint64)
    hashed *= _MIX
    hashed ^= first
    hashed *= _GOLDEN
    active = np.arange(starts.size)
    offset = _WORD
    while active.size:
        mixed = np.take(hashed, active)
        mixed ^= _words_at(aligned, np.take(starts, active) + offset, np.take(lengths, active) - offset)
        mixed ^= mixed >> np.uint64(29)
        mixed *= _MIX
        hashed[active] = mixed
        offset += _WORD
        active = active[np.take(lengths, active) > offset]
    hashed ^= hashed >> np.uint64(32)
    return hashed


def _tokens_equal(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether every token ``a[i]`` has the same bytes as token ``b[i]``."""
    if not np.array_equal(np.take(lengths, a), np.take(lengths, b)):
        return False
    offset = 0
    while a.size:
        rest = np.take(lengths, a) - offset
        if not np.array_equal(
            _words_at(aligned, np.take(starts, a) + offset, rest), _words_at(aligned, np.take(starts, b) + offset, rest)
        ):
            return False
        offset += _WORD
        keep = rest > _WORD
        a, b = a[keep], b[keep]
    return True


def _chunk_matches(
    sentences: list, lengths: np.ndarray, spaced: bool, n_refs: np.ndarray, min_len: int, max_len: int
) -> np.ndarray:
    """Clipped matches of every reference sentence in one chunk.

    The chunk's sentences are its segments' hypotheses, then all their references
    (segment by segment, in order), as listed in ``sentences`` (token sequences, or
    spaced texts with ``spaced``); ``lengths`` holds one length per sentence. Returns
    the matches per sentence (0 for hypotheses).
    """
    n_segments = len(n_refs)
    n_sentences = lengths.size
    matches = np.zeros(n_sentences, np.int64)
    n_pos = int(lengths.sum())
    if n_pos == 0:
        return matches
    n_hyp_tokens = int(lengths[:n_segments].sum())  # hypotheses come first
    one_ref = bool((n_refs == 1).all())
    segment_of_sentence = np.concatenate(
        (np.arange(n_segments, dtype=np.int64), np.repeat(np.arange(n_segments, dtype=np.int64), n_refs))
    )
    sentence_of = np.repeat(np.arange(n_sentences, dtype=np.int64), lengths)
    same_sentence = sentence_of[1:] == sentence_of[:-1]
    # positions: where this order's n-grams start (all at order 1); group: per n-gram, the
    # position of its group's representative (the same n-gram in the same segment).
    positions = np.arange(n_pos)
    group = _token_groups(sentences, lengths, spaced, np.take(segment_of_sentence, sentence_of))
    n_hyp = n_hyp_tokens
    for order in range(1, max_len + 1):
        hyp_count = np.bincount(group[:n_hyp], minlength=n_pos)
        ref_group = group[n_hyp:]
        ref_count = np.bincount(ref_group, minlength=n_pos)
        if order >= min_len:
            if one_ref:
                # A group's reference occurrences all lie in its segment's one reference.
                found = np.flatnonzero(ref_count)
                sentence_at = np.empty(n_pos, np.int64)
                sentence_at[ref_group] = np.take(sentence_of, positions[n_hyp:])
                sentence = np.take(sentence_at, found)
                clipped = np.minimum(np.take(ref_count, found), np.take(hyp_count, found))
            else:
                # Count each (n-gram, reference) pair: group its occurrences by their exact key.
                sentence = np.take(sentence_of, positions[n_hyp:])
                pair_key = ref_group * n_sentences
                pair_key += sentence
                pair = _group_keys(pair_key)
                pair_count = np.bincount(pair, minlength=pair.size)
                found = np.flatnonzero(pair_count)  # one representative per pair
                sentence = np.take(sentence, found)
                clipped = np.minimum(np.take(pair_count, found), np.take(hyp_count, np.take(ref_group, found)))
            # float64 sums of counts this small are exact
            matches += np.bincount(sentence, weights=clipped.astype(np.float64), minlength=n_sentences).astype(np.int64)
        if order == max_len:
            break
        # Only an n-gram found in the hypothesis and in a reference can extend to a match.
        live = hyp_count > 0
        live &= ref_count > 0
        group_at = np.full(n_pos, -1, np.int64)
        group_at[positions] = np.where(np.take(live, group), group, -1)
        extends = group_at[:-1] >= 0
        extends &= group_at[1:] >= 0
        extends &= same_sentence
        positions = np.flatnonzero(extends)
        if positions.size == 0:
            break
        # The (n+1)-gram at p is the n-gram at p followed by the n-gram at p + 1: its key
        # names both groups exactly.
        key = np.take(group_at, positions)
        key *= n_pos
        key += np.take(group_at, positions + 1)
        group = np.take(positions, _group_keys(key))
        n_hyp = int(np.searchsorted(positions, n_hyp_tokens))
    return matches


def segment_rows(hypotheses: list, list_of_references: list, min_len: int, max_len: int) -> np.ndarray:
    """Per-segment ``(n_match, n_hyp, n_ref, n_all)`` rows for validated token input.

    Args:
        hypotheses: Token sequences (already validated).
        list_of_references: Per segment, a non-empty list of token sequences.
        min_len: Lowest n-gram order.
        max_len: Highest n-gram order.

    Returns:
        ``int64`` array of shape ``(len(hypotheses), 4)``.
    """
    n_segments = len(hypotheses)
    hyp_lengths = np.fromiter(map(len, hypotheses), np.int64, n_segments)
    n_refs = np.fromiter(map(len, list_of_references), np.int64, n_segments)
    ref_lengths = np.fromiter(map(len, chain.from_iterable(list_of_references)), np.int64, int(n_refs.sum()))
    return _rows(hypotheses, list_of_references, False, hyp_lengths, n_refs, ref_lengths, min_len, max_len)


def spaced_segment_rows(
    hypotheses: list[str],
    list_of_references: list[list[str]],
    hyp_lengths: np.ndarray,
    ref_lengths: np.ndarray,
    min_len: int,
    max_len: int,
) -> np.ndarray:
    """:func:`segment_rows` for tokenized text kept as text.

    Each sentence is a ``str`` whose tokens are separated by ASCII spaces only, so that
    ``sentence.split()`` gives them (as from :func:`google_bleu.tokenizers.spaced_13a_batch`);
    ``hyp_lengths`` and ``ref_lengths`` (references flattened in order) are the token
    counts. No token objects are made.
    """
    n_refs = np.fromiter(map(len, list_of_references), np.int64, len(hypotheses))
    return _rows(hypotheses, list_of_references, True, hyp_lengths, n_refs, ref_lengths, min_len, max_len)


def _rows(
    hypotheses: list,
    list_of_references: list,
    spaced: bool,
    hyp_lengths: np.ndarray,
    n_refs: np.ndarray,
    ref_lengths: np.ndarray,
    min_len: int,
    max_len: int,
) -> np.ndarray:
    n_segments = len(hypotheses)
    rows = np.zeros((n_segments, 4), np.int64)
    if n_segments == 0:
        return rows
    first_ref = np.cumsum(n_refs) - n_refs
    segment_tokens = hyp_lengths + np.add.reduceat(ref_lengths, first_ref)  # every segment has a reference
    too_long = np.flatnonzero(segment_tokens > _MAX_CHUNK_TOKENS)
    if too_long.size:
        i = int(too_long[0])
        raise ValueError(
            f"segment {i} has {int(segment_tokens[i])} tokens over its hypothesis and references; "
            f"the limit is {_MAX_CHUNK_TOKENS}"
        )
    ends = np.cumsum(segment_tokens)
    start = 0
    while start < n_segments:
        offset = int(ends[start - 1]) if start else 0
        stop = max(int(np.searchsorted(ends, offset + CHUNK_TOKENS, side="right")), start + 1)
        chunk_refs = n_refs[start:stop]
        ref_start = int(first_ref[start])
        ref_stop = ref_start + int(chunk_refs.sum())
        lengths = np.concatenate((hyp_lengths[start:stop], ref_lengths[ref_start:ref_stop]))
        sentences = hypotheses[start:stop]
        sentences += chain.from_iterable(list_of_references[start:stop])
        matches = _chunk_matches(sentences, lengths, spaced, chunk_refs, min_len, max_len)
        rows[start:stop] = _choose_references(matches, lengths, chunk_refs, min_len, max_len)
        start = stop
    return rows


def _choose_references(
    matches: np.ndarray, lengths: np.ndarray, n_refs: np.ndarray, min_len: int, max_len: int
) -> np.ndarray:
    """Keeps, per segment, nltk's reference: highest ``tp / n_all``, the first on a tie."""
    n_segments = len(n_refs)
    counts = ngram_counts(lengths, min_len, max_len)
    ref_segment = np.repeat(np.arange(n_segments), n_refs)
    n_hyp = counts[:n_segments]
    ref_match = matches[n_segments:]
    ref_count = counts[n_segments:]
    ref_all = np.maximum(n_hyp[ref_segment], ref_count)
    # References with n_all == 0 are not candidates (nltk skips them); -1 ranks below any ratio.
    ratio = np.full(ref_all.size, -1.0)
    np.divide(ref_match, ref_all, out=ratio, where=ref_all > 0)
    first_ref = np.concatenate(([0], np.cumsum(n_refs)[:-1]))
    best_ratio = np.maximum.reduceat(ratio, first_ref)
    tied = np.flatnonzero(ratio == best_ratio[ref_segment])
    keep = np.ones(tied.size, bool)
    keep[1:] = ref_segment[tied[1:]] != ref_segment[tied[:-1]]
    best = tied[keep]  # exactly one per segment, the first maximal reference
    rows = np.stack([ref_match[best], n_hyp, ref_count[best], ref_all[best]], axis=1)
    rows[best_ratio < 0] = 0  # every reference had n_all == 0: left out of the sums
    return rows
