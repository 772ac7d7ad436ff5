"""What the command prints (docs/cli.md): JSON, a text line or table, LaTeX, bare scores. Every figure
follows :func:`~google_bleu.result.figure`; tabulate is imported only when a table is drawn."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from functools import cache
from typing import Any, TextIO

from ..result import GleuScore, dumps, figure
from ..stats import COLUMNS, GleuStats
from .options import STDIN, Options


class OutputError(Exception):
    """The output could not be written: reported in one line, exit status 1."""


class Output:
    """The output stream; an ``OSError`` while writing (not a closed pipe) becomes an :class:`OutputError`."""

    def __init__(self, stream: TextIO | None) -> None:
        if stream is None:  # started with standard output closed (>&-)
            raise OutputError("cannot write the output: standard output is closed")
        self.stream = stream

    def write(self, text: str) -> None:
        self._do(self.stream.write, text)

    def flush(self) -> None:
        self._do(self.stream.flush)

    @staticmethod
    def _do(method: Any, *args: Any) -> None:
        try:
            method(*args)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(f"cannot write the output: {error.strerror or error}") from None


def sentences(stats: GleuStats, options: Options) -> str:
    """One line a segment: its score alone (``-b``, ``-f text``), or a JSON object with its counts."""
    lines = []
    for row in stats.rows.tolist():
        score = figure(Fraction(row[0], row[3]) if row[3] else Fraction(0), options.width, options.scale)
        if options.score_only or options.format != "json":
            lines.append(f"{score}\n")
        else:
            lines.append(dumps({"score": score, "scale": f"0-{options.scale}", **dict(zip(COLUMNS, row))}) + "\n")
    return "".join(lines)


def corpus(scores: list[GleuScore], options: Options) -> str:
    """The corpus scores of the systems, in ``options.format``; with ``-b``, the scores alone
    (each system named when there are several, as sacrebleu names them)."""
    width, scale, paired = options.width, options.scale, options.paired
    names = ["stdin" if path == STDIN else path for path in options.paths]
    if options.short and options.format != "json":  # as sacrebleu: JSON keeps the full signature
        scores = [dataclasses.replace(score, signature=score.signature.formatted(short=True)) for score in scores]
    if options.score_only and len(scores) == 1:
        return scores[0].format(width, score_only=True, scale=scale) + "\n"
    if options.format == "json":
        objects = []
        for index, (name, score) in enumerate(zip(names, scores)):
            # GleuScore's object, with the system's name and the orders beside the totals.
            labels = {"system": name, **({"baseline": index == 0} if paired else {})}
            settings = {"min_len": options.scorer.min_len, "max_len": options.scorer.max_len}
            obj = score.json_object(width, scale, labels=labels, settings=settings)
            if options.score_only:
                obj = {key: obj[key] for key in ("name", *labels, "score", "scale")}
            elif paired:
                obj.setdefault("p_value", None)  # the baseline has none
            objects.append(obj)
        document: Any = objects[0] if len(objects) == 1 else objects
        return dumps(document, indent=1) + "\n"
    if options.format == "text" and len(scores) == 1 and not paired:
        return scores[0].format(width, scale=scale) + "\n"
    return _table(names, scores, options)


def _table(names: list[str], scores: list[GleuScore], options: Options) -> str:
    """Text (or LaTeX) with a row a system; with ``-b`` only the score column."""
    width, scale, latex = options.width, options.scale, options.format == "latex"
    paired = options.paired if not options.score_only else None
    with_ci = not options.score_only and any(score.ci_low is not None for score in scores)
    orders = scores[0].orders
    header = ["System", f"GLEU (scale 0-{scale})"] + ["P", "R"] * (not options.score_only)
    header += [f"orders {orders[0][0]}-{orders[-1][0]}"] if orders else []
    header += ["95% CI"] * with_ci + ["p-value"] * bool(paired)
    rows = []
    for index, (name, score) in enumerate(zip(names, scores)):
        figures = score.figures(width, scale)
        row = [f"Baseline: {name}" if options.paired and index == 0 else name, figures["score"]]
        row += [] if options.score_only else [figures["precision"], figures["recall"]]
        row += [figures["orders"]] if orders else []
        if with_ci:
            row.append(f"[{figures['ci_low']}, {figures['ci_high']}]" if score.ci_low is not None else "")
        if paired:
            row.append("" if score.p_value is None else figures["p_value"] + ("*" if score.p_value <= 0.05 else ""))
        rows.append(row)
    # Names left, numbers right, p-values left (so the digits align whether or not a * follows).
    align = ["left"] + ["right"] * (len(header) - 1 - bool(paired)) + ["left"] * bool(paired)
    from tabulate import tabulate

    # tabulate's "latex" format escapes the names (_ & % $ # { } ~ ^ \\) for LaTeX.
    style = "latex" if latex else _table_format()
    table = tabulate(rows, header, tablefmt=style, colalign=align, disable_numparse=True)
    if latex:
        return f"% GLEU|{scores[0].signature}\n{table}\n"
    text = "\n".join(line.rstrip() for line in table.splitlines()) + f"\n\nGLEU|{scores[0].signature}\n"
    if paired:
        test = "bootstrap resampling" if paired == "bs" else "approximate randomization"
        text += (
            f"Paired {test} against the baseline, two-sided, p = (c+1)/(n+1); "
            "* marks p <= 0.05. The interval is the 95% bootstrap percentile interval.\n"
        )
    return text


@cache
def _table_format() -> Any:
    """The text table: columns separated by " | ", a "-+-" rule under the header, no border."""
    from tabulate import DataRow, Line, TableFormat

    row, rule = DataRow("", " | ", ""), Line("", "-", "-+-", "")
    return TableFormat(
        lineabove=None, linebelowheader=rule, linebetweenrows=None, linebelow=None, headerrow=row, datarow=row,
        padding=0, with_header_hide=None,
    )
