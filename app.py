"""The Gradio Space: the page's layout and wiring, run with ``python app.py`` (``make app``).

Its parts are in ``space/`` beside this file; docs/space.md describes the page, its limits and
its ``compute`` endpoint.
"""

from __future__ import annotations

from typing import Any

from google_bleu.imports import import_optional
from space import limits, page, render
from space.content import ABOUT, CSS, INTRO, SHOW_RESULT, WATCH_UPLOADS, into_view
from space.examples import examples
from space.inputs import TOKENIZERS

gr = import_optional("gradio", "app", "the Space (app.py)")
Middleware = import_optional("starlette.middleware", "app", "the Space (app.py)").Middleware

# System fonts: the page loads nothing from outside the Space.
THEME = gr.themes.Soft(font=["system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"])


def _highlighted(label: str, elem_id: str) -> gr.HighlightedText:
    return gr.HighlightedText(
        label=label, color_map=render.ORDER_COLORS, show_legend=True, show_inline_category=False, elem_id=elem_id
    )


def build() -> gr.Blocks:
    """The page (its order: docs/space.md, *Layout*) and the ``compute`` endpoint."""
    with gr.Blocks(title="Google-BLEU (GLEU)", analytics_enabled=False, delete_cache=limits.UPLOAD_CLEANUP) as demo:
        gr.Markdown(INTRO)
        tokenizer = gr.Dropdown(TOKENIZERS, value="13a", label="Tokenizer", render=False, elem_id="tokenizer")
        # No bounds or rounding of gradio's (error pills, 1.5 read as 2): page.run says what is wrong.
        min_len = gr.Number(1, label="min_len", render=False, min_width=80)
        max_len = gr.Number(4, label="max_len", render=False, min_width=80)
        lowercase = gr.Checkbox(False, label="Lowercase", render=False)
        with gr.Row(elem_id="main"):
            with gr.Column(scale=3, elem_id="main-left"):
                with gr.Column(elem_id="boxes"):
                    box = {"lines": 4, "max_lines": 14}
                    predictions = gr.Textbox(
                        label="Predictions (one segment a line)", placeholder="the cat sat on the mat",
                        elem_id="predictions", **box,
                    )
                    references = gr.Textbox(
                        label="References (one a line; several for a segment: separated by |||)",
                        placeholder="the cat ate the mat ||| a cat was on the mat", elem_id="references", **box,
                    )
                inputs = [predictions, references, tokenizer, min_len, max_len, lowercase]
                button = gr.Button("Compute", variant="primary", elem_id="compute")
                message = gr.Markdown(visible=False, elem_id="message")
                state = gr.State(None)
                # Hidden until the first score: no empty panels before it; then right under Compute.
                with gr.Column(visible=False, elem_id="results") as results:
                    card = gr.Markdown(elem_id="score")
                    # Short tab names: all four stay visible on a phone.
                    with gr.Tabs():
                        with gr.Tab("Why", elem_id="tab-why"):
                            segment = gr.Number(  # unbounded too: page.highlight says what is wrong
                                1, label="Segment number (or click its row under Segments)", elem_id="segment"
                            )
                            info = gr.Markdown(elem_id="segment-info")
                            hyp_text = _highlighted("Prediction: matched n-grams", "highlight-prediction")
                            ref_text = _highlighted("Chosen reference: matched n-grams", "highlight-reference")
                        with gr.Tab("Segments", elem_id="tab-segments"):
                            table = gr.Dataframe(
                                label=render.table_label(0), interactive=False, wrap=True, max_height=520,
                                column_widths=render.COLUMN_WIDTHS, elem_id="segments",
                            )
                        with gr.Tab("Histogram", elem_id="tab-histogram"):
                            plot = gr.BarPlot(
                                x=f"sentence GLEU ({render.SCALE})", y="segments", sort="x", x_label_angle=-45,
                                title=f"Sentence scores ({render.SCALE})", elem_id="distribution",
                            )
                        with gr.Tab("Raw", elem_id="tab-raw"):
                            raw = gr.JSON(
                                label="What the evaluate module returns (values 0–1; sentence scores: the Segments "
                                "tab or the compute endpoint)"
                            )
                outputs = [message, results, card, table, plot, raw, state, segment, hyp_text, ref_text, info]
                rows, labels = examples()
                with gr.Column(elem_id="examples"):
                    shown = gr.Examples(
                        rows, inputs, cache_examples=False, example_labels=labels,
                        label="Examples (click one to score it; GLEU: the score the metric card gives, 0–100)",
                    )
            with gr.Column(scale=1, min_width=220, elem_id="settings"):
                tokenizer.render()
                with gr.Row():
                    min_len.render()
                    max_len.render()
                lowercase.render()
        with gr.Accordion("Upload files instead (.txt, UTF-8, one segment a line)", open=False):
            with gr.Row():
                with gr.Column():
                    prediction_file = gr.File(
                        label="Predictions file", file_types=limits.UPLOAD_TYPES, type="filepath", elem_id="prediction-file"
                    )
                    loaded_predictions = gr.Markdown(visible=False, elem_id="loaded-predictions")
                with gr.Column():
                    reference_files = gr.File(
                        label=f"Reference files (one per reference, at most {limits.MAX_REFERENCES})",
                        file_count="multiple", file_types=limits.UPLOAD_TYPES, type="filepath", elem_id="reference-files",
                    )
                    loaded_references = gr.Markdown(visible=False, elem_id="loaded-references")
        with gr.Accordion("About GLEU", open=False):
            gr.Markdown(ABOUT)
        chosen = gr.HTML("", html_template="", js_on_load=WATCH_UPLOADS, elem_id="upload-watch", padding=False)
        left_out = gr.State(None)
        # Compute, or a click on an example: the score (or the message) is brought into view.
        button.click(page.run, inputs, outputs, api_visibility="private").then(None, js=SHOW_RESULT)
        shown.load_input_event.then(page.run, inputs, outputs, api_visibility="private").then(None, js=SHOW_RESULT)
        segment.change(
            page.highlight, [state, predictions, references, segment], [hyp_text, ref_text, info],
            api_visibility="private",
        )
        table.select(page.select_row, state, [segment, message], api_visibility="private")
        # An upload: the note under it (which file was loaded, or why not) in view.
        prediction_file.upload(
            page.load_predictions, prediction_file,
            [predictions, message, prediction_file, loaded_predictions, results, state], api_visibility="private",
        ).then(None, js=into_view("#loaded-predictions", "#loaded-predictions", "nearest"))
        reference_files.upload(
            page.load_references, [reference_files, left_out],
            [references, message, reference_files, loaded_references, results, state], api_visibility="private",
        ).then(None, js=into_view("#loaded-references", "#loaded-references", "nearest"))
        chosen.submit(page.chosen_files, chosen, [loaded_predictions, loaded_references, left_out], api_visibility="private")
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
        "app_kwargs": {
            "max_body_size": limits.MAX_REQUEST_BYTES,
            "middleware": [Middleware(limits.UploadLimit)],
        },
    }


demo = build()

if __name__ == "__main__":
    demo.launch(**launch_kwargs())
