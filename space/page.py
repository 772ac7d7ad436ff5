"""The page's event handlers and the ``compute`` endpoint.

The page's state holds the settings, a fingerprint of the scored text and its statistics, never
the text: a segment is explained from the boxes, and only while they hold the text scored.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

from google_bleu.imports import import_optional
from google_bleu.scale.lines import split_lines

from . import limits, render
from .inputs import (
    InputError,
    check_upload,
    digest,
    read_references,
    read_upload,
    score,
    scorer_for,
    split_references,
)

gr = import_optional("gradio", "app", "the Space (app.py)")


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

    Several references for a segment share its line, separated by ``|||`` or tabs. Returns the
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
        render.score_card(scored.by_order(), n_segments),
        gr.update(
            value=render.segment_table(stats, scored.predictions, scored.references),
            label=render.table_label(n_segments),
        ),
        render.score_histogram(stats.sentence_scores()),
        scored.output,
        state,
        1,
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
    reference = split_references(split_lines(references)[index])
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
def _loaded(text: str) -> dict:
    return gr.update(value=text, visible=True, elem_classes=[])


def _refused(names: str, reason: str) -> tuple[Any, ...]:
    """A refused upload: the reason under it, and nothing else changed (outputs as
    :func:`load_predictions`')."""
    return (gr.skip(), gr.skip(), None, refusal_note(names, reason), gr.skip(), gr.skip())


def refusal_note(names: str, reason: str) -> dict:
    """The note under an upload that was refused: the file named once (a reason about one file
    starts with its name already).

    Example:
        >>> refusal_note("a.txt", "a.txt is not UTF-8 text")["value"]
        '⚠️ **Not loaded:** a.txt is not UTF-8 text'
    """
    text = f"**Not loaded:** {reason}" if reason.startswith(f"{names} ") else f"**Not loaded: {names}.** {reason}"
    return gr.update(value=f"⚠️ {text}", visible=True, elem_classes=["refused"])


def _stale() -> tuple[Any, Any]:
    """The results and the state after an upload: the old result goes with the old text."""
    return gr.update(visible=False), None


def load_predictions(path: Any) -> tuple[Any, ...]:
    """Fills the predictions box from an uploaded file (deleted once read); the note under the
    upload says which file was loaded, or why not.

    Outputs: the box, the message under Compute, the upload, the note under it, the results,
    the state.
    """
    if not path or not isinstance(path, str):
        return (gr.skip(),) * 6
    name = os.path.basename(path)
    try:
        lines = read_upload(path)
    except InputError as error:
        return _refused(name, str(error))
    note = f"Loaded **{name}** into the predictions box: {len(lines):,} line{'s' if len(lines) != 1 else ''}."
    return ("\n".join(lines), no_message(), None, _loaded(note), *_stale())


def load_references(paths: Any, left_out: Any = None) -> tuple[Any, ...]:
    """Fills the references box from one file per reference, as :func:`load_predictions` does;
    the note also says why gradio left files out (``left_out``, from :func:`chosen_files`).

    Outputs: as :func:`load_predictions`.
    """
    if not paths or not isinstance(paths, list) or not all(isinstance(path, str) for path in paths):
        return (gr.skip(),) * 6
    shown = [os.path.basename(path) for path in paths[: limits.MAX_REFERENCES + 1]]
    try:
        text = read_references(paths)
    except InputError as error:
        return _refused(", ".join(shown), str(error))
    names = ", ".join(f"**{name}**" for name in shown)
    n_lines = len(split_lines(text))
    note = (
        f"Loaded {names} into the references box: {n_lines:,} line{'s' if n_lines != 1 else ''}, "
        f"{len(paths)} reference{'s' if len(paths) != 1 else ''} a line."
    )
    if isinstance(left_out, str) and left_out:
        note += f" ⚠️ **Not loaded:** {left_out}"
    return (text, no_message(), None, _loaded(note), *_stale())


def chosen_files(report: Any) -> tuple[Any, Any, Any]:
    """The files chosen or dropped on an upload (JSON from :data:`space.content.WATCH_UPLOADS`:
    ``{"which": "predictions" or "references", "files": [{"name", "size"}, ...]}``): the note under
    that upload says why gradio refuses some in the browser (all, when one is too large; those
    of another type, sending the others).

    Outputs: the two notes, and the reason reference files were left out (``None`` when none was).
    """
    unchanged = (gr.skip(), gr.skip(), gr.skip())
    try:  # the client's event: anything may come
        data = json.loads(report) if isinstance(report, str) and len(report) < 100_000 else {}
        which = data.get("which") if isinstance(data, dict) else None
        files = [(os.path.basename(str(f["name"])), int(f["size"])) for f in data["files"][: limits.MAX_REFERENCES + 1]]
    except (ValueError, TypeError, KeyError, AttributeError):
        return unchanged
    if which not in ("predictions", "references") or not files:
        return unchanged
    refused = []
    for name, size in files:
        try:
            check_upload(name, size)
        except InputError as error:
            refused.append((name, str(error)))
    too_large = [reason for _, reason in refused if " is too large: " in reason]
    if too_large:  # gradio sends none of them
        note, left_out = refusal_note(", ".join(name for name, _ in files), too_large[0]), None
    elif refused:  # gradio sends the others
        left_out = "; ".join(reason for _, reason in refused)
        note = refusal_note(", ".join(name for name, _ in refused), left_out)
    else:
        return (gr.skip(), gr.skip(), None if which == "references" else gr.skip())
    if which == "predictions":
        return note, gr.skip(), gr.skip()
    return gr.skip(), note, left_out
