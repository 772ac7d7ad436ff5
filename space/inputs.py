"""The page's input: text boxes and uploads to lines, settings to a :class:`GLEU`, checked and
bounded where read; every problem is an :class:`InputError`, its message shown on the page.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google_bleu import GLEU, MAX_ORDER, GleuScore, GleuStats, get_tokenizer
from google_bleu.scale.lines import split_lines
from google_bleu.settings import scorer_from_options
from google_bleu.signature import count_references

from .limits import (
    FILE_LIMIT,
    MAX_FILE_BYTES,
    MAX_INPUT_CHARS,
    MAX_REFERENCES,
    MAX_SEGMENTS,
    UPLOAD_TYPES,
    release,
    upload_folder,
)

#: What separates the references of one segment on its line: ``|||`` (with the spaces
#: around it) or a tab.
REFERENCE_SEPARATOR = re.compile(r" *\|\|\| *|\t")
#: How the page joins references it writes into the box (uploaded files, examples).
JOIN = " ||| "

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


def split_references(line: str) -> list[str]:
    """The references of one segment's line.

    Example:
        >>> split_references("the cat ||| a cat|||the dog\\tone more")
        ['the cat', 'a cat', 'the dog', 'one more']
    """
    return REFERENCE_SEPARATOR.split(line)


def check_size(size: int, source: str = "input") -> None:
    """Refuses text over the page's character cap, naming where it came from."""
    if size > MAX_INPUT_CHARS:
        raise InputError(
            f"{source} too large: {size:,} characters, this page takes at most {MAX_INPUT_CHARS:,} "
            "(use the google-bleu package or CLI for larger corpora)"
        )


def check_lines(count: int, source: str) -> None:
    """Refuses more lines than the page's segment cap, naming where they came from."""
    if count > MAX_SEGMENTS:
        raise InputError(f"too many segments: {source} has {count:,} lines, this page takes at most {MAX_SEGMENTS:,}")


def parse_inputs(predictions: Any, references: Any) -> tuple[list[str], list[list[str]]]:
    """Predictions and references (separated by ``|||`` or tabs) from the two text boxes.

    Example:
        >>> parse_inputs("a\\nb\\n", "x ||| y\\nz")
        (['a', 'b'], [['x', 'y'], ['z']])
    """
    for name, value in (("predictions", predictions), ("references", references)):
        if not isinstance(value, str):
            raise InputError(f"{name} must be text (one segment a line), got {type(value).__name__}")
    check_size(len(predictions) + len(references))
    _check_text("predictions", predictions)
    _check_text("references", references)
    if not predictions.strip() and not references.strip():
        raise InputError("no input: paste predictions and references, one segment a line")
    if not references.strip():
        raise InputError("references are empty: paste one reference a line (several for a segment: separated by |||)")
    prediction_lines = split_lines(predictions)
    reference_lines = split_lines(references)
    if len(prediction_lines) != len(reference_lines):
        raise InputError(
            f"{len(prediction_lines)} prediction lines but {len(reference_lines)} reference lines: "
            "give one line for each segment in both (an empty line is an empty segment)"
        )
    if len(prediction_lines) > MAX_SEGMENTS:
        raise InputError(f"too many segments: {len(prediction_lines):,}, this page takes at most {MAX_SEGMENTS:,}")
    return prediction_lines, [split_references(line) for line in reference_lines]


def digest(predictions: str, references: str) -> str:
    """A short fingerprint of the two text boxes: a session keeps it instead of the text."""
    h = hashlib.blake2b(digest_size=16)
    for text in (predictions, references):
        data = text.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def scorer_for(tokenizer: Any = "13a", min_len: Any = 1, max_len: Any = 4, lowercase: Any = False) -> GLEU:
    """The :class:`GLEU` of the chosen settings; a bad setting becomes an :class:`InputError`."""
    if not isinstance(tokenizer, str) or tokenizer not in TOKENIZERS:
        raise InputError(f"unknown tokenizer {tokenizer!r}: this page offers {', '.join(TOKENIZERS)}")
    for name, value in (("min_len", min_len), ("max_len", max_len)):
        if value is None:  # an empty field
            raise InputError(f"{name} must be an integer from 1 to {MAX_ORDER}, got none: the field is empty")
    try:
        return scorer_from_options(None, {"tokenizer": tokenizer, "lowercase": lowercase, "min_len": min_len, "max_len": max_len})
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

    def by_order(self) -> GleuScore:
        """The result with each order's own score (:attr:`GleuScore.orders`), for the score card."""
        return self.scorer.corpus_score(self.predictions, self.references, by_order=True)

    @property
    def output(self) -> dict:
        """:meth:`GleuScore.to_dict` (values 0-1, as the evaluate module returns them)."""
        return self.result.to_dict()


def score(predictions: Any, references: Any, *settings: Any) -> Scored:
    """Parses and scores the text boxes with :func:`scorer_for`'s ``settings``; every problem
    becomes an :class:`InputError`."""
    scorer = scorer_for(*settings)
    prediction_lines, reference_lists = parse_inputs(predictions, references)
    try:
        stats = scorer.stats(prediction_lines, reference_lists)
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None
    result = scorer.score_stats(stats, count_references(reference_lists))
    return Scored(prediction_lines, reference_lists, scorer, stats, result)


def discard_upload(path: str) -> None:
    """Deletes an upload in gradio's folder (and its folder, when empty) once no other upload of
    the same file waits to be read (:func:`space.limits.release`); any other file is left alone."""
    file = Path(path).resolve()
    if upload_folder() not in file.parents or not release(str(file)):
        return
    file.unlink(missing_ok=True)
    try:
        file.parent.rmdir()
    except OSError:  # not empty, or gone
        pass


def check_upload(name: str, size: int, limit: int = MAX_FILE_BYTES) -> None:
    """Refuses a file by its name's type or its size, as gradio does in the browser.

    Example:
        >>> check_upload("notes.csv", 10)
        Traceback (most recent call last):
        ...
        space.inputs.InputError: notes.csv is not a text file: upload .txt files, one segment a line
    """
    if Path(name).suffix.lower() not in UPLOAD_TYPES:
        raise InputError(f"{name} is not a text file: upload {' or '.join(UPLOAD_TYPES)} files, one segment a line")
    if size > limit:
        most = f"at most {FILE_LIMIT}" if limit == MAX_FILE_BYTES else (
            f"with {limit:,} left of the {FILE_LIMIT} that the reference files may hold together"
        )
        raise InputError(f"{name} is too large: {size:,} bytes, {most}")


def _read_text(path: str, limit: int) -> str:
    """An upload's text, read as at most ``limit`` bytes (whatever its size claims) and
    decoded as UTF-8; the upload is deleted once read (or refused)."""
    name = os.path.basename(path)
    try:
        check_upload(name, 0)
        try:
            with open(path, "rb") as file:
                data = file.read(limit + 1)
            check_upload(name, max(os.path.getsize(path), len(data)) if len(data) > limit else len(data), limit)
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(f"{name} is not UTF-8 text ({error.reason} at byte {error.start})") from None
        except OSError as error:  # gone (read once already), or unreadable
            raise InputError(f"{name} could not be read ({error.strerror}): upload it again") from None
    finally:
        discard_upload(path)


def read_upload(path: str) -> list[str]:
    """Lines of an uploaded UTF-8 text file, within the page's caps; deleted once read (or refused).

    Raises:
        InputError: Not a ``.txt`` file, too large, too many lines, or not UTF-8 text.
    """
    text = _read_text(path, MAX_FILE_BYTES)
    name = os.path.basename(path)
    check_size(len(text), name)
    lines = split_lines(text)
    check_lines(len(lines), name)
    return lines


def read_references(paths: list[str]) -> str:
    """The references box from one uploaded file per reference, a line's references joined by
    ``|||``; bounded in files, bytes together, characters and lines; every file released once.

    Raises:
        InputError: Too many files, one of :func:`read_upload`'s problems, files of different
            lengths, or a line holding a reference separator.
    """
    opened = 0
    try:
        if len(paths) > MAX_REFERENCES:
            raise InputError(f"{len(paths)} reference files: this page takes at most {MAX_REFERENCES} (one per reference)")
        columns: list[list[str]] = []
        budget, size = MAX_FILE_BYTES, 0  # bytes left to read; characters read
        for path in paths:
            opened += 1  # _read_text releases it, read or refused
            text = _read_text(path, budget)
            budget -= len(text.encode("utf-8"))
            size += len(text)
            check_size(size, "the reference files together")
            columns.append(split_lines(text))
            check_lines(len(columns[-1]), os.path.basename(path))
        counts = {len(column) for column in columns}
        if len(counts) > 1:
            sizes = ", ".join(f"{os.path.basename(p)}: {len(c)}" for p, c in zip(paths, columns))
            raise InputError(f"reference files have different numbers of lines ({sizes})")
        for path, column in zip(paths, columns):
            for number, line in enumerate(column, 1):
                if REFERENCE_SEPARATOR.search(line):
                    raise InputError(
                        f"{os.path.basename(path)} line {number} holds a tab or |||, which separate references here"
                    )
        text = "\n".join(JOIN.join(cells) for cells in zip(*columns))
        check_size(len(text), "the references")
        return text
    finally:
        for path in paths[opened:]:  # the files not read yet are released too
            discard_upload(path)
