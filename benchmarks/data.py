"""Synthetic corpora for the benchmarks: seeded, Zipf-like vocabulary, MT-like lengths."""

from __future__ import annotations

import numpy as np

VOCABULARY = 30_000
MEAN_TOKENS = 25


def _vocabulary(size: int) -> list[str]:
    # Word-like strings with punctuation tokens mixed in, so 13a has work to do.
    rng = np.random.default_rng(7)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = []
    for i in range(size):
        length = int(rng.integers(2, 10))
        word = "".join(letters[rng.integers(0, 26, length)])
        if i % 5 == 0:
            word = word.capitalize()
        words.append(word)
    words[:8] = [",", ".", "the", "of", "and", "to", "a", "in"]
    words[40:48] = ["2017", "3.5", "1,000", "5-6", "U.S.", "(", ")", '"']
    return words


def _sentences(rng: np.random.Generator, n: int, vocabulary: list[str]) -> list[list[str]]:
    lengths = np.clip(rng.normal(MEAN_TOKENS, 8, n).astype(int), 1, 80)
    # Zipf-like draws (exponent ~1.1) folded into the vocabulary.
    ids = (rng.zipf(1.1, int(lengths.sum())) - 1) % len(vocabulary)
    words = [vocabulary[i] for i in ids.tolist()]
    ends = np.cumsum(lengths).tolist()
    out, start = [], 0
    for end in ends:
        out.append(words[start:end])
        start = end
    return out


def token_corpus(n_pairs: int, n_refs: int = 1, seed: int = 0) -> tuple[list[list[str]], list[list[list[str]]]]:
    """``(hypotheses, list_of_references)``: references are noisy copies of the hypothesis."""
    rng = np.random.default_rng(seed)
    vocabulary = _vocabulary(VOCABULARY)
    hypotheses = _sentences(rng, n_pairs, vocabulary)
    references = []
    for _ in range(n_refs):
        noise = _sentences(rng, n_pairs, vocabulary)
        keep = rng.random(n_pairs) < 0.6
        refs = []
        for hyp, other, k in zip(hypotheses, noise, keep.tolist()):
            # Share a prefix or a suffix with the hypothesis so there are real matches.
            cut = len(hyp) // 2
            refs.append(hyp[:cut] + other[: len(other) // 2] if k else other[: len(other) // 2] + hyp[cut:])
        references.append(refs)
    list_of_references = [list(group) for group in zip(*references)]
    return hypotheses, list_of_references


def text_corpus(n_pairs: int, n_refs: int = 1, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """Detokenized-looking strings: punctuation glued to words, some numbers."""
    hypotheses, list_of_references = token_corpus(n_pairs, n_refs, seed)

    def detok(tokens: list[str]) -> str:
        return " ".join(tokens).replace(" ,", ",").replace(" .", ".") + "."

    predictions = [detok(h) for h in hypotheses]
    references = [[detok(r) for r in refs] for refs in list_of_references]
    return predictions, references
