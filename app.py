"""The Gradio Space for google-bleu (minimal placeholder until the Space work lands)."""

import gradio as gr

from google_bleu import text_stats


def compute(predictions: str, references: str) -> float:
    """Scores newline-separated predictions against newline-separated references."""
    return text_stats(predictions.split("\n"), references.split("\n")).score()


demo = gr.Interface(fn=compute, inputs=["text", "text"], outputs="number", title="Google-BLEU")

if __name__ == "__main__":
    demo.launch()
