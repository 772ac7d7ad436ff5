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
import re
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import evaluate
import gradio
import httpx
import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

import app
from google_bleu import GLEU, explain, get_tokenizer, text_stats
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


def test_helpers_doctests():
    assert doctest.testmod(app).failed == 0


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
    assert app.split_lines("a\n") == app.split_lines("a") == ["a"] and app.split_lines("\n") == [""]


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
    (("x" * app.MAX_INPUT_CHARS, "y", "13a", 1, 4, False), "input too large: 2,000,001 characters"),
    (("a\n" * app.MAX_SEGMENTS + "a", "a\n" * app.MAX_SEGMENTS + "a", "13a", 1, 4, False), "too many segments"),
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
    outputs = app.run(*arguments)
    assert outputs[0]["visible"] and message in outputs[0]["value"]
    assert outputs[1] == "" and outputs[4] is None and outputs[5] is None


def _post(url, body, **headers):
    return httpx.post(url + "gradio_api/call/compute", content=body, headers=headers, timeout=60)


def test_an_oversize_body_is_refused_before_it_is_parsed(app_url):
    # A declared length over the cap is answered at once: only one byte of the body is sent,
    # and the answer comes without the server waiting for (or reading) the rest.
    too_big = app.MAX_REQUEST_BYTES + 1
    url = urllib.parse.urlsplit(app_url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        connection.putrequest("POST", "/gradio_api/call/compute")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(too_big))
        connection.endheaders(b"{")
        response = connection.getresponse()
        assert response.status == 413
        assert f"request too large: {too_big:,} bytes" in json.loads(response.read())["detail"]
    finally:
        connection.close()


def test_an_oversize_body_without_a_length_is_cut_off(app_url):
    # Chunked, with no Content-Length: counted as it arrives and refused past the cap.
    def chunks():
        yield b'{"data": ["'
        for _ in range(app.MAX_REQUEST_BYTES // (1 << 20) + 2):
            yield b"a" * (1 << 20)
        yield b'", "a", "13a", 1, 4, false]}'

    response = httpx.post(
        app_url + "gradio_api/call/compute", content=chunks(), headers={"content-type": "application/json"}, timeout=60
    )
    assert response.status_code == 413
    assert "request too large: more than" in response.json()["detail"]


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
    predictions, references = app.parse_inputs("p1\n\np3\n", "r1\tr1b\nr2\n\tr3\t\n")
    assert predictions == ["p1", "", "p3"]
    # Trailing whitespace (a trailing tab too) goes with the shared line policy; leading stays.
    assert references == [["r1", "r1b"], ["r2"], ["", "r3"]]


def test_segment_table_shows_the_chosen_reference():
    scored = app.score("\n".join(CARD_PREDICTIONS), as_text(CARD_REFERENCES), "13a", 1, 4, False)
    table = app.segment_table(scored)
    assert table["#"].tolist() == [1, 2]
    assert table["prediction"].tolist() == CARD_PREDICTIONS
    tokenize = get_tokenizer("13a")
    chosen = explain(tokenize(CARD_PREDICTIONS[0]), tokenize.tokenize_all(CARD_REFERENCES[0])).reference_index
    assert table["ref"].tolist() == [chosen + 1, 1]
    assert table["chosen reference"].tolist() == [CARD_REFERENCES[0][chosen], CARD_REFERENCES[1][0]]
    stats = text_stats(CARD_PREDICTIONS, CARD_REFERENCES)
    assert table["n_match"].tolist() == stats.rows[:, 0].tolist()
    assert table["GLEU"].tolist() == [round(s, 4) for s in stats.sentence_scores().tolist()]
    assert app.score_histogram(stats.sentence_scores())["segments"].sum() == 2


def test_highlight_of_a_segment():
    # The page's own state, from Compute: the engine's choice of reference is kept in it.
    state = app.run("the cat sat on the mat", "a dog\tthe cat ate the mat", "13a", 1, 4, False)[5]
    assert state["reference_index"] == [1]
    hyp, ref, info = app.highlight(state, 1)
    assert hyp == [("the cat", "2-gram"), (" ", None), ("sat on", None), (" ", None), ("the mat", "2-gram")]
    assert "".join(text for text, _ in ref) == "the cat ate the mat"
    assert "reference 2 of 2 chosen" in info and "6 / max(18, 14) = **0.3333**" in info
    assert "between 1 and 1" in app.highlight(state, 2)[2]


def test_uploads_fill_the_boxes(tmp_path):
    (tmp_path / "hyp.txt").write_text("a b\n\nc\n", encoding="utf-8")
    (tmp_path / "ref0.txt").write_text("a b\nx\nc\n", encoding="utf-8")
    (tmp_path / "ref1.txt").write_text("b a\ny\nd\n", encoding="utf-8")
    (tmp_path / "short.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    # In a file, the final newline ends the last line.
    assert app.load_predictions(str(tmp_path / "hyp.txt"))[0] == "a b\n\nc"
    text, _ = app.load_references([str(tmp_path / "ref0.txt"), str(tmp_path / "ref1.txt")])
    assert text == "a b\tb a\nx\ty\nc\td"
    _, message = app.load_references([str(tmp_path / "ref0.txt"), str(tmp_path / "short.txt")])
    assert "different numbers of lines (ref0.txt: 3, short.txt: 1)" in message["value"]
    _, message = app.load_predictions(str(tmp_path / "latin1.txt"))
    assert "latin1.txt is not UTF-8 text" in message["value"]


def test_explanation_of_a_long_segment_is_cut_with_a_note():
    line = " ".join(["a", "b"] * 3000)
    state = {
        "predictions": [line],
        "references": [["x", line]],
        "reference_index": [1],
        "tokenizer": "13a",
        "lowercase": False,
        "min_len": 1,
        "max_len": 100,
    }
    hyp, ref, info = app.highlight(state, 1)
    assert hyp[-1] == (f" … (showing the first {app.MAX_SHOWN_TOKENS:,} of 6,000 tokens)", None)
    assert "".join(text for text, _ in hyp[:-1]).split() == line.split()[: app.MAX_SHOWN_TOKENS]
    assert f"Only the first {app.MAX_SHOWN_TOKENS:,} tokens of each side are highlighted" in info
    row = GLEU(max_len=100).stats([line], [["x", line]]).rows[0].tolist()
    assert f"**{row[0]}** matched n-grams" in info and "reference 2 of 2 chosen" in info


def test_long_cells_say_how_much_is_not_shown():
    scored = app.score("a " * 400, "b", "13a", 1, 4, False)
    cell = app.segment_table(scored)["prediction"][0]
    assert cell.startswith("a a") and cell.endswith(f"… (+{800 - 1 - app.MAX_CELL_CHARS:,} characters)")


def test_run_shows_a_message_for_bad_input():
    outputs = app.run("a\nb", "a", "13a", 1, 4, False)
    assert outputs[0]["visible"] and "2 prediction lines but 1 reference lines" in outputs[0]["value"]
    assert outputs[1] == "" and outputs[5] is None  # no earlier result stays on the page
    outputs = app.run("the cat sat on the mat", "the cat ate the mat", "13a", 1, 4, False)
    assert (
        "Google-BLEU 0.3333" in outputs[1]
        and "1 segment\n" in outputs[1]
        and outputs[4]["sentence_scores"] == [0.3333333333333333]
    )
