"""The page's words and style: the introduction, the note on the metric, the CSS."""

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
#message, #message * { color: #b91c1c !important; }
#loaded-predictions, #loaded-references { font-size: 0.9rem; }
/* A phone stacks one column: the boxes, Compute and its message, the examples, the settings. */
@media (max-width: 640px) {
  #main { flex-direction: column; }
  #main-left, #main-right { display: contents; }
  #boxes { order: 1; } #compute { order: 2; } #message { order: 3; } #examples { order: 4; } #settings { order: 5; }
  /* Narrower tab buttons: all four fit, none folds into a menu. */
  #results .tab-container button { padding: 0 10px !important; }
}
"""
