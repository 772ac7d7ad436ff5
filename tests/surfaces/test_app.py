"""The Space (app.py): the real app on a local port, driven with gradio_client and HTTP.

Scores through the ``compute`` endpoint equal the evaluate module's and ``GLEU``'s on real
data; bad input of every class gives its message (never a traceback); oversize bodies are
refused before they are parsed; concurrent requests get their own results. The page's
helpers are tested directly; the page itself in a real browser in test_browser.py, and
under load in test_app_load.py.
"""

from __future__ import annotations

import doctest
import http.client
import json
import os
import re
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import evaluate
import gradio
import httpx
import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

import app
from google_bleu import GLEU, explain, get_tokenizer
from space import inputs, limits, page, render
from tests.helpers.oracles import CARD_PREDICTIONS, CARD_REFERENCES, REPO, SAMPLES, read_lines


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(str(REPO / "google_bleu"))


@pytest.fixture(scope="module")
def client(app_url):
    return Client(app_url, verbose=False)


def as_lines(lines):
    """Lines as a file holds them: each ends with a newline (so a last empty line is kept)."""
    return "".join(line + "\n" for line in lines)


def as_text(references):
    """References in the page's format: one line a segment, several separated by tabs."""
    return as_lines("\t".join(refs) if isinstance(refs, list) else refs for refs in references)


def call(client, predictions, references, tokenizer="13a", min_len=1, max_len=4, lowercase=False):
    return client.predict(
        as_lines(predictions), as_text(references), tokenizer, min_len, max_len, lowercase, api_name="/compute"
    )


def expected(metric, predictions, references, **options):
    """The evaluate module's dict plus the exact totals of ``GLEU`` on the same input."""
    out = metric.compute(predictions=predictions, references=references, return_sentence_scores=True, **options)
    totals = GLEU(**options).corpus_score(predictions, references).to_dict()
    assert {key: totals[key] for key in ("google_bleu", "precision", "recall", "signature")} == {
        key: out[key] for key in ("google_bleu", "precision", "recall", "signature")
    }
    return {**out, **{key: totals[key] for key in ("n_match", "n_hyp", "n_ref", "n_all")}}


# -- the Space files --------------------------------------------------------------------
def test_space_front_matter_matches_requirements_and_installed_gradio():
    front = (REPO / "README.md").read_text(encoding="utf-8").split("---\n")[1]
    fields = dict(line.split(": ", 1) for line in front.splitlines() if ": " in line and not line.startswith(" "))
    pins = re.findall(r"^gradio==(\S+)$", (REPO / "requirements.txt").read_text(encoding="utf-8"), re.M)
    assert fields["sdk"] == "gradio" and fields["app_file"] == "app.py"
    assert pins == [fields["sdk_version"]] == [gradio.__version__]
    assert "- evaluate" in front and "- metric" in front


@pytest.mark.parametrize("module", [app, inputs, limits, page, render])
def test_helpers_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_app_is_a_short_entry_point():
    assert len((REPO / "app.py").read_text(encoding="utf-8").splitlines()) <= 170


def test_endpoint_is_named_compute(client):
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert list(endpoints) == ["/compute"]
    names = [parameter["parameter_name"] for parameter in endpoints["/compute"]["parameters"]]
    assert names == ["predictions", "references", "tokenizer", "min_len", "max_len", "lowercase"]


# -- numbers equal the evaluate module ----------------------------------------------------
@pytest.mark.parametrize(("min_len", "max_len"), [(1, 4), (2, 4), (2, 6)])
def test_metric_card_examples(client, metric, min_len, max_len):
    got = call(client, CARD_PREDICTIONS, CARD_REFERENCES, min_len=min_len, max_len=max_len)
    assert got == expected(metric, CARD_PREDICTIONS, CARD_REFERENCES, min_len=min_len, max_len=max_len)
    assert round(got["google_bleu"], 2) == {(1, 4): 0.61, (2, 4): 0.53, (2, 6): 0.4}[(min_len, max_len)]


@pytest.mark.parametrize(
    ("pair", "tokenizer", "lowercase"), [("wmt17_en_de", "13a", False), ("wmt22_en_ja", "char", True)]
)
def test_bundled_sample_equals_evaluate(client, metric, pair, tokenizer, lowercase):
    folder = SAMPLES / pair
    references = read_lines(folder / "ref0.txt")
    for system in sorted(folder.glob("sys_*.txt")):
        predictions = read_lines(system)
        got = call(client, predictions, references, tokenizer, lowercase=lowercase)
        assert got == expected(metric, predictions, references, tokenizer=tokenizer, lowercase=lowercase)
        assert len(got["sentence_scores"]) == len(predictions)


def test_several_references_from_real_systems(client, metric):
    folder = SAMPLES / "wmt17_en_de"
    systems = sorted(folder.glob("sys_*.txt"))
    predictions = read_lines(systems[0])
    references = [list(refs) for refs in zip(read_lines(folder / "ref0.txt"), *map(read_lines, systems[1:]))]
    got = call(client, predictions, references, min_len=1, max_len=3)
    assert got == expected(metric, predictions, references, min_len=1, max_len=3)
    assert got["signature"].startswith("nrefs:4|")


@pytest.mark.parametrize(
    ("pair", "tokenizer"), [("wmt17_en_de", "13a"), ("wmt22_en_ja", "char"), ("wmt15_en_ru", "none")]
)
def test_shared_data_equals_evaluate(client, metric, shared_data, pair, tokenizer):
    folder = shared_data / pair
    references = read_lines(folder / "ref0.txt")
    system = sorted(folder.glob("sys_*.txt"))[-1]
    predictions = read_lines(system)
    assert call(client, predictions, references, tokenizer) == expected(
        metric, predictions, references, tokenizer=tokenizer
    )


def test_empty_predictions_are_scored_not_dropped(client, metric):
    predictions = ["", "the cat sat on the mat", ""]
    references = ["a reference", "the cat ate the mat", ""]
    got = call(client, predictions, references)
    assert got == expected(metric, predictions, references)
    assert got["sentence_scores"] == [0.0, 0.3333333333333333, 0.0]
    # The real sample's empty output line is scored as well.
    lines = read_lines(SAMPLES / "wmt22_en_ja" / "sys_Online-W.txt")
    assert "" in lines
    got = call(client, lines, read_lines(SAMPLES / "wmt22_en_ja" / "ref0.txt"), "char")
    assert len(got["sentence_scores"]) == len(lines) and got["sentence_scores"][lines.index("")] == 0.0


def test_the_shared_line_policy(client, metric):
    # A final newline ends the last line; trailing whitespace (a Windows "\r") goes.
    got = client.predict("a b\nc d\n", "a b \r\nc e\n", "13a", 1, 4, False, api_name="/compute")
    assert got == expected(metric, ["a b", "c d"], ["a b", "c e"])
    # An empty line inside is an empty segment, scored and not dropped.
    got = client.predict("a b\n\nc", "a b\nx\nc", "13a", 1, 4, False, api_name="/compute")
    assert got == expected(metric, ["a b", "", "c"], ["a b", "x", "c"])
    assert inputs.parse_inputs("a\n", "b") == (["a"], [["b"]])


def test_nul_is_scored_as_the_core_scores_it(client, metric):
    predictions, references = ["\x00a b", "a\x00 b"], ["a b", "a b"]
    got = call(client, predictions, references)
    assert got == expected(metric, predictions, references)
    assert got["sentence_scores"] == GLEU().sentence_scores(predictions, references)


# -- bad input gives its message ----------------------------------------------------------
BAD_INPUT = [
    # wrong counts and empty input
    (("a\nb", "a", "13a", 1, 4, False), "2 prediction lines but 1 reference lines"),
    (("", "", "13a", 1, 4, False), "no input"),
    (("a b", "  ", "13a", 1, 4, False), "references are empty"),
    # bad tokenizer names
    (("a", "a", "nonsense", 1, 4, False), "unknown tokenizer 'nonsense'"),
    (("a", "a", "spm", 1, 4, False), "unknown tokenizer 'spm'"),
    (("a", "a", None, 1, 4, False), "unknown tokenizer None"),
    (("a", "a", ["13a"], 1, 4, False), "unknown tokenizer ['13a']"),
    # bad orders
    (("a", "a", "13a", 0, 4, False), "min_len must be >= 1, got min_len=0"),
    (("a", "a", "13a", 3, 2, False), "max_len must be >= min_len, got min_len=3 and max_len=2"),
    (("a", "a", "13a", 1, 101, False), "max_len must be <= 100"),
    (("a", "a", "13a", 1, 10**12, False), "max_len must be <= 100"),
    (("a", "a", "13a", 1, -5, False), "max_len must be >= min_len"),
    (("a", "a", "13a", 1.5, 4, False), "min_len must be an integer"),
    (("a", "a", "13a", "1", 4, False), "min_len must be an integer"),
    (("a", "a", "13a", 1, None, False), "max_len must be an integer"),
    # wrong types
    (("a", "a", "13a", 1, 4, "yes"), "lowercase must be a bool"),
    ((1, "a", "13a", 1, 4, False), "predictions must be text (one segment a line), got int"),
    (("a", ["a"], "13a", 1, 4, False), "references must be text (one segment a line), got list"),
    ((None, "a", "13a", 1, 4, False), "predictions must be text (one segment a line), got NoneType"),
    (({"a": 1}, "a", "13a", 1, 4, False), "predictions must be text (one segment a line), got dict"),
    # lone surrogates (valid JSON, not valid text)
    (("a\nb\ud800", "a\nb", "13a", 1, 4, False), "predictions line 2 holds a lone surrogate (U+D800)"),
    (("a", "\udfff", "13a", 1, 4, False), "references line 1 holds a lone surrogate (U+DFFF)"),
    # oversize (within the request cap, over the text cap)
    (("x" * limits.MAX_INPUT_CHARS, "y", "13a", 1, 4, False), "input too large: 2,000,001 characters"),
    (("a\n" * limits.MAX_SEGMENTS + "a", "a\n" * limits.MAX_SEGMENTS + "a", "13a", 1, 4, False), "too many segments"),
]


def http_call(app_url, arguments):
    """``/compute`` over plain HTTP (JSON with ASCII escapes, so lone surrogates travel):
    the result stream's last event and its data."""
    body = json.dumps({"data": list(arguments)}).encode("ascii")
    response = _post(app_url, body, **{"content-type": "application/json"})
    assert response.status_code == 200, response.text
    stream = httpx.get(app_url + f"gradio_api/call/compute/{response.json()['event_id']}", timeout=120).text
    event, data = re.findall(r"^event: (\w+)\ndata: (.*)$", stream, re.M)[-1]
    return event, json.loads(data)


@pytest.mark.parametrize(("arguments", "message"), [case for case in BAD_INPUT if "surrogate" not in case[1]])
def test_bad_input_gives_its_message(client, arguments, message):
    with pytest.raises(AppError, match=re.escape(message)):
        client.predict(*arguments, api_name="/compute")


@pytest.mark.parametrize(("arguments", "message"), BAD_INPUT)
def test_bad_input_over_http_gives_its_message(app_url, arguments, message):
    event, data = http_call(app_url, arguments)
    assert event == "error" and message in str(data) and "Traceback" not in str(data)


@pytest.mark.parametrize(("arguments", "message"), BAD_INPUT)
def test_bad_input_on_the_page_gives_its_message(arguments, message):
    # What the Compute button returns: the message, shown, and no result.
    outputs = page.run(*arguments)
    assert outputs[0]["visible"] and message in outputs[0]["value"]
    assert outputs[1]["visible"] is False and outputs[2] == "" and outputs[5] is None and outputs[6] is None


def _post(url, body, **headers):
    return httpx.post(url + "gradio_api/call/compute", content=body, headers=headers, timeout=60)


def test_an_oversize_body_is_refused_before_it_is_parsed(app_url):
    # FastAPI's max_body_size: a declared length over the cap is answered at once: only one
    # byte of the body is sent, and the answer comes without the server waiting for (or
    # reading) the rest.
    too_big = limits.MAX_REQUEST_BYTES + 1
    url = urllib.parse.urlsplit(app_url)
    for path in ("/gradio_api/call/compute", "/gradio_api/queue/join"):
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        try:
            connection.putrequest("POST", path)
            connection.putheader("Content-Type", "application/json")
            connection.putheader("Content-Length", str(too_big))
            connection.endheaders(b"{")
            response = connection.getresponse()
            assert (response.status, response.read()) == (413, b"Content Too Large"), path
        finally:
            connection.close()
    # One byte under the cap is read and parsed (and refused as bad JSON, not as too large).
    assert _post(app_url, b"{" + b" " * (limits.MAX_REQUEST_BYTES - 2) + b"}").status_code != 413


def test_an_oversize_body_without_a_length_is_cut_off(app_url):
    # Chunked, with no Content-Length: counted as it arrives and refused past the cap.
    def chunks():
        yield b'{"data": ["'
        for _ in range(limits.MAX_REQUEST_BYTES // (1 << 20) + 2):
            yield b"a" * (1 << 20)
        yield b'", "a", "13a", 1, 4, false]}'

    response = httpx.post(
        app_url + "gradio_api/call/compute", content=chunks(), headers={"content-type": "application/json"}, timeout=60
    )
    assert response.status_code == 413 and response.json() == {"detail": "Content Too Large"}


@pytest.mark.parametrize(
    "body", [b"{", b"not json", b'{"data": 5}', b'{"data": "x"}', b"[]", b'{"data": [1, 2]}', b"\xff\xfe"]
)
def test_garbage_bodies_get_an_error_not_a_crash(app_url, client, body):
    response = _post(app_url, body, **{"content-type": "application/json"})
    assert "Traceback" not in response.text
    if response.status_code == 200:  # queued: its result stream ends in an error, not a crash
        stream = httpx.get(app_url + f"gradio_api/call/compute/{response.json()['event_id']}", timeout=60).text
        assert "event: error" in stream and "Traceback" not in stream
    else:
        assert 400 <= response.status_code < 500, response.text
    # The server still answers a normal request correctly.
    assert call(client, ["a b"], ["a b"])["google_bleu"] == 1.0


# -- concurrency ----------------------------------------------------------------------------
def test_twenty_concurrent_requests_get_their_own_results(client, metric):
    folder = SAMPLES / "wmt17_en_de"
    references = read_lines(folder / "ref0.txt")
    systems = [read_lines(path) for path in sorted(folder.glob("sys_*.txt"))]
    cases = []
    for k in range(20):
        start, stop = 7 * k, 7 * k + 5 + 3 * k
        options = {"min_len": 1 + k % 2, "max_len": 3 + k % 3, "lowercase": k % 4 == 0}
        cases.append((systems[k % len(systems)][start:stop], references[start:stop], options))
    wanted = [expected(metric, predictions, refs, **options) for predictions, refs, options in cases]
    assert len({w["google_bleu"] for w in wanted}) == 20  # every request has a different answer

    def request(case):
        predictions, refs, options = case
        # One client per thread, as separate users would have.
        own = Client(client.src, verbose=False)
        return call(own, predictions, refs, "13a", options["min_len"], options["max_len"], options["lowercase"])

    with ThreadPoolExecutor(max_workers=20) as pool:
        got = list(pool.map(request, cases))
    assert got == wanted


# -- the page's helpers (what the browser shows) ------------------------------------------
def test_parse_inputs_reads_tab_separated_references():
    predictions, references = inputs.parse_inputs("p1\n\np3\n", "r1\tr1b\nr2\n\tr3\t\n")
    assert predictions == ["p1", "", "p3"]
    # Trailing whitespace (a trailing tab too) goes with the shared line policy; leading stays.
    assert references == [["r1", "r1b"], ["r2"], ["", "r3"]]


def test_segment_table_shows_the_chosen_reference_on_the_0_100_scale():
    scored = inputs.score("\n".join(CARD_PREDICTIONS), as_text(CARD_REFERENCES), "13a", 1, 4, False)
    table = render.segment_table(scored.stats, scored.predictions, scored.references)
    assert table["#"].tolist() == [1, 2]
    assert table["prediction"].tolist() == CARD_PREDICTIONS
    tokenize = get_tokenizer("13a")
    chosen = explain(tokenize(CARD_PREDICTIONS[0]), tokenize.tokenize_all(CARD_REFERENCES[0])).reference_index
    assert table["ref"].tolist() == [chosen + 1, 1]
    assert table["chosen reference"].tolist() == [CARD_REFERENCES[0][chosen], CARD_REFERENCES[1][0]]
    stats = GLEU().stats(CARD_PREDICTIONS, CARD_REFERENCES)
    assert table["n_match"].tolist() == stats.rows[:, 0].tolist()
    assert table["GLEU (0–100)"].tolist() == [round(100 * s, 2) for s in stats.sentence_scores().tolist()]
    assert render.score_histogram(stats.sentence_scores())["segments"].sum() == 2


def test_score_card_shows_each_orders_own_score():
    # Each n-gram order's figure is the corpus GLEU of min_len = max_len = n (sacrebleu's
    # habit of showing BLEU's per-order precisions); the raw result stays the evaluate dict.
    predictions, references = "\n".join(CARD_PREDICTIONS), as_text(CARD_REFERENCES)
    outputs = page.run(predictions, references, "13a", 2, 3, True)
    wanted = [
        GLEU(min_len=n, max_len=n, lowercase=True).corpus_score(CARD_PREDICTIONS, CARD_REFERENCES).score for n in (2, 3)
    ]
    assert f"2-gram **{100 * wanted[0]:.2f}** · 3-gram **{100 * wanted[1]:.2f}**\n" in outputs[2]
    assert "orders" not in outputs[5]


def test_scores_for_people_are_on_the_0_100_scale_and_the_api_keeps_0_1():
    outputs = page.run("the cat sat on the mat", "the cat ate the mat", "13a", 1, 4, False)
    assert outputs[2].startswith("## GLEU (0–100): 33.33\n") and "recall **42.86**" in outputs[2]
    assert outputs[5]["google_bleu"] == 0.3333333333333333  # the raw result: the evaluate module's 0-1
    assert "**33.33** on the 0–100 scale" in outputs[10]
    assert page.compute("the cat sat on the mat", "the cat ate the mat")["google_bleu"] == 0.3333333333333333


def test_the_table_renders_a_bounded_number_of_rows():
    n = limits.MAX_TABLE_ROWS + 500
    outputs = page.run("a b\n" * n, "a c\n" * n, "13a", 1, 4, False)
    assert len(outputs[3]["value"]) == limits.MAX_TABLE_ROWS
    assert f"the first {limits.MAX_TABLE_ROWS:,} of {n:,} segments are listed" in outputs[3]["label"]
    # The session keeps statistics, never the text or the rendered table.
    state = outputs[6]
    assert set(state) == {"digest", "tokenizer", "lowercase", "min_len", "max_len", "stats"}
    assert len(state["stats"]) == n and "sentence_scores" not in outputs[5]
    # Any segment is still explained by its number, from the text in the boxes.
    hyp, _, info = page.highlight(state, "a b\n" * n, "a c\n" * n, n)
    assert f"**Segment {n:,}**" in info.replace(str(n), f"{n:,}") and hyp[0] == ("a", "1-gram")


def test_highlight_of_a_segment():
    # The page's own state, from Compute: the engine's choice of reference is kept in it.
    predictions, references = "the cat sat on the mat", "a dog\tthe cat ate the mat"
    state = page.run(predictions, references, "13a", 1, 4, False)[6]
    assert state["stats"].reference_index.tolist() == [1]
    hyp, ref, info = page.highlight(state, predictions, references, 1)
    assert hyp == [("the cat", "2-gram"), (" sat on ", None), ("the mat", "2-gram")]
    assert "".join(text for text, _ in ref) == "the cat ate the mat"
    assert "reference 2 of 2 chosen" in info and "6 / max(18, 14) = 0.3333, **33.33**" in info
    assert "between 1 and 1" in page.highlight(state, predictions, references, 2)[2]
    # Text edited after Compute is not explained with the old numbers.
    assert "the text changed since Compute" in page.highlight(state, predictions + " x", references, 1)[2]


def test_highlight_shows_the_original_words():
    # 13a splits "28-jähriger" into three tokens; the page shows the words as written.
    predictions, references = "Der 28-jährige Mann, sagte er.", "der 28-jährige mann sagte er ."
    state = page.run(predictions, references, "13a", 1, 4, True)[6]
    hyp, ref, _ = page.highlight(state, predictions, references, 1)
    assert "".join(text for text, _ in hyp) == predictions
    assert "".join(text for text, _ in ref) == references
    assert hyp[0] == ("Der 28-jährige Mann", "4-gram")
    # A tokenizer that changes characters (13a unescapes &quot;) is shown as its tokens.
    assert render.spans("a &quot;b", ["a", '"', "b"], [2, 2, 0], [True, False]) == [('a "', "2-gram"), (" b", None)]


def test_neighbouring_matched_unigrams_are_separate_boxes():
    # The metric card's segment 1: "the" and "commands" are matched 1-grams side by side, not
    # a matched 2-gram, so they are two highlights; the 4-grams and "the cat" stay whole.
    scored = inputs.score("\n".join(CARD_PREDICTIONS), as_text(CARD_REFERENCES))
    hyp, ref, _ = render.explain_segment(scored.scorer, scored.stats, 0, scored.predictions[0], scored.references[0])
    assert hyp[:3] == [("It is a guide to action", "4-gram"), (" which ", None), ("ensures that the rubber duck", "4-gram")]
    assert hyp[4:] == [("the", "1-gram"), (" ", None), ("commands", "1-gram"), (" of ", None), ("the cat", "2-gram")]
    assert ("the cat", "2-gram") in ref and ("commands", "1-gram") in ref
    # On a real sample, a new highlight starts exactly where no matched n-gram spans the
    # token and the one before it.
    folder = SAMPLES / "wmt17_en_de"
    scorer = GLEU()
    pairs = zip(read_lines(folder / "sys_online-B.0.txt")[:60], read_lines(folder / "ref0.txt")[:60])
    for prediction, reference in pairs:
        tokens = scorer.tokenizer(prediction)
        e = explain(tokens, [scorer.tokenizer(reference)])
        orders, joins = e.hypothesis_orders(), e.hypothesis_joins()
        starts = sum(1 for i, order in enumerate(orders) if order and not (i and orders[i - 1] == order and joins[i - 1]))
        shown = render.spans(prediction, tokens, orders, joins)
        assert len([text for text, label in shown if label]) == starts


def test_joins_say_which_neighbours_one_matched_ngram_holds():
    # "a b" and "b c" are matched 2-grams, "c d" is not (d matches alone), "d e" is not matched.
    e = explain("a b c d e".split(), ["a b c x d".split()])
    assert e.hypothesis_orders() == [3, 3, 3, 1, 0]  # "a b c" is a matched 3-gram
    assert e.hypothesis_joins() == [True, True, False, False]
    assert e.hypothesis_joins(limit=2) == [True] and e.reference_joins() == [True, True, False, False]
    assert explain([], [["a"]]).hypothesis_joins() == [] and explain(["a"], [["a"]]).hypothesis_joins() == []


def test_uploads_fill_the_boxes(tmp_path):
    (tmp_path / "hyp.txt").write_text("a b\n\nc\n", encoding="utf-8")
    (tmp_path / "ref0.txt").write_text("a b\nx\nc\n", encoding="utf-8")
    (tmp_path / "ref1.txt").write_text("b a\ny\nd\n", encoding="utf-8")
    (tmp_path / "short.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (tmp_path / "page.html").write_text("<script>alert(1)</script>\n", encoding="utf-8")
    (tmp_path / "bars.txt").write_text("a\nb ||| c\nd\n", encoding="utf-8")
    # In a file, the final newline ends the last line; the note names the file; the old
    # result goes (the results hidden, the state cleared), as the text changed.
    text, message, cleared, note, results, state = page.load_predictions(str(tmp_path / "hyp.txt"))
    assert text == "a b\n\nc" and message["visible"] is False and cleared is None
    assert note == {
        "__type__": "update", "value": "Loaded **hyp.txt** into the predictions box: 3 lines.", "visible": True,
        "elem_classes": [],
    }
    assert results["visible"] is False and state is None
    # References: one file per reference, joined on each line by |||, which the page reads back.
    text, _, _, note, results, state = page.load_references([str(tmp_path / "ref0.txt"), str(tmp_path / "ref1.txt")])
    assert text == "a b ||| b a\nx ||| y\nc ||| d"
    assert inputs.parse_inputs("1\n2\n3", text)[1] == [["a b", "b a"], ["x", "y"], ["c", "d"]]
    assert "Loaded **ref0.txt**, **ref1.txt** into the references box: 3 lines, 2 references a line." in note["value"]
    assert results["visible"] is False and state is None
    # A refused upload says why in the note under the upload (where the user is looking), and
    # changes nothing else: the boxes keep their text, so their result and Compute's message stay.
    refused = page.load_references([str(tmp_path / "ref0.txt"), str(tmp_path / "short.txt")])
    text, message, cleared, note, results, state = refused
    assert note["visible"] and note["elem_classes"] == ["refused"]
    assert note["value"].startswith("⚠️ **Not loaded: ref0.txt, short.txt.** ")
    assert "different numbers of lines (ref0.txt: 3, short.txt: 1)" in note["value"]
    assert text == message == results == state == gradio.skip() and cleared is None
    assert page.load_predictions(str(tmp_path / "hyp.txt"))[3]["elem_classes"] == []  # a later load: no longer red

    def refusal(*args):
        return (page.load_references if len(args) > 1 else page.load_predictions)(
            [str(tmp_path / name) for name in args] if len(args) > 1 else str(tmp_path / args[0])
        )[3]["value"]

    assert "bars.txt line 2 holds a tab or |||, which separate references here" in refusal("ref0.txt", "bars.txt")
    assert refusal("latin1.txt").startswith("⚠️ **Not loaded:** latin1.txt is not UTF-8 text")  # named once
    assert "page.html is not a text file: upload .txt files" in refusal("page.html")
    # A file over the byte cap (gradio's max_file_size stops it at upload; here it is read as
    # at most that many bytes, whatever its size).
    (tmp_path / "big.txt").write_bytes(b"a" * (limits.MAX_FILE_BYTES + 1))
    assert f"big.txt is too large: {limits.MAX_FILE_BYTES + 1:,} bytes, at most {limits.FILE_LIMIT}" in refusal(
        "big.txt"
    )
    # Files outside gradio's upload folder are the user's: never deleted.
    assert (tmp_path / "hyp.txt").is_file()


def test_files_gradio_refuses_in_the_browser_are_said_in_the_note():
    # What the browser reports of the files chosen on an upload (name, size), before gradio
    # refuses them there (type, max_file_size): the note under that upload says why.
    def chosen(which, *files):
        return page.chosen_files(json.dumps({"which": which, "files": [{"name": n, "size": z} for n, z in files]}))

    big = limits.MAX_FILE_BYTES + 1
    note, other, left_out = chosen("predictions", ("notes.csv", 10))
    assert note["value"] == "⚠️ **Not loaded:** notes.csv is not a text file: upload .txt files, one segment a line"
    assert note["elem_classes"] == ["refused"] and other == left_out == gradio.skip()
    note = chosen("predictions", ("big.txt", big))[0]["value"]
    assert note == f"⚠️ **Not loaded:** big.txt is too large: {big:,} bytes, at most 8.0 Mb (8,388,608 bytes)"
    # References: one file too large, and gradio sends none; one of another type, and it sends the others.
    other, note, left_out = chosen("references", ("a.txt", 5), ("big.txt", big))
    assert note["value"].startswith("⚠️ **Not loaded: a.txt, big.txt.** big.txt is too large") and left_out is None
    other, note, left_out = chosen("references", ("a.txt", 5), ("b.csv", 5))
    assert note["value"] == "⚠️ **Not loaded:** b.csv is not a text file: upload .txt files, one segment a line"
    assert left_out == "b.csv is not a text file: upload .txt files, one segment a line"
    # Files that will be sent change no note (their handler writes it), and nothing is left out.
    assert chosen("references", ("a.txt", 5)) == (gradio.skip(), gradio.skip(), None)
    assert chosen("predictions", ("a.txt", 5)) == (gradio.skip(),) * 3
    # A crafted event changes nothing.
    for report in (None, "", "[]", "{}", '{"which": "x", "files": []}', '{"which": "predictions", "files": [1]}'):
        assert page.chosen_files(report) == (gradio.skip(),) * 3, report


def test_several_references_are_typed_with_bars(client, metric):
    # A tab cannot be typed into a box (it moves the focus) nor on a phone: ||| can.
    assert inputs.parse_inputs("p", "a ||| b|||c \t d") == (["p"], [["a", "b", "c ", " d"]])
    assert inputs.parse_inputs("p\nq", "a |||\nb") == (["p", "q"], [["a", ""], ["b"]])
    predictions, references = CARD_PREDICTIONS, CARD_REFERENCES
    typed = "\n".join(" ||| ".join(refs) if isinstance(refs, list) else refs for refs in references)
    got = client.predict("\n".join(predictions), typed, "13a", 1, 4, False, api_name="/compute")
    assert got == expected(metric, predictions, references)
    outputs = page.run("\n".join(predictions), typed, "13a", 1, 4, False)
    assert outputs[5] == {key: got[key] for key in outputs[5]} and "reference 2 of 3 chosen" in outputs[10]


# -- uploads: every bound where it is read, real gradio over real HTTP -----------------------
def _upload(app_url, files, address="127.0.0.1"):
    """Posts ``files`` (name -> bytes) to gradio's upload route from ``address`` (any
    127.x.y.z is this machine, each a client of its own)."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(transport=transport, timeout=120) as http:
        return http.post(app_url + "gradio_api/upload", files=[("files", (n, d)) for n, d in files.items()])


def _file_data(path):
    return {"path": path, "meta": {"_type": "gradio.FileData"}}


@pytest.mark.parametrize(
    ("label", "files", "message"),
    [
        # Characters: one file over the page's cap (ASCII: 2,000,001 bytes, under the byte cap).
        ("Predictions file", {"hyp.txt": b"x" * (limits.MAX_INPUT_CHARS + 1)}, "hyp.txt too large: 2,000,001 characters"),
        # Lines.
        ("Predictions file", {"hyp.txt": b"a\n" * (limits.MAX_SEGMENTS + 1)}, "too many segments: hyp.txt has 20,001 lines"),
        # The reference files together, joined, over the character cap (each alone is under it).
        (
            "Reference files (one per reference, at most 8)",
            {"r0.txt": b"x" * 1_000_000, "r1.txt": b"y" * 1_000_001},
            "the reference files together too large: 2,000,001 characters",
        ),
        # Bytes: the reference files together (each under gradio's per-file cap), 4-byte characters.
        (
            "Reference files (one per reference, at most 8)",
            {"r0.txt": "😀".encode() * 1_050_000, "r1.txt": "😀".encode() * 1_050_000},
            "r1.txt is too large: 4,200,000 bytes, with 4,188,608 left of the 8.0 Mb (8,388,608 bytes) that the "
            "reference files may hold together",
        ),
        # Files: more than one per reference the page takes.
        (
            "Reference files (one per reference, at most 8)",
            {f"r{i}.txt": b"a\n" for i in range(limits.MAX_REFERENCES + 1)},
            "9 reference files: this page takes at most 8",
        ),
    ],
    ids=["characters", "lines", "references-together", "bytes-together", "files"],
)
def test_an_upload_over_a_bound_is_refused_where_it_is_read(app_url, label, files, message):
    event = page_event_id(app_url, "upload", label=label)
    paths = []
    for name, data in files.items():  # one a request: each request is within the route's caps
        answer = _upload(app_url, {name: data}, "127.0.1.1")
        assert answer.status_code == 200, answer.text
        paths += answer.json()
    data = _file_data(paths[0]) if label == "Predictions file" else [_file_data(path) for path in paths]
    outputs = page_event(app_url, event, [data], None)
    assert outputs[3]["visible"] and message in outputs[3]["value"], outputs[3]
    assert outputs[0] is None or outputs[0] == {"__type__": "update"}  # the box is left as it was
    assert not any(Path(path).exists() for path in paths)  # every file deleted, read or not


def test_an_upload_is_deleted_once_read_and_other_types_are_refused(app_url, tmp_path):
    folder = limits.upload_folder()
    (tmp_path / "hyp.txt").write_text("a b\n" * 1000, encoding="utf-8")
    with (tmp_path / "hyp.txt").open("rb") as file:
        uploaded = httpx.post(app_url + "gradio_api/upload", files={"files": ("hyp.txt", file)}, timeout=60).json()
    path = uploaded[0]
    assert (folder / path).is_file() or Path(path).is_file()
    text, message, cleared, *_ = page.load_predictions(path)
    assert text == "\n".join(["a b"] * 1000) and message["visible"] is False and cleared is None
    assert not Path(path).exists()  # gradio's copy of the upload is gone
    # The page's upload event, as the browser sends it: a file read once is gone (a message, not
    # a crash), and a file that is not text is refused and deleted.
    file_event = page_event_id(app_url, "upload", label="Predictions file")
    outputs = page_event(app_url, file_event, [{"path": path, "meta": {"_type": "gradio.FileData"}}], None)
    assert "hyp.txt could not be read" in outputs[3]["value"]
    (tmp_path / "page.html").write_text("<script>alert(1)</script>\n", encoding="utf-8")
    with (tmp_path / "page.html").open("rb") as file:
        path = httpx.post(app_url + "gradio_api/upload", files={"files": ("page.html", file)}, timeout=60).json()[0]
    outputs = page_event(app_url, file_event, [{"path": path, "meta": {"_type": "gradio.FileData"}}], None)
    assert "Invalid file type" in str(outputs) or "page.html is not a text file" in outputs[3]["value"]


def test_the_upload_route_bounds_each_request(app_url):
    before = limits.folder_usage(limits.upload_folder())
    # Bytes: a file over gradio's own max_file_size (set at launch) is refused by gradio; a body
    # over the request cap is refused before it is read, however its files are split.
    too_big = _upload(app_url, {"big.txt": b"x" * (limits.MAX_FILE_BYTES + 1)}, "127.0.2.1")
    assert too_big.status_code == 413
    halves = {"a.txt": b"x" * (limits.MAX_FILE_BYTES // 2 + 100_000), "b.txt": b"y" * (limits.MAX_FILE_BYTES // 2)}
    two = _upload(app_url, halves, "127.0.2.1")
    assert two.status_code == 413 and "upload too large" in two.json()["detail"]
    # Files: more in one request than the page ever sends.
    many = _upload(app_url, {f"f{i}.txt": b"a" for i in range(limits.MAX_UPLOAD_FILES + 1)}, "127.0.2.2")
    assert many.status_code == 413 and f"more than {limits.MAX_UPLOAD_FILES} files in one upload" in many.text
    # A body without a declared length is counted as it arrives and cut off past the cap.
    boundary = "x" * 16

    def chunked():  # two files, each under gradio's per-file cap, over the request cap together
        for name in ("c.txt", "d.txt"):
            yield f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{name}\"\r\n\r\n".encode()
            for _ in range(limits.MAX_UPLOAD_REQUEST_BYTES // (2 << 20) + 1):
                yield b"z" * (1 << 20)
            yield b"\r\n"
        yield f"--{boundary}--\r\n".encode()

    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.2.3"), timeout=120) as http:
        answer = http.post(
            app_url + "gradio_api/upload", content=chunked(),
            headers={"content-type": f"multipart/form-data; boundary={boundary}"},
        )
    assert answer.status_code == 413 and "upload over the maximum allowed size: more than" in answer.text
    # Nothing of a refused upload stays on disk.
    assert limits.folder_usage(limits.upload_folder()) == before


def test_uploads_are_bounded_per_client_until_the_page_reads_them(app_url):
    # One client (an address) may keep MAX_CLIENT_UPLOAD_FILES files / MAX_CLIENT_UPLOAD_BYTES
    # bytes that the page has not read; then it is told to wait, before its body is read.
    address = "127.0.3.1"
    size = limits.MAX_CLIENT_UPLOAD_BYTES // 4 - 4096
    kept = []
    try:
        _per_client(app_url, address, size, kept)
    finally:
        _delete(kept)


def _delete(paths):
    """Deletes uploads a test left unread, so that they do not count against later tests."""
    for path in paths:
        Path(path).unlink(missing_ok=True)


def _per_client(app_url, address, size, kept):
    for i in range(4):
        answer = _upload(app_url, {f"s{i}.txt": b"a b\n" * (size // 4)}, address)
        assert answer.status_code == 200, answer.text
        kept += answer.json()
    refused = _upload(app_url, {"s4.txt": b"a b\n" * (size // 4)}, address)
    assert refused.status_code == 429, refused.text
    assert "too many uploads not read yet: 4 files" in refused.json()["detail"]
    other = _upload(app_url, {"s4.txt": b"a b\n"}, "127.0.3.2")  # another client is not
    assert other.status_code == 200
    kept += other.json()
    # Once the page has read one (here it refuses it: 2,000,000 lines), and so deleted it, the
    # client may upload again.
    event = page_event_id(app_url, "upload", label="Predictions file")
    outputs = page_event(app_url, event, [_file_data(kept[0])], None)
    assert "s0.txt too large" in outputs[3]["value"] and not Path(kept[0]).exists()
    again = _upload(app_url, {"s5.txt": b"a b\n" * (size // 4)}, address)
    assert again.status_code == 200
    kept += again.json()
    # Small files count too: at most MAX_CLIENT_UPLOAD_FILES of them.
    small = "127.0.3.3"
    for i in range(limits.MAX_CLIENT_UPLOAD_FILES // limits.MAX_UPLOAD_FILES):
        files = {f"t{i}-{j}.txt": b"a" for j in range(limits.MAX_UPLOAD_FILES)}
        answer = _upload(app_url, files, small)
        assert answer.status_code == 200
        kept += answer.json()
    refused = _upload(app_url, {"one-more.txt": b"a"}, small)
    assert refused.status_code == 429 and f"{limits.MAX_CLIENT_UPLOAD_FILES} files" in refused.json()["detail"]


def test_the_upload_folder_is_bounded_in_total(app_url):
    # Clients of their own, each within its allowance, fill the folder to its cap; then every
    # upload is refused (507) before its body is read, and the folder never passes the cap.
    size = limits.MAX_CLIENT_UPLOAD_BYTES // 4 - 4096
    kept, statuses = [], []
    try:
        for client in range(limits.MAX_UPLOAD_DISK_BYTES // limits.MAX_CLIENT_UPLOAD_BYTES + 1):
            for i in range(4):
                used, _ = limits.folder_usage(limits.upload_folder())
                answer = _upload(app_url, {f"d{client}-{i}.txt": b"z" * size}, f"127.0.4.{client + 1}")
                statuses.append(answer.status_code)
                if answer.status_code == 200:
                    kept += answer.json()
                    assert used + size <= limits.MAX_UPLOAD_DISK_BYTES
                else:
                    assert answer.status_code == 507, answer.text
                    assert "the Space holds too many uploads now" in answer.json()["detail"]
                    assert used + size > limits.MAX_UPLOAD_DISK_BYTES - (64 << 10)  # the body's framing
                assert limits.folder_usage(limits.upload_folder())[0] <= limits.MAX_UPLOAD_DISK_BYTES
        assert statuses.count(507) >= 4  # the last client's four, at least
    finally:
        _delete(kept)
    # Once files go (read by the page, or gradio's cleanup), uploads are taken again.
    answer = _upload(app_url, {"after.txt": b"a b\n"}, "127.0.4.99")
    assert answer.status_code == 200
    _delete(answer.json())


@pytest.mark.parametrize(
    ("box", "clients", "wrap"),
    [({"label": "Predictions file"}, ("127.0.5.1", "127.0.5.2"), False), ({"elem_id": "reference-files"}, ("127.0.5.3", "127.0.5.4"), True)],
    ids=["predictions", "references"],
)
def test_two_clients_uploading_the_same_file_each_get_it(app_url, box, clients, wrap):
    # gradio stores an upload by its content (<sha256>/<name>): the same file from two
    # clients is one path, which the first load must not delete for the second (a reference
    # load once released each of its files twice).
    data = f"the same file\nread by two as {box}\n".encode()
    first, second = (_upload(app_url, {"same.txt": data}, client).json()[0] for client in clients)
    assert first == second
    event = page_event_id(app_url, "upload", **box)
    for path in (first, second):
        outputs = page_event(app_url, event, [[_file_data(path)] if wrap else _file_data(path)], None)
        assert outputs[0] == data.decode().rstrip("\n"), outputs[3]
    assert not Path(first).exists()  # deleted once the last upload of it is read
    assert os.path.realpath(first) not in limits.HANDED_OUT


def test_a_refused_reference_upload_releases_each_file_once(monkeypatch, tmp_path):
    # Two clients' upload of one file (handed out twice): a refused load of it (here, too many
    # lines) releases it once, leaving it for the other client.
    monkeypatch.setattr(inputs, "upload_folder", tmp_path.resolve)
    file = tmp_path / "digest" / "ref.txt"
    file.parent.mkdir()
    file.write_bytes(b"a\n" * (limits.MAX_SEGMENTS + 1))
    key = os.path.realpath(file)
    monkeypatch.setitem(limits.HANDED_OUT, key, 2)
    with pytest.raises(inputs.InputError, match="too many segments: ref.txt has 20,001 lines"):
        inputs.read_references([str(file)])
    assert file.exists() and limits.HANDED_OUT[key] == 1
    with pytest.raises(inputs.InputError):
        inputs.read_references([str(file)])
    assert not file.exists() and key not in limits.HANDED_OUT


def test_an_upload_cut_off_is_the_parse_error_gradio_catches():
    # limits._cut_off stops an upload with Starlette's multipart parse error: the class gradio's
    # upload route and parser catch, deleting the files written so far and answering 413 when
    # the message names "maximum allowed size" (the chunked upload above checks that end to
    # end). A gradio that catches another class fails here.
    import gradio.route_utils
    import gradio.routes
    import starlette.formparsers

    error = limits._cut_off("more than 1 byte")
    assert type(error) is starlette.formparsers.MultiPartException
    assert gradio.routes.MultiPartException is gradio.route_utils.MultiPartException is type(error)
    assert "maximum allowed size" in error.message


def test_the_score_card_is_one_scoring_of_the_orders(monkeypatch):
    # The card's per-order figures come from one call for all orders, never one per order.
    calls = []
    real = GLEU.corpus_score

    def counted(self, *args, **kwargs):
        calls.append(self) if kwargs.get("by_order") else None
        return real(self, *args, **kwargs)

    monkeypatch.setattr(GLEU, "corpus_score", counted)
    outputs = page.run("\n".join(CARD_PREDICTIONS), as_text(CARD_REFERENCES), "13a", 1, 6, False)
    assert len(calls) == 1 and (calls[0].min_len, calls[0].max_len) == (1, 6)
    assert "6-gram **" in outputs[2]


def test_deep_links_are_refused(app_url):
    # gradio's deep-link route writes a session's inputs and outputs (its text) to disk; the
    # page has no deep links, and the route answers 404 without writing anything.
    session = "deeplink" + "0" * 10
    compute_event = page_event_id(app_url, "click", elem_id="compute")
    page_event(app_url, compute_event, ["a b\nc", "a b\nc", "13a", 1, 4, False], None, session)
    answer = httpx.get(app_url + f"gradio_api/deep_link?session_hash={session}", timeout=30)
    assert answer.status_code == 404 and "keeps no deep links" in answer.json()["detail"]
    assert not (limits.upload_folder() / "deep_links").exists()


def _characters(value):
    """Characters of every string in a nest of dicts and lists (what a session holds as text)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_characters(key) + _characters(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return sum(_characters(item) for item in value)
    return 0


def test_a_session_keeps_its_text_once_within_the_caps(app_url):
    # What limits.py and docs/space.md say: gradio keeps a session's last component values
    # (the boxes' text once, the table, one explanation), for at most SESSION_CAPACITY
    # sessions; the page's own state holds statistics and a fingerprint, never text. Here a
    # session fills both boxes near the cap by uploads (the text comes back as an output),
    # then computes (the text goes in as an input).
    folder = SAMPLES / "wmt17_en_de"
    hyps, refs = read_lines(folder / "sys_online-B.0.txt"), read_lines(folder / "ref0.txt")
    n = (limits.MAX_INPUT_CHARS // 2 - 20_000) // (sum(map(len, hyps)) // len(hyps) + 1)
    predictions = "\n".join(hyps[i % len(hyps)] for i in range(n))
    references = "\n".join(refs[i % len(refs)] for i in range(n))
    session = uuid.uuid4().hex
    for label, name, text in (
        ("Predictions file", "hyp.txt", predictions),
        (f"Reference files (one per reference, at most {limits.MAX_REFERENCES})", "ref.txt", references),
    ):
        path = _upload(app_url, {name: text.encode()}).json()[0]
        data = _file_data(path) if name == "hyp.txt" else [_file_data(path)]
        assert page_event(app_url, page_event_id(app_url, "upload", label=label), [data], None, session)[0] == text
    compute = page_event_id(app_url, "click", elem_id="compute")
    outputs = page_event(app_url, compute, [predictions, references, "13a", 1, 4, False], None, session)
    assert outputs[1]["visible"] is True
    kept = app.demo.state_holder[session]
    text = len(predictions) + len(references)
    table = limits.MAX_TABLE_ROWS * (2 * (limits.MAX_CELL_CHARS + 40) + 100)
    assert text <= _characters(kept.config_values) <= text + table + 50_000
    assert _characters(list(kept.state_data.values())[0] if kept.state_data else {}) < 200  # the page's own state


def test_the_explanation_of_a_long_segment_is_bounded(monkeypatch):
    line = " ".join(["a", "b", "c"] * 3000)
    explained = []
    real = render.explain

    def spy(hypothesis, references, *args, **kwargs):
        explained.append((len(hypothesis), [len(r) for r in references]))
        return real(hypothesis, references, *args, **kwargs)

    monkeypatch.setattr(render, "explain", spy)
    outputs = page.run(line, "x\t" + line, "13a", 1, 100, False)
    hyp, info = outputs[8], outputs[10]
    assert explained == [(limits.MAX_SHOWN_TOKENS, [limits.MAX_SHOWN_TOKENS])]
    assert hyp[-1] == (f" … (showing the first {limits.MAX_SHOWN_TOKENS:,} of 9,000 tokens)", None)
    assert "".join(text for text, _ in hyp[:-1]).split() == line.split()[: limits.MAX_SHOWN_TOKENS]
    assert f"Only the first {limits.MAX_SHOWN_TOKENS:,} tokens of each side are explained" in info
    row = GLEU(max_len=100).stats([line], [["x", line]]).rows[0].tolist()
    assert f"**{row[0]}** matched n-grams" in info and "reference 2 of 2 chosen" in info


def test_long_cells_say_how_much_is_not_shown():
    scored = inputs.score("a " * 400, "b", "13a", 1, 4, False)
    cell = render.segment_table(scored.stats, scored.predictions, scored.references)["prediction"][0]
    assert cell.startswith("a a") and cell.endswith(f"… (+{800 - 1 - limits.MAX_CELL_CHARS:,} characters)")


def test_run_shows_a_message_for_bad_input():
    outputs = page.run("a\nb", "a", "13a", 1, 4, False)
    assert outputs[0]["visible"] and "2 prediction lines but 1 reference lines" in outputs[0]["value"]
    assert outputs[1]["visible"] is False and outputs[2] == "" and outputs[6] is None  # no earlier result stays
    outputs = page.run("the cat sat on the mat", "the cat ate the mat", "13a", 1, 4, False)
    assert outputs[1]["visible"] is True and "1 segment\n" in outputs[2] and outputs[5]["google_bleu"] == 1 / 3


@pytest.mark.parametrize(
    "row_value", [[10**30, 0.5], [0, 1.0], [-1], [3], [1.5], ["1"], [None], [True], [], None, "x", [float("nan")]]
)
def test_a_crafted_row_selection_gets_a_message(row_value):
    state = page.run("a\nb", "a\nb", "13a", 1, 4, False)[6]
    event = gradio.SelectData(None, {"index": [0, 0], "value": None, "row_value": row_value})
    segment, message = page.select_row(state, event)
    assert message["visible"] and "the selected row is not a segment" in message["value"]
    assert "segments are 1 to 2" in message["value"]
    good = gradio.SelectData(None, {"index": [1, 0], "value": 2, "row_value": [2, 100.0]})
    assert page.select_row(state, good)[0] == 2


def test_a_crafted_row_selection_over_the_event_stream(app_url):
    session = "crafted" + "0" * 10
    compute_event = page_event_id(app_url, "click", elem_id="compute")
    outputs = page_event(app_url, compute_event, ["a\nb", "a\nb", "13a", 1, 4, False], None, session)
    assert outputs[0]["visible"] is False
    select_event = page_event_id(app_url, "select", elem_id="segments")
    event_data = {"index": [0, 0], "value": 10**30, "row_value": [10**30, 1.0]}
    outputs = page_event(app_url, select_event, [None], event_data, session)
    assert isinstance(outputs, list), outputs
    assert "the selected row is not a segment: got 1000000000000000000000000000000" in outputs[1]["value"]


# -- the request cap and text outside the Basic Multilingual Plane ---------------------------
def test_text_outside_the_bmp_at_the_character_cap_is_not_refused(app_url):
    import requests

    # Emoji and CJK Extension B: 12 bytes each in JSON with ASCII escapes (requests' json=).
    line = "😀𠀀" * 499 + " 😀"
    n_lines = (limits.MAX_INPUT_CHARS // 2) // (len(line) + 1)
    predictions = "\n".join([line] * n_lines)
    references = "\n".join([line.replace("😀", "𠀁", 1)] * n_lines)
    assert limits.MAX_INPUT_CHARS - 2_000 < len(predictions) + len(references) <= limits.MAX_INPUT_CHARS
    body = json.dumps({"data": [predictions, references, "13a", 1, 4, False]})
    assert len(body) > 6 * limits.MAX_INPUT_CHARS + (1 << 20)  # what the old cap refused
    posted = requests.post(
        app_url + "gradio_api/call/compute", json={"data": [predictions, references, "13a", 1, 4, False]}, timeout=120
    )
    assert posted.status_code == 200, posted.text[:300]
    stream = requests.get(app_url + f"gradio_api/call/compute/{posted.json()['event_id']}", timeout=300).text
    event, data = re.findall(r"^event: (\w+)\ndata: (.*)$", stream, re.M)[-1]
    wanted = GLEU().corpus_score(predictions.split("\n"), references.split("\n")).to_dict()
    assert event == "complete" and {key: json.loads(data)[0][key] for key in wanted} == wanted


# -- the page's events, as the browser sends them ----------------------------------------------
def page_event_id(url, trigger, elem_id=None, label=None):
    """``(fn_index, trigger_id)`` of a page event, found in the page config."""
    config = httpx.get(url + "config", timeout=30).json()
    component = next(
        c["id"]
        for c in config["components"]
        if (elem_id and c.get("props", {}).get("elem_id") == elem_id)
        or (label and c.get("props", {}).get("label") == label)
    )
    event = next(d for d in config["dependencies"] if [component, trigger] in d["targets"])
    return event["id"], component, len(event["inputs"])


def page_event(url, event, data, event_data, session=None):
    """Joins the queue with one event and returns its outputs (or gradio's error)."""
    session = session or uuid.uuid4().hex
    data = [*data, *[None] * (event[2] - len(data))]  # a gr.State input: the browser sends null
    body = {"data": data, "event_data": event_data, "fn_index": event[0], "trigger_id": event[1], "session_hash": session}
    joined = httpx.post(url + "gradio_api/queue/join", json=body, timeout=60)
    assert joined.status_code == 200, joined.text[:500]
    with httpx.stream("GET", url + f"gradio_api/queue/data?session_hash={session}", timeout=120) as stream:
        for line in stream.iter_lines():
            if line.startswith("data:"):
                message = json.loads(line[5:])
                if message.get("msg") == "process_completed":
                    return message["output"]["data"] if message["success"] else message["output"]
    raise AssertionError("the event stream ended without a result")
