"""Performance tables of the docs, generated from the recorded runs in ``benchmarks/results``.

No figure in the docs is typed by hand: every table between the markers

    <!-- results: NAME -->
    ...generated...
    <!-- /results -->

in a page under ``docs/`` is rewritten from ``benchmarks/results/NAME.json``, and the
marker ``<!-- results: all -->`` (on the performance page) holds every results file, one
section each. Figures named by a results file are copied to ``docs/figures/`` so that the
site can show them. ``make bench`` runs this script at its end and ``make docs`` before
building; ``--check`` only compares and exits 1 when a page or figure is stale (the test
suite runs it).

A results file is one recorded run, kept with the machine and versions it ran on. Two
shapes are read:

1. The shape any benchmark may write (schema 1)::

       {
         "schema": 1,
         "title": "Batched token-id GLEU on a GPU",      # the section heading
         "order": 30,                                    # optional sort key (default 50)
         "date": "2026-11-23",                           # optional: when it ran
         "command": "make bench-batched",                # optional: how to run it again
         "machine": {"cpu": "...", "cores": 16, "python": "3.12", "torch": "2.11.0"},
         "notes": ["a paragraph under the tables", "..."],  # optional
         "figures": [{"path": "growth.png", "caption": "..."}],  # optional, beside the file
         "tables": [
           {
             "caption": "optional line above the table",
             "columns": [
               {"key": "rows", "label": "rows", "format": ","},
               {"key": "nltk_s", "label": "nltk loop", "format": ".3f", "unit": " s"},
               {"key": "identical", "label": "identical"}
             ],
             "rows": [{"rows": 256, "nltk_s": 0.168, "identical": true}]
           }
         ]
       }

   ``machine`` is a flat mapping of names to strings or numbers, printed in its order.
   A column's ``format`` is a Python format spec applied to numbers (``","`` for
   thousands, ``".2f"``, ``".1f"`` ...), then ``unit`` is appended; ``true``/``false``
   print as ``yes``/``NO``, ``null`` or a missing key as ``-``, strings as they are.
   Numeric columns are right-aligned.

2. The file ``benchmarks/run.py`` writes (``make bench``: keys ``machine``, ``rows``,
   ``memory``, ``growth``, ``cold``), converted to the shape above.

Usage: ``python benchmarks/report.py [--check] [--results DIR] [--docs DIR]``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
DOCS = REPO / "docs"
FIGURES = "figures"

_REGION = re.compile(
    r"(?P<open><!-- results: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(?P<close><!-- /results -->)", re.DOTALL
)


class SchemaError(ValueError):
    """A results file that does not follow the documented shape."""


# -- reading ------------------------------------------------------------------------
def _core_run(data: dict[str, Any]) -> dict[str, Any]:
    """The file of ``benchmarks/run.py`` in schema 1."""
    info = data["machine"]
    machine = {
        "cpu": info.get("cpu"),
        "cores": info.get("cores"),
        "os": info.get("os"),
        "python": info.get("python"),
        "numpy": info.get("numpy"),
        "nltk": info.get("nltk"),
        "sacrebleu": info.get("sacrebleu"),
    }
    if info.get("load_average"):
        machine["load average at start"] = ", ".join(f"{value:.2f}" for value in info["load_average"])
    rows = [dict(row, speedup=row["anchor_s"] / row["ours_s"]) for row in data["rows"]]
    growth = [dict(row, ratio=row["nltk_s"] / row["ours_s"]) for row in data.get("growth", [])]
    for row in growth:
        row["nltk_how"] = "measured" if row["nltk_measured"] else "extrapolated"
    tables = [
        {
            "caption": "Anchors and ours on the same data; best of interleaved runs, every result checked `==`.",
            "columns": [
                {"key": "benchmark", "label": "benchmark"},
                {"key": "data", "label": "data"},
                {"key": "anchor", "label": "anchor"},
                {"key": "anchor_s", "label": "anchor time", "format": ".2f", "unit": " s"},
                {"key": "ours_s", "label": "ours", "format": ".2f", "unit": " s"},
                {"key": "speedup", "label": "speed-up", "format": ".1f", "unit": "x"},
                {"key": "identical", "label": "identical"},
            ],
            "rows": rows,
        }
    ]
    if data.get("memory"):
        tables.append(
            {
                "caption": "Memory: peak RSS while scoring, above the RSS with the input built; "
                "one fresh process a size.",
                "columns": [
                    {"key": "pairs", "label": "pairs", "format": ","},
                    {"key": "kind", "label": "input"},
                    {"key": "input_mb", "label": "input RSS", "format": ".0f", "unit": " MB"},
                    {"key": "extra_peak_mb", "label": "extra peak RSS", "format": ".0f", "unit": " MB"},
                    {"key": "seconds", "label": "time", "format": ".2f", "unit": " s"},
                ],
                "rows": data["memory"],
            }
        )
    if growth:
        tables.append(
            {
                "caption": "Growth: token lists, 1 reference; nltk is extrapolated linearly where marked.",
                "columns": [
                    {"key": "pairs", "label": "pairs", "format": ","},
                    {"key": "ours_s", "label": "ours", "format": ".3f", "unit": " s"},
                    {"key": "nltk_s", "label": "nltk", "format": ".2f", "unit": " s"},
                    {"key": "nltk_how", "label": "nltk time"},
                    {"key": "ratio", "label": "ratio", "format": ".1f", "unit": "x"},
                ],
                "rows": growth,
            }
        )
    out: dict[str, Any] = {
        "schema": 1,
        "title": "Core, tokenizer, end to end, memory and growth",
        "order": 10,
        "command": "make bench",
        "machine": machine,
        "tables": tables,
    }
    if (RESULTS / "growth.png").exists() and growth:
        out["figures"] = [{"path": "growth.png", "caption": "Time against corpus size, ours and nltk"}]
    if "seconds" in info:
        out["notes"] = [f"The whole run took {info['seconds']:.0f} s."]
    return out


def _check(data: Any, name: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise SchemaError(f"{name}: a results file holds one JSON object, got {type(data).__name__}")
    if "schema" not in data and {"machine", "rows"} <= data.keys():
        data = _core_run(data)
    if data.get("schema") != 1:
        raise SchemaError(f"{name}: 'schema' must be 1, got {data.get('schema')!r}")
    for key, kind in (("title", str), ("machine", dict), ("tables", list)):
        if not isinstance(data.get(key), kind):
            raise SchemaError(f"{name}: {key!r} must be a {kind.__name__}, got {data.get(key)!r}")
    if not data["tables"]:
        raise SchemaError(f"{name}: 'tables' is empty")
    for index, table in enumerate(data["tables"]):
        where = f"{name}: tables[{index}]"
        if not isinstance(table, dict) or not isinstance(table.get("columns"), list) or not table["columns"]:
            raise SchemaError(f"{where} needs a non-empty 'columns' list")
        if not all(isinstance(column, dict) and isinstance(column.get("key"), str) for column in table["columns"]):
            raise SchemaError(f"{where}: every column needs a 'key' string")
        if not isinstance(table.get("rows"), list) or not all(isinstance(row, dict) for row in table["rows"]):
            raise SchemaError(f"{where} needs a 'rows' list of objects")
    for figure in data.get("figures", []):
        if not isinstance(figure, dict) or not isinstance(figure.get("path"), str):
            raise SchemaError(f"{name}: every figure needs a 'path' string")
    return data


def load_results(folder: Path = RESULTS) -> dict[str, dict[str, Any]]:
    """Every results file of ``folder`` by name (the file name without ``.json``), in schema 1."""
    runs = {}
    for path in sorted(folder.glob("*.json")):
        runs[path.stem] = _check(json.loads(path.read_text(encoding="utf-8")), path.name)
    return runs


# -- rendering ----------------------------------------------------------------------
def _cell(value: Any, column: dict[str, Any]) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, (int, float)):
        return f"{value:{column.get('format', '')}}{column.get('unit', '')}"
    return str(value).replace("|", "\\|")


def render_table(table: dict[str, Any]) -> str:
    """One table as Markdown.

    Example:
        >>> print(render_table({"columns": [{"key": "n", "label": "pairs", "format": ","},
        ...                                 {"key": "s", "label": "time", "format": ".2f", "unit": " s"},
        ...                                 {"key": "same", "label": "identical"}],
        ...                     "rows": [{"n": 100000, "s": 0.597, "same": True}, {"n": 10}]}))
        | pairs | time | identical |
        |---:|---:|---|
        | 100,000 | 0.60 s | yes |
        | 10 | - | - |
    """
    columns = table["columns"]
    numeric = [
        any(isinstance(row.get(c["key"]), (int, float)) and not isinstance(row.get(c["key"]), bool) for row in table["rows"])
        for c in columns
    ]
    lines = [
        "| " + " | ".join(c.get("label", c["key"]) for c in columns) + " |",
        "|" + "|".join("---:" if right else "---" for right in numeric) + "|",
    ]
    for row in table["rows"]:
        lines.append("| " + " | ".join(_cell(row.get(c["key"]), c) for c in columns) + " |")
    return "\n".join(lines)


def render_run(name: str, run: dict[str, Any], heading: str = "###") -> str:
    """One recorded run: heading, how it ran, machine, tables, figures, notes."""
    parts = [f"{heading} {run['title']}", ""]
    how = [f"Results file `benchmarks/results/{name}.json`"]
    if run.get("command"):
        how.append(f"from `{run['command']}`")
    if run.get("date"):
        how.append(f"run on {run['date']}")
    parts += [", ".join(how) + ".", ""]
    machine = "; ".join(f"{key}: {value}" for key, value in run["machine"].items() if value not in (None, ""))
    parts += [f"Machine: {machine}.", ""]
    for table in run["tables"]:
        if table.get("caption"):
            parts += [table["caption"], ""]
        parts += [render_table(table), ""]
    for figure in run.get("figures", []):
        target = Path(figure["path"]).name
        parts += [f"![{figure.get('caption', target)}]({FIGURES}/{target})", ""]
    for note in run.get("notes", []):
        parts += [str(note), ""]
    return "\n".join(parts).rstrip("\n") + "\n"


def render_all(runs: dict[str, dict[str, Any]]) -> str:
    ordered = sorted(runs, key=lambda name: (runs[name].get("order", 50), name))
    return "\n".join(render_run(name, runs[name]) for name in ordered)


def update_page(text: str, runs: dict[str, dict[str, Any]], page: str) -> str:
    """``text`` with every results region regenerated."""

    def replace(match: re.Match) -> str:
        name = match["name"]
        if name == "all":
            body = render_all(runs)
        elif name in runs:
            body = render_run(name, runs[name])
        else:
            raise SchemaError(f"{page} shows results {name!r}, but benchmarks/results/{name}.json does not exist")
        return f"{match['open']}{body}{match['close']}"

    return _REGION.sub(replace, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a page or figure is stale")
    parser.add_argument("--results", default=str(RESULTS), help="folder of the results files")
    parser.add_argument("--docs", default=str(DOCS), help="folder of the pages")
    args = parser.parse_args(argv)
    results, docs = Path(args.results), Path(args.docs)
    try:
        runs = load_results(results)
    except (SchemaError, json.JSONDecodeError) as error:
        print(f"report.py: error: {error}", file=sys.stderr)
        return 2
    stale = []
    for page in sorted(docs.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        try:
            new = update_page(text, runs, page.name)
        except SchemaError as error:
            print(f"report.py: error: {error}", file=sys.stderr)
            return 2
        if new != text:
            stale.append(str(page.relative_to(docs.parent)))
            if not args.check:
                page.write_text(new, encoding="utf-8")
    for run in runs.values():
        for figure in run.get("figures", []):
            source = results / figure["path"]
            target = docs / FIGURES / source.name
            if not source.exists():
                print(f"report.py: error: figure {source} does not exist", file=sys.stderr)
                return 2
            if not target.exists() or target.read_bytes() != source.read_bytes():
                stale.append(str(target.relative_to(docs.parent)))
                if not args.check:
                    target.parent.mkdir(exist_ok=True)
                    shutil.copyfile(source, target)
    if args.check:
        if stale:
            print("report.py: stale (run python benchmarks/report.py): " + ", ".join(stale), file=sys.stderr)
            return 1
        return 0
    print(f"report.py: {len(runs)} results files; updated {', '.join(stale) if stale else 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
