"""What the page shows, from the statistics and the text: the score card, the segments table,
the histogram and one segment's highlighted explanation; scores on the 0-100 scale, saying so.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

from google_bleu import GLEU, GleuScore, GleuStats
from google_bleu.analysis import explain
from google_bleu.imports import import_optional
from google_bleu.result import figure

from .limits import MAX_CELL_CHARS, MAX_SHOWN_TOKENS, MAX_TABLE_ROWS

pd = import_optional("pandas", "app", "the Space (app.py)")

#: The scale scores are shown on, stated wherever one is.
SCALE = "0–100"
#: Decimals of the scores shown.
WIDTH = 2
ORDER_COLORS = {"1-gram": "#fde68a", "2-gram": "#fdba74", "3-gram": "#fb923c", "4-gram": "#f472b6"}

Spans = list[tuple[str, "str | None"]]


def percent(value: float) -> str:
    """A segment's 0-1 value as the score card prints scores (:meth:`GleuScore.figures`).

    Example:
        >>> percent(0.3333333333333333), percent(1.0)
        ('33.33', '100.00')
    """
    return figure(value, WIDTH, 100).text


def score_card(result: GleuScore, n_segments: int) -> str:
    """The corpus result as markdown: :meth:`GleuScore.figures` on the 0-100 scale.

    Each order's own score follows when the result has them (:attr:`GleuScore.orders`).

    Example:
        >>> print(score_card(GLEU(max_len=2).corpus_score(["a b c"], [["a b d"]], by_order=True), 1))  # doctest: +ELLIPSIS
        ## GLEU (0–100): 60.00
        precision **60.00** · recall **60.00** · 1 segment
        <BLANKLINE>
        1-gram **66.67** · 2-gram **50.00**
        <BLANKLINE>
        <code class="signature"><span>nrefs:1</span>|<wbr>...<span>ngram:1-2</span>|<wbr><span>version:...</span></code>
    """
    figures = result.figures(WIDTH, 100)
    card = (
        f"## GLEU ({SCALE}): {figures['score']}\n"
        f"precision **{figures['precision']}** · recall **{figures['recall']}** · "
        f"{n_segments:,} segment{'s' if n_segments != 1 else ''}\n\n"
    )
    if result.orders:  # each order's own GLEU: the corpus score of orders n-n
        card += " · ".join(f"{n}-gram **{order.figures(WIDTH, 100)['score']}**" for n, order in result.orders) + "\n\n"
    return card + signature_html(result.signature)


def signature_html(signature: str) -> str:
    """The signature as inline code that a narrow screen wraps only after a ``|`` (each field a
    span the page's style keeps on one line); the text, and what a copy gives, is the signature.

    Example:
        >>> signature_html("nrefs:1|ngram:1-4")
        '<code class="signature"><span>nrefs:1</span>|<wbr><span>ngram:1-4</span></code>'
    """
    fields = (f"<span>{html.escape(field)}</span>" for field in signature.split("|"))
    return f'<code class="signature">{"|<wbr>".join(fields)}</code>'


def _cell(text: str) -> str:
    """A table cell: at most ``MAX_CELL_CHARS`` characters, saying how many more there are."""
    if len(text) <= MAX_CELL_CHARS:
        return text
    return f"{text[:MAX_CELL_CHARS]}… (+{len(text) - MAX_CELL_CHARS:,} characters)"


def segment_table(stats: GleuStats, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> pd.DataFrame:
    """The first ``MAX_TABLE_ROWS`` segments: number, score (0-100), prediction, the chosen
    reference (the engine's) and counts."""
    shown = min(len(stats), MAX_TABLE_ROWS)
    rows = stats.rows[:shown]
    chosen = np.maximum(stats.reference_index[:shown], 0).tolist()  # -1: no candidate, show the first
    return pd.DataFrame(
        {
            "#": np.arange(1, shown + 1),
            f"GLEU ({SCALE})": np.round(100 * stats.sentence_scores()[:shown], 2),
            "prediction": [_cell(text) for text in predictions[:shown]],
            "chosen reference": [_cell(refs[j]) for refs, j in zip(references[:shown], chosen)],
            "ref": [j + 1 for j in chosen],
            "n_match": rows[:, 0],
            "n_all": rows[:, 3],
        }
    )


#: The width of each column of :func:`segment_table`, in px: no header breaks inside a word
#: (its sort menu beside it), and the two texts get room to read.
COLUMN_WIDTHS = ["48px", "124px", "250px", "250px", "52px", "92px", "72px"]


def table_label(n_segments: int) -> str:
    """The table's label, saying when rows are left out."""
    label = "Sentence scores (click a column header to sort, a row to explain it)"
    if n_segments > MAX_TABLE_ROWS:
        label += (
            f"; the first {MAX_TABLE_ROWS:,} of {n_segments:,} segments are listed, "
            "any other is explained by its number in Why this score"
        )
    return label


def score_histogram(sentence_scores: np.ndarray) -> pd.DataFrame:
    """Counts of sentence scores in ten bins of width 10 on the 0-100 scale (the last one
    includes 100)."""
    counts, edges = np.histogram(100 * np.asarray(sentence_scores), bins=10, range=(0.0, 100.0))
    labels = [f"{low:.0f}–{high:.0f}" for low, high in zip(edges[:-1], edges[1:])]
    return pd.DataFrame({f"sentence GLEU ({SCALE})": labels, "segments": counts})


def align(text: str, tokens: Sequence[str]) -> list[tuple[int, int]] | None:
    """Where each token lies in ``text``, left to right, when the tokens are the text's own
    characters with only whitespace between them; ``None`` when the tokenizer changed the text
    (lowercased it, unescaped ``&quot;``, ...).

    Example:
        >>> align("28-jähriger  Mann", ["28", "-", "jähriger", "Mann"])
        [(0, 2), (2, 3), (3, 11), (13, 17)]
        >>> align("A &quot;b&quot;", ["A", '"', "b", '"']) is None
        True
    """
    spans = []
    at = 0
    for token in tokens:
        while at < len(text) and text[at].isspace():
            at += 1
        if not isinstance(token, str) or not token or not text.startswith(token, at):
            return None
        spans.append((at, at + len(token)))
        at += len(token)
    return spans


def spans(text: str, tokens: Sequence[str], orders: list[int], joins: list[bool], lowercase: bool = False) -> Spans:
    """The highlighted text of one side: the words as written where the tokens align with the
    text, lowercased first with ``lowercase`` (else the tokens joined by spaces), each coloured
    by the longest matched n-gram it belongs to; neighbours share a highlight only when one
    matched n-gram holds both (``joins``). Only the first ``len(orders)`` tokens are shown.

    Example:
        >>> spans("28-jähriger Mann", ["28", "-", "jähriger", "Mann"], [1, 0, 2, 2], [False, False, True])
        [('28', '1-gram'), ('-', None), ('jähriger Mann', '2-gram')]
        >>> spans("the commands", ["the", "commands"], [1, 1], [False])
        [('the', '1-gram'), (' ', None), ('commands', '1-gram')]
    """
    folded = text.lower() if lowercase else text
    where = align(folded if len(folded) == len(text) else text, tokens[: len(orders)])
    out: Spans = []

    def add(piece: str, label: str | None, into_previous: bool) -> None:
        if into_previous and out:
            out[-1] = (out[-1][0] + piece, label)
        elif piece:
            out.append((piece, label))

    previous: tuple[int, str | None] = (0, None)
    for i, (token, order) in enumerate(zip(tokens, orders)):
        label = f"{order}-gram" if order else None
        if where is None:
            gap = " " if i else ""
        else:
            gap = text[previous[0] : where[i][0]]
            token = text[where[i][0] : where[i][1]]
        # Two tokens of one matched n-gram share a highlight, the space between them included;
        # unhighlighted text runs together.
        joined = label is not None and label == previous[1] and i > 0 and joins[i - 1]
        after_plain = bool(out) and out[-1][1] is None
        add(gap, label if joined else None, joined or after_plain)
        add(str(token), label, joined or (label is None and bool(out) and out[-1][1] is None))
        previous = (where[i][1] if where is not None else 0, label)
    if len(tokens) > len(orders):
        add(f" … (showing the first {len(orders):,} of {len(tokens):,} tokens)", None, bool(out) and out[-1][1] is None)
    return out or [("(empty)", None)]


def explain_segment(
    scorer: GLEU, stats: GleuStats, index: int, prediction: str, references: Sequence[str]
) -> tuple[Spans, Spans, str]:
    """Why segment ``index`` scores what it does: its prediction and chosen reference, matched
    n-grams highlighted among the first ``MAX_SHOWN_TOKENS`` tokens of each side, and the
    arithmetic from its row of ``stats``.
    """
    chosen = int(stats.reference_index[index])
    n_match, n_hyp, n_ref, n_all = stats.rows[index].tolist()
    reference = references[max(chosen, 0)]
    hyp_tokens, ref_tokens = scorer.tokenizer(prediction), scorer.tokenizer(reference)
    e = explain(hyp_tokens[:MAX_SHOWN_TOKENS], [ref_tokens[:MAX_SHOWN_TOKENS]], scorer.min_len, scorer.max_len)
    which = "" if len(references) == 1 else f" · reference {max(chosen, 0) + 1} of {len(references)} chosen"
    orders = f"{scorer.min_len}" if scorer.min_len == scorer.max_len else f"{scorer.min_len}–{scorer.max_len}"
    if n_all:
        arithmetic = (
            f"**{n_match}** matched n-grams (orders {orders}); the prediction has {n_hyp}, "
            f"the reference {n_ref}: GLEU = {n_match} / max({n_hyp}, {n_ref}) = {n_match / n_all:.4f}, "
            f"**{percent(n_match / n_all)}** on the {SCALE} scale "
            f"(precision {n_match}/{n_hyp}, recall {n_match}/{n_ref})"
        )
    else:
        arithmetic = "no n-gram on either side: GLEU 0, and the segment adds nothing to the corpus sums"
    longest = max(len(hyp_tokens), len(ref_tokens))
    cut = (
        f" Only the first {MAX_SHOWN_TOKENS:,} tokens of each side are explained ({longest:,} in the longer): "
        "the highlighted matches are those found among them."
        if longest > MAX_SHOWN_TOKENS
        else ""
    )
    info = (
        f"**Segment {index + 1}**{which}. {arithmetic}. "
        f"Each word is coloured by the longest matched n-gram it belongs to.{cut}"
    )
    return (
        spans(prediction, hyp_tokens, e.hypothesis_orders(), e.hypothesis_joins(), scorer.lowercase),
        spans(reference, ref_tokens, e.reference_orders(), e.reference_joins(), scorer.lowercase),
        info,
    )
