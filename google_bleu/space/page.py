"""The page's event handlers and the ``compute`` endpoint: inputs checked, outputs rendered.

A session keeps only what explaining a segment needs besides the text boxes: the settings,
a fingerprint of the text that was scored, and its statistics (five integers a segment).
The text itself is read again from the boxes when a segment is explained, so it is never
stored twice; if the boxes changed since Compute, the page says so instead of explaining
other text with old numbers.
"""

from __future__ import annotations

import math
import os
from typing import Any

from google_bleu import _import_optional
from google_bleu.scale.lines import split_lines

from . import render
from .inputs import InputError, digest, discard_upload, read_upload, score, scorer_for

gr = _import_optional("gradio", "app", "the Space (google_bleu.space)")


def message(text: str) -> dict:
    """The page's message box, shown with ``text``."""
    return gr.update(value=f"⚠️ **{text}**", visible=True)


def no_message() -> dict:
    return gr.update(value="", visible=False)


# -- the API endpoint ----------------------------------------------------------------------
def compute(
    predictions: str,
    references: str,
    tokenizer: str = "13a",
    min_len: int = 1,
    max_len: int = 4,
    lowercase: bool = False,
) -> dict:
    """Google-BLEU of newline-separated predictions against newline-separated references.

    Several references for a segment are separated by tabs on its line. Returns the
    evaluate module's dict (values 0-1): google_bleu, precision, recall, signature, the
    exact totals n_match, n_hyp, n_ref, n_all, and sentence_scores.
    """
    try:
        scored = score(predictions, references, tokenizer, min_len, max_len, lowercase)
    except InputError as error:
        raise gr.Error(str(error), print_exception=False) from None
    return {**scored.output, "sentence_scores": scored.stats.sentence_scores().tolist()}


# -- Compute ---------------------------------------------------------------------------------
def run(predictions: Any, references: Any, tokenizer: Any, min_len: Any, max_len: Any, lowercase: Any) -> tuple:
    """The Compute button (and a click on an example): every output of the page, or a message
    and the results hidden.

    Outputs: message, results (shown or not), score card, table, histogram, raw result, state,
    segment number, the two highlighted sides, the segment's explanation.
    """
    try:
        scored = score(predictions, references, tokenizer, min_len, max_len, lowercase)
    except InputError as error:
        # Nothing of an earlier result stays on the page to be mistaken for this input's.
        return (message(str(error)), gr.update(visible=False), "", None, None, None, None, gr.update(value=1), None, None, "")
    scorer, stats = scored.scorer, scored.stats
    state = {
        "digest": digest(predictions, references),
        "tokenizer": tokenizer,
        "lowercase": scorer.lowercase,
        "min_len": scorer.min_len,
        "max_len": scorer.max_len,
        "stats": stats,
    }
    n_segments = len(stats)
    hyp_spans, ref_spans, info = render.explain_segment(scorer, stats, 0, scored.predictions[0], scored.references[0])
    return (
        no_message(),
        gr.update(visible=True),
        render.score_card(scored.result, n_segments),
        gr.update(
            value=render.segment_table(stats, scored.predictions, scored.references),
            label=render.table_label(n_segments),
        ),
        render.score_histogram(stats.sentence_scores()),
        scored.output,
        state,
        gr.update(value=1, maximum=n_segments),
        hyp_spans,
        ref_spans,
        info,
    )


# -- Why this score --------------------------------------------------------------------------
def _segment_number(value: Any, n_segments: int) -> int | None:
    """``value`` as a segment number 1..n_segments, or ``None`` (a crafted event may send anything)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 1 <= value <= n_segments:
        return value
    return None


def highlight(state: dict | None, predictions: Any, references: Any, segment: Any) -> tuple[Any, Any, str]:
    """The chosen segment's prediction and chosen reference, matched n-grams highlighted."""
    if not state:
        return None, None, ""
    n_segments = len(state["stats"])
    number = _segment_number(segment, n_segments)
    if number is None:
        return None, None, f"⚠️ **choose a segment between 1 and {n_segments:,}**"
    if (
        not isinstance(predictions, str)
        or not isinstance(references, str)
        or digest(predictions, references) != state["digest"]
    ):
        return None, None, "⚠️ **the text changed since Compute: press Compute to score it, then choose a segment**"
    # The same text that was scored: its lines are those the statistics were counted on.
    index = number - 1
    prediction = split_lines(predictions)[index]
    reference = split_lines(references)[index].split("\t")
    scorer = scorer_for(state["tokenizer"], state["min_len"], state["max_len"], state["lowercase"])
    return render.explain_segment(scorer, state["stats"], index, prediction, reference)


def select_row(state: dict | None, event: gr.SelectData) -> tuple[Any, Any]:
    """A click on a row of the table: its segment number, checked (the event is the client's)."""
    if not state:
        return gr.skip(), gr.skip()
    n_segments = len(state["stats"])
    row = event.row_value if isinstance(event.row_value, list) else None
    number = _segment_number(row[0] if row else None, n_segments)
    if number is None:
        shown = repr(row[0] if row else event.row_value)
        shown = shown if len(shown) <= 40 else shown[:40] + "…"
        return gr.skip(), message(f"the selected row is not a segment: got {shown}, segments are 1 to {n_segments:,}")
    return number, no_message()


# -- uploads ---------------------------------------------------------------------------------
def load_predictions(path: Any) -> tuple[Any, Any, Any]:
    """Fills the predictions box from an uploaded file, then clears the upload (deleted once read)."""
    if not path or not isinstance(path, str):
        return gr.skip(), gr.skip(), gr.skip()
    try:
        lines = read_upload(path)
    except InputError as error:
        return gr.skip(), message(str(error)), None
    return "\n".join(lines), no_message(), None


def load_references(paths: Any) -> tuple[Any, Any, Any]:
    """Fills the references box from one file per reference (columns joined by tabs), then
    clears the uploads (deleted once read)."""
    if not paths or not isinstance(paths, list) or not all(isinstance(path, str) for path in paths):
        return gr.skip(), gr.skip(), gr.skip()
    columns = []
    try:
        for path in paths:
            columns.append(read_upload(path))
        counts = {len(column) for column in columns}
        if len(counts) > 1:
            sizes = ", ".join(f"{os.path.basename(p)}: {len(c)}" for p, c in zip(paths, columns))
            raise InputError(f"reference files have different numbers of lines ({sizes})")
        for path, column in zip(paths, columns):
            if any("\t" in line for line in column):
                raise InputError(f"{os.path.basename(path)} contains tabs, which separate references here")
    except InputError as error:
        for path in paths:  # the files not read yet go too
            discard_upload(path)
        return gr.skip(), message(str(error)), None
    return "\n".join("\t".join(cells) for cells in zip(*columns)), no_message(), None
