"""GLEU of token sequences; :func:`corpus_gleu` and :func:`sentence_gleu` return exactly nltk's floats."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import chain
from typing import Any

from .counting import segment_rows
from .imports import lazy_module
from .stats import GleuStats
from .validation import (
    PLAIN_TYPES,
    check_item,
    check_orders,
    check_sequence,
    describe,
    is_tensor,
    named_texts,
    not_a_sequence,
)

np = lazy_module("numpy")

Tokens = Sequence[Hashable]

def gleu_stats(
    hypotheses: Sequence[Tokens], list_of_references: Sequence[Sequence[Tokens]], min_len: int = 1, max_len: int = 4
) -> GleuStats:
    """Per-segment statistics of token sequences (of any hashable tokens), one or more references a segment.

    Example:
        >>> stats = gleu_stats(["the cat sat on the mat".split()], [["the cat ate the mat".split()]])
        >>> stats.rows.tolist()
        [[6, 18, 14, 18]]
        >>> stats.score(), stats.precision(), stats.recall()
        (0.3333333333333333, 0.3333333333333333, 0.42857142857142855)
    """
    min_len, max_len = check_orders(min_len, max_len)
    return checked_gleu_stats(*check_tokens(hypotheses, list_of_references), min_len, max_len)


def checked_gleu_stats(hypotheses: list, list_of_references: list, min_len: int, max_len: int) -> GleuStats:
    """:func:`gleu_stats` of input already checked (by :func:`check_tokens` and ``check_orders``)."""
    try:
        rows, chosen = segment_rows(hypotheses, list_of_references, min_len, max_len)
    except TypeError:  # an unhashable token: say where (the common path never looks)
        where = unhashable_token(hypotheses, list_of_references)
        if where is None:
            raise
        raise TypeError(f"tokens must be hashable (e.g. str or int): {where}") from None
    return GleuStats.trusted(rows, min_len, max_len, chosen)


def corpus_gleu(
    list_of_references: Sequence[Sequence[Tokens]], hypotheses: Sequence[Tokens], min_len: int = 1, max_len: int = 4
) -> float:
    """Corpus GLEU, identical to nltk's ``corpus_gleu`` (in nltk's argument order), not a mean of sentence scores.

    Example:
        >>> hyp = "the cat sat on the mat".split()
        >>> corpus_gleu([["the cat ate the mat".split()]], [hyp])
        0.3333333333333333
        >>> corpus_gleu([], [])
        0.0
    """
    return gleu_stats(hypotheses, list_of_references, min_len, max_len).score()


def sentence_gleu(references: Sequence[Tokens], hypothesis: Tokens, min_len: int = 1, max_len: int = 4) -> float:
    """Sentence GLEU against the best of ``references``, identical to nltk's ``sentence_gleu``.

    Example:
        >>> sentence_gleu(["the cat is on the mat".split()], "the the the the the the the".split())
        0.09090909090909091
    """
    return corpus_gleu([references], [hypothesis], min_len, max_len)


def _plain_token_input(hypotheses: list, list_of_references: list) -> bool:
    """Whether the input is lists/tuples all the way down, with a reference everywhere (C-level passes over types)."""
    if not set(map(type, hypotheses)) <= PLAIN_TYPES or not set(map(type, list_of_references)) <= PLAIN_TYPES:
        return False
    if list_of_references and not all(map(len, list_of_references)):
        return False
    return set(map(type, chain.from_iterable(list_of_references))) <= PLAIN_TYPES


def check_tokens(hypotheses: Any, list_of_references: Any) -> tuple[list, list]:
    """Token input checked, as lists: one token sequence per segment, and per segment a non-empty list of them.

    Example:
        >>> check_tokens([["a"]], [])
        Traceback (most recent call last):
        ...
        ValueError: got 1 hypotheses but 0 reference lists
    """
    check_sequence(hypotheses, "hypotheses")
    check_sequence(list_of_references, "list_of_references")
    if len(hypotheses) != len(list_of_references):
        raise ValueError(f"got {len(hypotheses)} hypotheses but {len(list_of_references)} reference lists")
    hypotheses = list(hypotheses)
    list_of_references = list(list_of_references)
    if _plain_token_input(hypotheses, list_of_references):
        return hypotheses, list_of_references
    # A tensor's elements are 0-d tensors, hashed by identity: an id tensor is scored by its values.
    hypotheses = [_tensor_ids(h, f"hypothesis {i}") for i, h in enumerate(hypotheses)]
    list_of_references = [
        refs if not_a_sequence(refs) else [_tensor_ids(r, f"reference {j} of segment {i}") for j, r in enumerate(refs)]
        for i, refs in enumerate(list_of_references)
    ]
    for i, hypothesis in enumerate(hypotheses):
        if isinstance(hypothesis, (str, bytes)):
            kind = type(hypothesis).__name__
            raise TypeError(f"hypothesis {i} is a {kind}, not a token sequence; split it first (e.g. text.split()): {describe(hypothesis)}")
        check_item(hypothesis, "hypothesis {} must be a sequence of tokens", i)
    for i, references in enumerate(list_of_references):
        check_item(references, "references of segment {} must be a sequence of token sequences", i)
        if len(references) == 0:
            raise ValueError(f"segment {i} has no reference; every hypothesis needs at least one")
        for j, reference in enumerate(references):
            check_item(reference, "reference {} of segment {} must be a token sequence (e.g. text.split())", j, i)
    return hypotheses, list_of_references


def _tensor_ids(tokens: Any, name: str) -> Any:
    if not is_tensor(tokens):
        return tokens
    if tokens.dim() != 1:
        raise ValueError(f"{name} must be a 1-D tensor of token ids, got shape {list(tokens.shape)}")
    return tokens.tolist()


def unhashable_token(hypotheses: list, list_of_references: list) -> str | None:
    """Where the first unhashable token of validated token input is, or ``None``.

    Example:
        >>> unhashable_token([["a"], ["b", ["c"]]], [[["a"]], [["b"]]])
        "hypotheses[1], token 1 is a list ['c']"
    """
    for name, tokens in named_texts(hypotheses, list_of_references, ("hypotheses", "list_of_references")):
        for k, token in enumerate(tokens):
            try:
                hash(token)
            except TypeError:
                return f"{name}, token {k} is a {type(token).__name__} {token!r:.40}"
    return None
