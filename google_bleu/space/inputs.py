"""The page's input: text boxes and uploads to lines, settings to a :class:`GLEU`, checked.

Pasted text and uploads follow the shared line policy (:mod:`google_bleu.scale.lines`);
settings are checked by :class:`GLEU` itself. Every problem is an :class:`InputError` whose
message is shown on the page (or returned by the API), never a traceback.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google_bleu import GLEU, GleuScore, GleuStats, get_tokenizer
from google_bleu.scale.lines import split_lines
from google_bleu.signature import count_references

from .limits import MAX_FILE_BYTES, MAX_INPUT_CHARS, MAX_SEGMENTS, UPLOAD_TYPES

#: Tokenizers this page may offer. The SentencePiece ones are left out: they download a
#: model at first use and write it outside a temporary directory.
CANDIDATE_TOKENIZERS = ("13a", "intl", "zh", "char", "none", "ja-mecab", "ko-mecab")


class InputError(ValueError):
    """Bad input, with a message meant for the person using the page."""


def _available(name: str) -> bool:
    try:
        get_tokenizer(name)("a")
    except (ImportError, RuntimeError, OSError):
        return False
    return True


TOKENIZERS = [name for name in CANDIDATE_TOKENIZERS if _available(name)]


def _check_text(name: str, text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        line = text.count("\n", 0, error.start) + 1
        raise InputError(
            f"{name} line {line} holds a lone surrogate (U+{ord(text[error.start]):04X}), which is not valid text"
        ) from None


def parse_inputs(predictions: Any, references: Any) -> tuple[list[str], list[list[str]]]:
    """Predictions and references (tab-separated columns) from the two text boxes.

    Example:
        >>> parse_inputs("a\\nb\\n", "x\\ty\\nz")
        (['a', 'b'], [['x', 'y'], ['z']])
    """
    for name, value in (("predictions", predictions), ("references", references)):
        if not isinstance(value, str):
            raise InputError(f"{name} must be text (one segment a line), got {type(value).__name__}")
    size = len(predictions) + len(references)
    if size > MAX_INPUT_CHARS:
        raise InputError(
            f"input too large: {size:,} characters, this page takes at most {MAX_INPUT_CHARS:,} "
            "(use the google-bleu package or CLI for larger corpora)"
        )
    _check_text("predictions", predictions)
    _check_text("references", references)
    if not predictions.strip() and not references.strip():
        raise InputError("no input: paste predictions and references, one segment a line")
    if not references.strip():
        raise InputError("references are empty: paste one reference a line (several: separated by tabs)")
    prediction_lines = split_lines(predictions)
    reference_lines = split_lines(references)
    if len(prediction_lines) != len(reference_lines):
        raise InputError(
            f"{len(prediction_lines)} prediction lines but {len(reference_lines)} reference lines: "
            "give one line for each segment in both (an empty line is an empty segment)"
        )
    if len(prediction_lines) > MAX_SEGMENTS:
        raise InputError(f"too many segments: {len(prediction_lines):,}, this page takes at most {MAX_SEGMENTS:,}")
    return prediction_lines, [line.split("\t") for line in reference_lines]


def digest(predictions: str, references: str) -> str:
    """A short fingerprint of the two text boxes: a session keeps it instead of the text."""
    h = hashlib.blake2b(digest_size=16)
    for text in (predictions, references):
        data = text.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def scorer_for(tokenizer: Any, min_len: Any, max_len: Any, lowercase: Any) -> GLEU:
    """The :class:`GLEU` of the chosen settings; a bad setting becomes an :class:`InputError`."""
    if not isinstance(tokenizer, str) or tokenizer not in TOKENIZERS:
        raise InputError(f"unknown tokenizer {tokenizer!r}: this page offers {', '.join(TOKENIZERS)}")
    try:
        return GLEU(tokenizer, lowercase=lowercase, min_len=min_len, max_len=max_len)
    except (ValueError, TypeError, ImportError) as error:
        raise InputError(str(error)) from None


@dataclass
class Scored:
    """One scoring request: the parsed input, the scorer, its statistics and result."""

    predictions: list[str]
    references: list[list[str]]
    scorer: GLEU
    stats: GleuStats
    result: GleuScore

    @property
    def output(self) -> dict:
        """:meth:`GleuScore.to_dict` (values 0-1, as the evaluate module returns them)."""
        return self.result.to_dict()


def score(
    predictions: Any,
    references: Any,
    tokenizer: Any = "13a",
    min_len: Any = 1,
    max_len: Any = 4,
    lowercase: Any = False,
) -> Scored:
    """Parses and scores the text boxes; every problem becomes an :class:`InputError`."""
    scorer = scorer_for(tokenizer, min_len, max_len, lowercase)
    prediction_lines, reference_lists = parse_inputs(predictions, references)
    try:
        stats = scorer.stats(prediction_lines, reference_lists)
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None
    result = scorer.score_stats(stats, count_references(reference_lists))
    return Scored(prediction_lines, reference_lists, scorer, stats, result)


def _upload_folder() -> Path:
    return Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio").resolve()


def discard_upload(path: str) -> None:
    """Deletes an upload that gradio keeps in its temporary folder (and its folder, when empty);
    a file anywhere else is left alone."""
    file = Path(path).resolve()
    if _upload_folder() not in file.parents:
        return
    file.unlink(missing_ok=True)
    try:
        file.parent.rmdir()
    except OSError:  # not empty, or gone
        pass


def read_upload(path: str) -> list[str]:
    """Lines of an uploaded UTF-8 text file, after the type and size checks; the upload is
    deleted once read (or refused).

    Raises:
        InputError: Not a ``.txt`` file, too large, or not UTF-8 text.
    """
    name = os.path.basename(path)
    try:
        if Path(name).suffix.lower() not in UPLOAD_TYPES:
            raise InputError(f"{name} is not a text file: upload {' or '.join(UPLOAD_TYPES)} files, one segment a line")
        try:
            size = os.path.getsize(path)
            if size > MAX_FILE_BYTES:
                raise InputError(f"{name} is too large: {size:,} bytes, at most {MAX_FILE_BYTES:,}")
            text = Path(path).read_bytes().decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(f"{name} is not UTF-8 text ({error.reason} at byte {error.start})") from None
        except OSError as error:  # gone (read once already), or unreadable
            raise InputError(f"{name} could not be read ({error.strerror}): upload it again") from None
    finally:
        discard_upload(path)
    return split_lines(text)
