"""The page's words, style and scripts: the introduction, the note on the metric, the CSS, and
what brings an answer into view."""

INTRO = """\
# Google-BLEU (GLEU)

Paste predictions and references, one segment a line (several references for a segment:
separate them with `|||`), then **Compute**; or click an example. Scores are on the 0–100
scale, equal to nltk's and HF's `google_bleu` (which give 0–1).
"""

ABOUT = """\
The sentence-level metric of Google's neural machine translation paper
([Wu et al. 2016](https://arxiv.org/abs/1609.08144)): count the n-grams of orders
`min_len`..`max_len` in the prediction and in the reference; GLEU is
**min(precision, recall) = matches / max(prediction n-grams, reference n-grams)**. The corpus
score sums matches and denominators over all segments before dividing, so it is *not* the
mean of the sentence scores. With several references, each segment keeps the reference with
the highest ratio (the first on a tie). A tab also separates references (text pasted from a
spreadsheet or a tab-separated file). The page shows scores on the 0–100 scale; the API
returns 0–1.
"""

CSS = """
#score h2 { font-size: 2.2rem; margin-bottom: 0.2rem; }
#score, #message { scroll-margin-top: 12px; }
#message, #message *, .refused, .refused * { color: #b91c1c !important; }
#loaded-predictions, #loaded-references { font-size: 0.9rem; }
/* A highlight hugs its words: gradio's margins and side padding read as spaces the text lacks
   ("sagt ,"); a hairline apart where two touch. */
#highlight-prediction .highlighted, #highlight-reference .highlighted { margin: 0 1px; padding-left: 0; padding-right: 0; }
/* The signature wraps only between its fields (after a |), never inside one ("ngram:1-4"). */
#score code.signature { display: inline; } #score .signature span { white-space: nowrap; }
/* A focus ring that a keyboard user sees at once, on every control the page has. */
button:focus-visible, [role="tab"]:focus-visible, input:focus-visible, textarea:focus-visible {
  outline: 3px solid #0f172a !important; outline-offset: 2px !important;
}
/* gradio's dropdown leaves its option list drawn when Tab moves the focus on: shown only while
   the dropdown holds the focus (choosing an option keeps it there until chosen). */
#tokenizer:not(:focus-within) ul.options, #tokenizer:not(:focus-within) .option-list { display: none !important; }
@media (max-width: 640px) {
  /* Narrower tab buttons: all four fit, none folds into a menu. */
  #results .tab-container button { padding: 0 10px !important; }
}
"""


def into_view(first: str, second: str, block: str) -> str:
    """JavaScript that brings ``first`` (or, when it is not shown, ``second``) into view when it
    is not wholly on screen, after an event has rendered its outputs."""
    return f"""() => requestAnimationFrame(() => {{
  const shown = [document.querySelector("{first}"), document.querySelector("{second}")].find(e => e && e.offsetHeight);
  const box = shown && shown.getBoundingClientRect();
  if (box && (box.top < 0 || box.bottom > window.innerHeight)) shown.scrollIntoView({{block: "{block}"}});
}})"""


#: After Compute or an example: the score (or the message after bad input). On a phone the
#: examples sit below the result, and the boxes may have grown with an example's text.
SHOW_RESULT = into_view("#score", "#message", "start")


#: Run once the page is loaded (``gr.HTML``'s ``js_on_load``, where ``props`` and ``trigger``
#: are gradio's): the names and sizes of the files chosen or dropped on either upload, sent to
#: the page (:func:`space.page.chosen_files`) before gradio checks and sends them.
WATCH_UPLOADS = """
const which = (target) => target && target.closest && (
  target.closest('#prediction-file') ? 'predictions' : target.closest('#reference-files') ? 'references' : null);
const report = (where, files) => {
  if (!where || !files || !files.length) return;
  props.value = JSON.stringify({which: where, at: Date.now(),
    files: Array.from(files, (file) => ({name: file.name, size: file.size}))});
  trigger('submit');
};
document.addEventListener('change', (event) => report(which(event.target), event.target.files), true);
document.addEventListener('drop', (event) => report(which(event.target), event.dataTransfer && event.dataTransfer.files), true);
"""
