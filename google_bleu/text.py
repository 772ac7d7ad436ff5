"""Text to statistics: each distinct line tokenized once, counted in bounded chunks (docs/design.md, "Token keys")."""

from __future__ import annotations

from itertools import chain, islice, repeat
from typing import Any

from .counting import chunks, order_spans, python_rows, segment_rows, small_input, stored_segment_rows
from .imports import lazy_module
from .keys import LineStore
from .stats import GleuStats
from .tokenizers import Tokenizer

np = lazy_module("numpy")

#: Characters of text (all sides together) tokenized and counted at a time: bounds the memory.
TEXT_CHUNK_CHARS = 1 << 21


def checked_text_stats(
    predictions: list[str], references: list[list[str]], tokenize: Tokenizer, min_len: int, max_len: int
) -> GleuStats:
    """Per-segment statistics of checked text and orders (:meth:`google_bleu.GLEU.stats` is the checked entry)."""
    return order_text_stats(predictions, references, tokenize, min_len, max_len, by_order=False)[0]


def order_text_stats(
    predictions: list[str], references: list[list[str]], tokenize: Tokenizer, min_len: int, max_len: int,
    by_order: bool = True,
) -> list[GleuStats]:
    """The statistics of orders ``min_len-max_len``, then (``by_order``) of each order alone, from one walk."""
    spans = order_spans(min_len, max_len, by_order)
    if not predictions:
        return [GleuStats.empty(low, high) for low, high in spans]
    if small_input(n_chars=sum(map(len, predictions)) + sum(map(len, chain.from_iterable(references)))):
        part = _text_rows(tokenize, predictions, references, min_len, max_len, None, by_order)
        pieces = part if by_order else [part]
    else:  # chunks of text, with the tokenized lines shared between them
        store = LineStore()
        sizes = np.fromiter(map(len, predictions), np.int64, len(predictions))  # characters per segment
        sizes += np.fromiter(map(sum, map(map, repeat(len), references)), np.int64, len(references))
        rows = np.empty((len(spans), len(predictions), 4), np.int64)
        chosen = np.empty((len(spans), len(predictions)), np.int64)
        for a, b in chunks(sizes, TEXT_CHUNK_CHARS):
            part = _text_rows(tokenize, predictions[a:b], references[a:b], min_len, max_len, store, by_order)
            for k, (part_rows, part_chosen) in enumerate(part if by_order else [part]):
                rows[k, a:b], chosen[k, a:b] = part_rows, part_chosen
        pieces = list(zip(rows, chosen))
    return [GleuStats.trusted(r, low, high, c) for (low, high), (r, c) in zip(spans, pieces)]


#: Distinct lines and tokens kept tokenized between chunks (about 25 bytes a token).
SEEN_LINES = 1 << 16
SEEN_TOKENS = 1 << 18


def _text_rows(
    tokenize: Tokenizer, predictions: list[str], references: list[list[str]], min_len: int, max_len: int, store: LineStore | None,
    by_order: bool,
) -> Any:
    if store is not None and (store.n_lines > SEEN_LINES or store.n_tokens > SEEN_TOKENS):
        store.clear()
    n = len(predictions)
    keys = tokenized(tokenize, [*predictions, *chain.from_iterable(references)], store)
    if store is None:  # a small input (sized by its characters): plain Python
        return python_rows(keys[:n], _regrouped(keys[n:], references), min_len, max_len, by_order)
    if tokenize.spans is not None:
        n_refs = np.fromiter(map(len, references), np.int64, len(references))
        return stored_segment_rows(store, keys[:n], keys[n:], n_refs, min_len, max_len, by_order)
    return segment_rows(keys[:n], _regrouped(keys[n:], references), min_len, max_len, by_order)


def tokenized(tokenize: Tokenizer, lines: list[str], store: LineStore | None = None) -> Any:
    """Each line's tokens, each distinct line tokenized once (with a ``store`` and 13a: the lines' store indices)."""
    if store is not None and tokenize.spans is not None:
        return store.ids(lines, tokenize.spans_all)
    seen: dict = {}

    def tokens(line: str) -> list:
        found = seen.get(line)
        if found is None:
            found = seen[line] = tokenize(line)
        return found

    return list(map(tokens, lines))


def _regrouped(flat: list, references: list[list[str]]) -> list[list]:
    """``flat`` (every segment's references, one after the other) cut as ``references`` is."""
    items = iter(flat)
    return [list(islice(items, len(refs))) for refs in references]
