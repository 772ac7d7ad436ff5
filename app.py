"""The Gradio Space for google-bleu: score, compare and see why, in the browser.

A thin adapter: text in, one :class:`google_bleu.GLEU` built from the chosen settings per
request, its :class:`google_bleu.GleuScore` out, and :func:`google_bleu.analysis.explain` for the
highlighted matches of the one segment shown. It holds no scoring logic of its own.

Run it with ``make app`` (or ``python app.py``). Besides the page, it serves a named API
endpoint ``compute`` for ``gradio_client``::

    from gradio_client import Client
    Client("http://127.0.0.1:7860/").predict(
        "the cat sat on the mat", "the cat ate the mat", "13a", 1, 4, False, api_name="/compute"
    )  # GleuScore.to_dict() (the evaluate module's keys and the exact totals), with sentence_scores

Limits that protect a public Space, each with its own message:

- a request body larger than ``MAX_REQUEST_BYTES`` is refused before it is read or
  parsed (:class:`RequestSizeLimit`, HTTP 413);
- at most ``MAX_INPUT_CHARS`` characters and ``MAX_SEGMENTS`` lines are scored;
- ``CONCURRENCY`` requests are computed at a time, ``QUEUE_SIZE`` wait, and gradio keeps
  the state of at most ``SESSION_CAPACITY`` sessions, so memory stays bounded over any
  number of requests;
- the page explains one segment at a time (cost linear in its tokens times ``max_len``)
  and highlights at most ``MAX_SHOWN_TOKENS`` tokens a side, saying so when it cuts.

User text is only split and tokenized, never evaluated; the app itself writes no file
(gradio keeps uploads in its temporary directory).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np
import pandas as pd
from fastapi import HTTPException
from starlette.middleware import Middleware

from google_bleu import GLEU, GleuStats, explain, get_tokenizer
from google_bleu.scale.lines import lines_from_text, split_lines
from google_bleu.signature import count_references
from google_bleu.validation import MAX_ORDER

#: Largest input accepted, predictions and references together, in characters.
MAX_INPUT_CHARS = 2_000_000
#: Most segments (lines) accepted.
MAX_SEGMENTS = 20_000
#: Largest uploaded file, in bytes (UTF-8 takes at most 4 bytes a character).
MAX_FILE_BYTES = 4 * MAX_INPUT_CHARS
#: Largest request body, in bytes: JSON writes a character in at most 6 bytes (``\uXXXX``),
#: plus room for the other fields. Uploads (multipart) have their own cap, ``MAX_FILE_BYTES``.
MAX_REQUEST_BYTES = 6 * MAX_INPUT_CHARS + (1 << 20)
#: Requests computed at the same time (a free Space has 2 CPU cores).
CONCURRENCY = 2
#: Requests that may wait in the queue; more are turned away with a message.
QUEUE_SIZE = 64
#: Sessions whose state gradio keeps (inputs and outputs of their last request).
SESSION_CAPACITY = 64
#: Most tokens a side highlighted in "Why this score".
MAX_SHOWN_TOKENS = 1_000
#: Most characters of a prediction or reference shown in a table cell.
MAX_CELL_CHARS = 300

#: Tokenizers this page may offer. The SentencePiece ones are left out: they download a
#: model at first use and write it outside a temporary directory.
CANDIDATE_TOKENIZERS = ("13a", "intl", "zh", "char", "none", "ja-mecab", "ko-mecab")

SAMPLES = Path(__file__).resolve().parent / "google_bleu" / "samples"

ORDER_COLORS = {"1-gram": "#fde68a", "2-gram": "#fdba74", "3-gram": "#fb923c", "4-gram": "#f472b6"}

INTRO = """\
# Google-BLEU (GLEU)

The sentence-level metric of Google's neural machine translation paper
([Wu et al. 2016](https://arxiv.org/abs/1609.08144)): count the n-grams of orders
`min_len`..`max_len` in the prediction and in the reference; GLEU is
**min(precision, recall) = matches / max(prediction n-grams, reference n-grams)**. The corpus
score sums matches and denominators over all segments before dividing, so it is *not* the
mean of the sentence scores. With several references, each segment keeps the reference with
the highest ratio (the first on a tie). Numbers are identical to nltk's `corpus_gleu` and to
HF's `google_bleu`.

Paste one segment a line (several references for a segment: separate them with a **tab**),
or upload files, or click an example below; then **Compute**.
"""


class InputError(ValueError):
    """Bad input, with a message meant for the person using the page."""


def _available(name: str) -> bool:
    try:
        get_tokenizer(name)("a")
    except (ImportError, RuntimeError, OSError):
        return False
    return True


TOKENIZERS = [name for name in CANDIDATE_TOKENIZERS if _available(name)]


# -- the request size cap ----------------------------------------------------------------
class RequestSizeLimit:
    """ASGI middleware: refuses a request body over ``max_bytes`` before anything parses it.

    A declared ``Content-Length`` over the cap is answered 413 at once, without reading the
    body; a body sent without one (chunked) is counted as it arrives and refused as soon
    as it passes the cap, so at most ``max_bytes`` of it is ever held.
    """

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _too_large(self, size: str) -> HTTPException:
        return HTTPException(
            status_code=413,
            detail=f"request too large: {size} bytes, this Space takes at most {self.max_bytes:,} "
            f"(at most {MAX_INPUT_CHARS:,} characters of text; use the google-bleu package or CLI "
            "for larger corpora)",
        )

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send, f"{int(declared):,}" if declared.isdigit() else "unknown")
            return
        received = 0

        async def limited_receive() -> dict:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # An HTTPException passes through FastAPI's body parsing unchanged.
                    raise self._too_large(f"more than {self.max_bytes:,}")
            return message

        await self.app(scope, limited_receive, send)

    async def _refuse(self, send: Any, size: str) -> None:
        error = self._too_large(size)
        body = json.dumps({"detail": error.detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})


# -- parsing ---------------------------------------------------------------------------
# Pasted text and uploads follow the shared line policy (google_bleu.scale.lines).


def _check_text(name: str, text: Any) -> None:
    if not isinstance(text, str):
        raise InputError(f"{name} must be text (one segment a line), got {type(text).__name__}")
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
    prediction_lines = lines_from_text(predictions)
    reference_lines = lines_from_text(references)
    if len(prediction_lines) != len(reference_lines):
        raise InputError(
            f"{len(prediction_lines)} prediction lines but {len(reference_lines)} reference lines: "
            "give one line for each segment in both (an empty line is an empty segment)"
        )
    if len(prediction_lines) > MAX_SEGMENTS:
        raise InputError(f"too many segments: {len(prediction_lines):,}, this page takes at most {MAX_SEGMENTS:,}")
    return prediction_lines, [line.split("\t") for line in reference_lines]


@dataclass
class Scored:
    """One scoring request: the parsed input, the scorer, its statistics and score."""

    predictions: list[str]
    references: list[list[str]]
    scorer: GLEU
    stats: GleuStats
    output: dict


def scorer_for(tokenizer: Any, min_len: Any, max_len: Any, lowercase: Any) -> GLEU:
    """The :class:`GLEU` of the chosen settings; a bad setting becomes an :class:`InputError`."""
    if not isinstance(tokenizer, str) or tokenizer not in TOKENIZERS:
        raise InputError(f"unknown tokenizer {tokenizer!r}: this page offers {', '.join(TOKENIZERS)}")
    try:
        return GLEU(tokenizer, lowercase=lowercase, min_len=min_len, max_len=max_len)
    except (ValueError, TypeError, ImportError) as error:
        raise InputError(str(error)) from None


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
    output = scorer.score_stats(stats, count_references(reference_lists)).to_dict()
    output["sentence_scores"] = stats.sentence_scores().tolist()
    return Scored(prediction_lines, reference_lists, scorer, stats, output)


# -- the API endpoint -------------------------------------------------------------------
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
    score as a dict: google_bleu, precision, recall, signature, the exact totals
    n_match, n_hyp, n_ref, n_all, and sentence_scores.
    """
    try:
        return score(predictions, references, tokenizer, min_len, max_len, lowercase).output
    except InputError as error:
        raise gr.Error(str(error), print_exception=False) from None


# -- the page ---------------------------------------------------------------------------
def _message(text: str) -> dict:
    return gr.update(value=f"⚠️ **{text}**", visible=True)


def score_card(output: dict, n_segments: int) -> str:
    """The corpus result as markdown."""
    return (
        f"## Google-BLEU {output['google_bleu']:.4f}\n"
        f"precision **{output['precision']:.4f}** · recall **{output['recall']:.4f}** · "
        f"{n_segments:,} segment{'s' if n_segments != 1 else ''}\n\n`{output['signature']}`"
    )


def _cell(text: str) -> str:
    """A table cell: at most ``MAX_CELL_CHARS`` characters, saying how many more there are."""
    if len(text) <= MAX_CELL_CHARS:
        return text
    return f"{text[:MAX_CELL_CHARS]}… (+{len(text) - MAX_CELL_CHARS:,} characters)"


def segment_table(scored: Scored) -> pd.DataFrame:
    """Per segment: number, score, prediction, chosen reference (the engine's) and counts."""
    rows = scored.stats.rows
    chosen = np.maximum(scored.stats.reference_index, 0).tolist()  # -1: no candidate, show the first
    return pd.DataFrame(
        {
            "#": np.arange(1, len(rows) + 1),
            "GLEU": np.round(scored.stats.sentence_scores(), 4),
            "prediction": [_cell(text) for text in scored.predictions],
            "chosen reference": [_cell(refs[j]) for refs, j in zip(scored.references, chosen)],
            "ref": [j + 1 for j in chosen],
            "n_match": rows[:, 0],
            "n_all": rows[:, 3],
        }
    )


def score_histogram(sentence_scores: np.ndarray) -> pd.DataFrame:
    """Counts of sentence scores in ten bins of width 0.1 (the last one includes 1.0)."""
    counts, edges = np.histogram(sentence_scores, bins=10, range=(0.0, 1.0))
    labels = [f"{low:.1f}–{high:.1f}" for low, high in zip(edges[:-1], edges[1:])]
    return pd.DataFrame({"sentence GLEU": labels, "segments": counts})


def _spans(tokens: tuple, orders: list[int]) -> list[tuple[str, str | None]]:
    # Neighbouring tokens of the same colour form one span, with spaces between spans.
    out: list[tuple[str, str | None]] = []
    for token, order in zip(tokens, orders):
        label = f"{order}-gram" if order else None
        if out and out[-1][1] == label:
            out[-1] = (f"{out[-1][0]} {token}", label)
        else:
            if out:
                out.append((" ", None))
            out.append((str(token), label))
    if len(tokens) > len(orders):
        out.append((f" … (showing the first {len(orders):,} of {len(tokens):,} tokens)", None))
    return out or [("(empty)", None)]


def highlight(state: dict | None, segment: Any) -> tuple[Any, Any, str]:
    """The selected segment's prediction and chosen reference, matched n-grams highlighted.

    Only this segment is tokenized and explained, against the reference the engine chose.
    """
    if not state:
        return None, None, ""
    n_segments = len(state["predictions"])
    if isinstance(segment, bool) or not isinstance(segment, (int, float)) or not 1 <= segment <= n_segments:
        return None, None, f"⚠️ **choose a segment between 1 and {n_segments}**"
    index = int(segment) - 1
    scorer = scorer_for(state["tokenizer"], state["min_len"], state["max_len"], state["lowercase"])
    references = state["references"][index]
    chosen = state["reference_index"][index]
    tokenize = scorer.tokenizer
    e = explain(
        tokenize(state["predictions"][index]),
        [tokenize(references[max(chosen, 0)])],
        scorer.min_len,
        scorer.max_len,
        limit=MAX_SHOWN_TOKENS,
    )
    which = "" if len(references) == 1 else f" · reference {max(chosen, 0) + 1} of {len(references)} chosen"
    orders = f"{e.min_len}" if e.min_len == e.max_len else f"{e.min_len}–{e.max_len}"
    if e.n_all:
        arithmetic = (
            f"**{e.n_match}** matched n-grams (orders {orders}); the prediction has {e.n_hyp}, "
            f"the reference {e.n_ref}: GLEU = {e.n_match} / max({e.n_hyp}, {e.n_ref}) = **{e.score():.4f}** "
            f"(precision {e.n_match}/{e.n_hyp}, recall {e.n_match}/{e.n_ref})"
        )
    else:
        arithmetic = "no n-gram on either side: GLEU 0, and the segment adds nothing to the corpus sums"
    longest = max(len(e.hypothesis), len(e.reference))
    cut = (
        f" Only the first {MAX_SHOWN_TOKENS:,} tokens of each side are highlighted ({longest:,} in the longer)."
        if longest > MAX_SHOWN_TOKENS
        else ""
    )
    info = (
        f"**Segment {index + 1}**{which}. {arithmetic}. "
        f"Each token is coloured by the longest matched n-gram it belongs to.{cut}"
    )
    return (
        _spans(e.hypothesis, e.hypothesis_orders(MAX_SHOWN_TOKENS)),
        _spans(e.reference, e.reference_orders(MAX_SHOWN_TOKENS)),
        info,
    )


def run(predictions: Any, references: Any, tokenizer: Any, min_len: Any, max_len: Any, lowercase: Any) -> tuple:
    """The Compute button: every output of the page, or a message and the results cleared."""
    try:
        scored = score(predictions, references, tokenizer, min_len, max_len, lowercase)
    except InputError as error:
        # Nothing of an earlier result stays on the page to be mistaken for this input's.
        return (_message(str(error)), "", None, None, None, None, gr.update(value=1), None, None, "")
    state = {
        "predictions": scored.predictions,
        "references": scored.references,
        "reference_index": scored.stats.reference_index.tolist(),
        "tokenizer": tokenizer,
        "lowercase": scored.scorer.lowercase,
        "min_len": scored.scorer.min_len,
        "max_len": scored.scorer.max_len,
    }
    hyp_spans, ref_spans, info = highlight(state, 1)
    return (
        gr.update(value="", visible=False),
        score_card(scored.output, len(scored.predictions)),
        segment_table(scored),
        score_histogram(scored.stats.sentence_scores()),
        scored.output,
        state,
        gr.update(value=1, maximum=len(scored.predictions)),
        hyp_spans,
        ref_spans,
        info,
    )


def read_upload(path: str) -> list[str]:
    """Lines of an uploaded UTF-8 text file, after the size check."""
    name = os.path.basename(path)
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise InputError(f"{name} is too large: {size:,} bytes, at most {MAX_FILE_BYTES:,}")
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{name} is not UTF-8 text ({error.reason} at byte {error.start})") from None
    return split_lines(text)


def load_predictions(path: str | None) -> tuple[Any, Any]:
    """Fills the predictions box from an uploaded file."""
    if not path:
        return gr.skip(), gr.skip()
    try:
        lines = read_upload(path)
    except InputError as error:
        return gr.skip(), _message(str(error))
    return "\n".join(lines), gr.update(value="", visible=False)


def load_references(paths: list[str] | None) -> tuple[Any, Any]:
    """Fills the references box from one file per reference (columns joined by tabs)."""
    if not paths:
        return gr.skip(), gr.skip()
    try:
        columns = [read_upload(path) for path in paths]
        counts = {len(column) for column in columns}
        if len(counts) > 1:
            sizes = ", ".join(f"{os.path.basename(p)}: {len(c)}" for p, c in zip(paths, columns))
            raise InputError(f"reference files have different numbers of lines ({sizes})")
        for path, column in zip(paths, columns):
            if any("\t" in line for line in column):
                raise InputError(f"{os.path.basename(path)} contains tabs, which separate references here")
    except InputError as error:
        return gr.skip(), _message(str(error))
    return "\n".join("\t".join(cells) for cells in zip(*columns)), gr.update(value="", visible=False)


# -- examples ---------------------------------------------------------------------------
_CARD_PREDICTIONS = (
    "It is a guide to action which ensures that the rubber duck always disobeys the commands of the cat\n"
    "he read the book because he was interested in world history"
)
_CARD_REFERENCES = (
    "It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat\t"
    "It is a guide to action that ensures that the rubber duck will never heed the cat commands\t"
    "It is the practical guide for the rubber duck army never to heed the directions of the cat\n"
    "he was interested in world history because he read the book"
)


def _sample(folder: str, system: str, start: int, stop: int) -> tuple[str, str]:
    def lines(name: str) -> list[str]:
        return split_lines((SAMPLES / folder / name).read_text(encoding="utf-8"))[start:stop]

    return "\n".join(lines(f"sys_{system}.txt")), "\n".join(lines("ref0.txt"))


def examples() -> tuple[list[list[Any]], list[str]]:
    """The metric card's examples and slices of the bundled real WMT sample."""
    rows = [
        [_CARD_PREDICTIONS, _CARD_REFERENCES, "13a", 1, 4, False],
        [_CARD_PREDICTIONS, _CARD_REFERENCES, "13a", 2, 4, False],
        [_CARD_PREDICTIONS, _CARD_REFERENCES, "13a", 2, 6, False],
        ["the cat sat on the mat", "the cat ate the mat", "13a", 1, 4, False],
    ]
    labels = [
        "Metric card: several references (0.61)",
        "Metric card: min_len=2 (0.53)",
        "Metric card: min_len=2, max_len=6 (0.4)",
        "The cat sat on the mat",
    ]
    if (SAMPLES / "wmt17_en_de").is_dir():
        rows.append([*_sample("wmt17_en_de", "uedin-nmt.4722", 0, 40), "13a", 1, 4, False])
        labels.append("WMT17 en→de, uedin-nmt, 40 segments")
    if (SAMPLES / "wmt22_en_ja").is_dir() and "char" in TOKENIZERS:
        rows.append([*_sample("wmt22_en_ja", "Online-W", 120, 140), "char", 1, 4, False])
        labels.append("WMT22 en→ja, Online-W, characters (one empty output)")
    return rows, labels


CSS = """
#score h2 { font-size: 2.2rem; margin-bottom: 0.2rem; }
#message, #message * { color: #b91c1c !important; }
"""

# System fonts: the page loads nothing from outside the Space.
THEME = gr.themes.Soft(font=["system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"])


def build() -> gr.Blocks:
    """The page and its API."""
    with gr.Blocks(title="Google-BLEU (GLEU)", analytics_enabled=False) as demo:
        gr.Markdown(INTRO)
        with gr.Row():
            with gr.Column(scale=3):
                predictions = gr.Textbox(
                    label="Predictions (one segment a line)",
                    lines=6,
                    max_lines=14,
                    placeholder="the cat sat on the mat",
                    elem_id="predictions",
                )
                references = gr.Textbox(
                    label="References (one segment a line; several references: separated by tabs)",
                    lines=6,
                    max_lines=14,
                    placeholder="the cat ate the mat",
                    elem_id="references",
                )
                with gr.Accordion("Upload files instead", open=False):
                    with gr.Row():
                        prediction_file = gr.File(label="Predictions file", file_types=[".txt"], type="filepath")
                        reference_files = gr.File(
                            label="Reference files (one per reference)",
                            file_count="multiple",
                            file_types=[".txt"],
                            type="filepath",
                        )
            with gr.Column(scale=1, min_width=220):
                tokenizer = gr.Dropdown(TOKENIZERS, value="13a", label="Tokenizer")
                min_len = gr.Number(1, label="min_len", precision=0, minimum=1, maximum=MAX_ORDER)
                max_len = gr.Number(4, label="max_len", precision=0, minimum=1, maximum=MAX_ORDER)
                lowercase = gr.Checkbox(False, label="Lowercase")
                button = gr.Button("Compute", variant="primary", elem_id="compute")
        inputs = [predictions, references, tokenizer, min_len, max_len, lowercase]
        example_rows, example_labels = examples()
        gr.Examples(example_rows, inputs, example_labels=example_labels, label="Examples (click, then Compute)")

        message = gr.Markdown(visible=False, elem_id="message")
        card = gr.Markdown(elem_id="score")
        state = gr.State(None)
        with gr.Tabs():
            with gr.Tab("Why this score"):
                segment = gr.Number(1, label="Segment (or click a row of the table)", precision=0, minimum=1)
                info = gr.Markdown(elem_id="segment-info")
                hyp_text = gr.HighlightedText(
                    label="Prediction: matched n-grams",
                    color_map=ORDER_COLORS,
                    show_legend=True,
                    show_inline_category=False,
                    elem_id="highlight-prediction",
                )
                ref_text = gr.HighlightedText(
                    label="Chosen reference: matched n-grams",
                    color_map=ORDER_COLORS,
                    show_legend=True,
                    show_inline_category=False,
                    elem_id="highlight-reference",
                )
            with gr.Tab("Segments"):
                table = gr.Dataframe(
                    label="Sentence scores (click a column header to sort, a row to explain it)",
                    interactive=False,
                    wrap=True,
                    column_widths=["5%", "7%", "34%", "34%", "5%", "7%", "8%"],
                    max_height=520,
                    elem_id="segments",
                )
            with gr.Tab("Distribution"):
                plot = gr.BarPlot(
                    x="sentence GLEU",
                    y="segments",
                    title="Distribution of sentence scores",
                    sort="x",
                    elem_id="distribution",
                )
            with gr.Tab("Raw result"):
                raw = gr.JSON(label="What the evaluate module returns (with sentence_scores)")

        button.click(
            run,
            inputs,
            [message, card, table, plot, raw, state, segment, hyp_text, ref_text, info],
            api_visibility="private",
        )
        segment.change(highlight, [state, segment], [hyp_text, ref_text, info], api_visibility="private")

        def select_row(event: gr.SelectData) -> Any:
            return int(event.row_value[0]) if event.row_value else gr.skip()

        table.select(select_row, None, segment, api_visibility="private")
        prediction_file.upload(load_predictions, prediction_file, [predictions, message], api_visibility="private")
        reference_files.upload(load_references, reference_files, [references, message], api_visibility="private")
        gr.api(compute, api_name="compute")
    demo.queue(default_concurrency_limit=CONCURRENCY, max_size=QUEUE_SIZE)
    return demo


def launch_kwargs() -> dict[str, Any]:
    """Keyword arguments of ``demo.launch`` shared by ``python app.py`` and the tests
    (a fresh dict each time: gradio adds to ``app_kwargs``)."""
    return {
        "theme": THEME,
        "css": CSS,
        "max_file_size": MAX_FILE_BYTES,
        "state_session_capacity": SESSION_CAPACITY,
        "app_kwargs": {"middleware": [Middleware(RequestSizeLimit, max_bytes=MAX_REQUEST_BYTES)]},
    }


demo = build()

if __name__ == "__main__":
    demo.launch(**launch_kwargs())
