"""The shared line policy (google_bleu/lines.py) against sacrebleu's own reading of files."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.utils import smart_open

from google_bleu.scale.lines import BOM, LineError, bom_warning, lines_from_bytes, split_lines
from tests.helpers.oracles import SAMPLES


def sacrebleu_lines(path) -> list[str]:
    """Lines exactly as sacrebleu's CLI reads a file (its smart_open, then rstrip)."""
    with smart_open(str(path)) as handle:
        return [line.rstrip() for line in handle]


# Characters that str.splitlines() treats as line breaks, trailing whitespace, a BOM, NUL.
TRICKY = [
    b"",
    b"\n",
    b"\n\n",
    b"a",
    b"a\n",
    b"a\nb",
    b"a\r\nb\r\n",
    b"a\rb\n",
    b"a\x0bb\x0cc\x1cd\x1de\x1ef\n",
    "a\x85b\u2028c\u2029d\n".encode(),
    b"  lead and trail \t \n\tx\t\n",
    b"ref one\tref two\t\n",
    b"\xef\xbb\xbfbom first\nsecond\n",
    b"a\x00b\n\x00\n",
    "\u3000wide space\u3000\n".encode(),
]


@pytest.mark.parametrize("data", TRICKY)
def test_bytes_equal_sacrebleu_reading(tmp_path, data):
    path = tmp_path / "lines.txt"
    path.write_bytes(data)
    assert lines_from_bytes(data, str(path)) == sacrebleu_lines(path)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_any_text_equals_sacrebleu_reading(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "lines.txt"
    data = text.encode("utf-8")
    path.write_bytes(data)
    assert lines_from_bytes(data, "x") == sacrebleu_lines(path) == split_lines(text)


def test_real_sample_files_equal_sacrebleu_reading():
    paths = sorted(SAMPLES.glob("*/*.txt"))
    assert len(paths) == 8
    for path in paths:
        assert lines_from_bytes(path.read_bytes(), str(path)) == sacrebleu_lines(path), path


def test_pasted_text_follows_the_same_rule_as_files():
    for data in TRICKY:
        assert split_lines(data.decode("utf-8")) == lines_from_bytes(data, "x")
    assert split_lines("a\nb\n") == split_lines("a\nb") == ["a", "b"]
    assert split_lines("") == [] and split_lines("\n") == [""]


def test_invalid_utf8_names_source_line_and_byte():
    with pytest.raises(LineError, match=r"^f\.txt: line 3 is not valid UTF-8 \(invalid continuation byte at byte 7\); convert it to UTF-8 first, e\.g\. iconv -f LATIN1 -t UTF-8 FILE > NEW$"):
        lines_from_bytes(b"fine\nalso fine\nbroken \xe9t\xe9\n", "f.txt")
    with pytest.raises(ValueError, match="standard input: line 1 is not valid UTF-8"):
        lines_from_bytes(b"\xff", "standard input")
    # An encoded surrogate is not UTF-8 either (strict decoding).
    with pytest.raises(LineError, match="line 2"):
        lines_from_bytes(b"a\n\xed\xa0\x80\n", "x")


def test_bom_is_kept_and_warned_about():
    lines = lines_from_bytes(b"\xef\xbb\xbfa b\n", "x.txt")
    assert lines == [BOM + "a b"]
    assert "x.txt starts with a byte-order mark" in bom_warning(lines, "x.txt")
    assert bom_warning(["a", BOM + "b"], "x.txt") is None
    assert bom_warning([], "x.txt") is None


def test_shared_wmt_files_equal_sacrebleu_reading(shared_data):
    # Every real file, the one that starts with a BOM among them.
    paths = sorted(shared_data.glob("*/*.txt"))
    assert any(path.read_bytes().startswith(b"\xef\xbb\xbf") for path in paths)
    for path in paths:
        assert lines_from_bytes(path.read_bytes(), str(path)) == sacrebleu_lines(path), path
