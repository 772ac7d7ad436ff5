"""The Gradio Space for google-bleu: score, compare and see why, in the browser.

The entry point: the page's layout and its wiring. Limits, input checks, rendering and the
handlers live in :mod:`google_bleu.space` (``limits``, ``inputs``, ``render``, ``page``);
scoring is the core's :class:`google_bleu.GLEU`. Run it with ``make app`` (or
``python app.py``). Besides the page it serves one named API endpoint, ``compute``
(values 0-1, as the evaluate module returns them; the page shows 0-100)::

    from gradio_client import Client
    Client("http://127.0.0.1:7860/").predict(
        "the cat sat on the mat", "the cat ate the mat", "13a", 1, 4, False, api_name="/compute"
    )  # GleuScore.to_dict() (the evaluate module's keys and the exact totals), with sentence_scores

On a Space the package is not installed: this file imports ``google_bleu`` from the folder
beside it, and ``requirements.txt`` lists what the page needs.
"""

from __future__ import annotations

from typing import Any

from google_bleu import _import_optional
from google_bleu.space import limits, page, render
from google_bleu.space.examples import examples
from google_bleu.space.inputs import TOKENIZERS
from google_bleu.validation import MAX_ORDER

gr = _import_optional("gradio", "app", "the Space (app.py)")
Middleware = _import_optional("starlette.middleware", "app", "the Space (app.py)").Middleware

INTRO = """\
# Google-BLEU (GLEU)

The sentence-level metric of Google's neural machine translation paper
([Wu et al. 2016](https://arxiv.org/abs/1609.08144)): count the n-grams of orders
`min_len`..`max_len` in the prediction and in the reference; GLEU is
**min(precision, recall) = matches / max(prediction n-grams, reference n-grams)**. The corpus
score sums matches and denominators over all segments before dividing, so it is *not* the
mean of the sentence scores. With several references, each segment keeps the reference with
the highest ratio (the first on a tie). Numbers are identical to nltk's `corpus_gleu` and to
HF's `google_bleu`; this page shows them on the 0–100 scale (the API returns 0–1).

Paste one segment a line (several references for a segment: separate them with a **tab**),
or upload `.txt` files, then **Compute**; or click an example.
"""

CSS = """
#score h2 { font-size: 2.2rem; margin-bottom: 0.2rem; }
#message, #message * { color: #b91c1c !important; }
"""

# System fonts: the page loads nothing from outside the Space.
THEME = gr.themes.Soft(font=["system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"])


def _highlighted(label: str, elem_id: str) -> gr.HighlightedText:
    return gr.HighlightedText(
        label=label, color_map=render.ORDER_COLORS, show_legend=True, show_inline_category=False, elem_id=elem_id
    )


def build() -> gr.Blocks:
    """The page and its API."""
    with gr.Blocks(title="Google-BLEU (GLEU)", analytics_enabled=False, delete_cache=limits.UPLOAD_CLEANUP) as demo:
        gr.Markdown(INTRO)
        with gr.Row():
            with gr.Column(scale=3):
                box = {"lines": 6, "max_lines": 14}
                predictions = gr.Textbox(
                    label="Predictions (one segment a line)", placeholder="the cat sat on the mat",
                    elem_id="predictions", **box,
                )
                references = gr.Textbox(
                    label="References (one segment a line; several references: separated by tabs)",
                    placeholder="the cat ate the mat", elem_id="references", **box,
                )
                with gr.Accordion("Upload files instead (.txt, UTF-8, one segment a line)", open=False):
                    with gr.Row():
                        prediction_file = gr.File(
                            label="Predictions file", file_types=limits.UPLOAD_TYPES, type="filepath"
                        )
                        reference_files = gr.File(
                            label="Reference files (one per reference)", file_count="multiple",
                            file_types=limits.UPLOAD_TYPES, type="filepath",
                        )
            with gr.Column(scale=1, min_width=220):
                tokenizer = gr.Dropdown(TOKENIZERS, value="13a", label="Tokenizer")
                min_len = gr.Number(1, label="min_len", precision=0, minimum=1, maximum=MAX_ORDER)
                max_len = gr.Number(4, label="max_len", precision=0, minimum=1, maximum=MAX_ORDER)
                lowercase = gr.Checkbox(False, label="Lowercase")
                button = gr.Button("Compute", variant="primary", elem_id="compute")
        inputs = [predictions, references, tokenizer, min_len, max_len, lowercase]
        message = gr.Markdown(visible=False, elem_id="message")
        state = gr.State(None)
        # Hidden until the first score: no empty panels before it.
        with gr.Column(visible=False, elem_id="results") as results:
            card = gr.Markdown(elem_id="score")
            with gr.Tabs():
                with gr.Tab("Why this score"):
                    segment = gr.Number(1, label="Segment (or click a row of the table)", precision=0, minimum=1)
                    info = gr.Markdown(elem_id="segment-info")
                    hyp_text = _highlighted("Prediction: matched n-grams", "highlight-prediction")
                    ref_text = _highlighted("Chosen reference: matched n-grams", "highlight-reference")
                with gr.Tab("Segments"):
                    table = gr.Dataframe(
                        label=render.table_label(0), interactive=False, wrap=True, max_height=520,
                        column_widths=["5%", "9%", "33%", "33%", "5%", "7%", "8%"], elem_id="segments",
                    )
                with gr.Tab("Distribution"):
                    plot = gr.BarPlot(
                        x=f"sentence GLEU ({render.SCALE})", y="segments", sort="x",
                        title=f"Distribution of sentence scores ({render.SCALE})", elem_id="distribution",
                    )
                with gr.Tab("Raw result"):
                    raw = gr.JSON(
                        label="What the evaluate module returns (values 0–1; sentence scores: the Segments tab "
                        "or the compute endpoint)"
                    )
        outputs = [message, results, card, table, plot, raw, state, segment, hyp_text, ref_text, info]
        rows, labels = examples()
        gr.Examples(
            rows, inputs, outputs, page.run, run_on_click=True, cache_examples=False,
            example_labels=labels, label="Examples (click one to score it)",
        )
        button.click(page.run, inputs, outputs, api_visibility="private")
        segment.change(
            page.highlight, [state, predictions, references, segment], [hyp_text, ref_text, info],
            api_visibility="private",
        )
        table.select(page.select_row, state, [segment, message], api_visibility="private")
        prediction_file.upload(
            page.load_predictions, prediction_file, [predictions, message, prediction_file], api_visibility="private"
        )
        reference_files.upload(
            page.load_references, reference_files, [references, message, reference_files], api_visibility="private"
        )
        gr.api(page.compute, api_name="compute")
    demo.queue(default_concurrency_limit=limits.CONCURRENCY, max_size=limits.QUEUE_SIZE)
    return demo


def launch_kwargs() -> dict[str, Any]:
    """Keyword arguments of ``demo.launch`` shared by ``python app.py`` and the tests
    (a fresh dict each time: gradio adds to ``app_kwargs``)."""
    return {
        "theme": THEME,
        "css": CSS,
        "max_file_size": limits.MAX_FILE_BYTES,
        "state_session_capacity": limits.SESSION_CAPACITY,
        "app_kwargs": {"middleware": [Middleware(limits.RequestSizeLimit, max_bytes=limits.MAX_REQUEST_BYTES)]},
    }


demo = build()

if __name__ == "__main__":
    demo.launch(**launch_kwargs())
