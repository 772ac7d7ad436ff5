"""The Space (app.py): the real app on a local port, driven with gradio_client.

Scores through the ``compute`` endpoint equal the evaluate module's on real data; bad input
gives its message; concurrent requests get their own results. The page's helpers are
tested directly; the page itself in a real browser in test_browser.py.
"""

from __future__ import annotations

import doctest
import re
from concurrent.futures import ThreadPoolExecutor

import evaluate
import gradio
import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

import app
from google_bleu import explain, get_tokenizer, text_stats
from tests.oracles import CARD_PREDICTIONS, CARD_REFERENCES, REPO, SAMPLES, read_lines


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(str(REPO / "google_bleu"))


@pytest.fixture(scope="module")
def client(app_url):
    return Client(app_url, verbose=False)


def as_text(references):
    """References in the page's format: one line a segment, several separated by tabs."""
    return "\n".join("\t".join(refs) if isinstance(refs, list) else refs for refs in references)


def call(client, predictions, references, tokenizer="13a", min_len=1, max_len=4, lowercase=False):
    return client.predict(
        "\n".join(predictions), as_text(references), tokenizer, min_len, max_len, lowercase, api_name="/compute"
    )


def expected(metric, predictions, references, **options):
    return metric.compute(predictions=predictions, references=references, return_sentence_scores=True, **options)


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


def test_every_newline_starts_a_line(client, metric):
    got = client.predict("a b\nc d\n", "a b\nc e\n", "13a", 1, 4, False, api_name="/compute")
    assert got == expected(metric, ["a b", "c d", ""], ["a b", "c e", ""])
    assert len(got["sentence_scores"]) == 3
    with pytest.raises(AppError, match="the predictions end with a newline, which starts one more"):
        client.predict("a b\n", "a b", "13a", 1, 4, False, api_name="/compute")


# -- bad input gives its message ----------------------------------------------------------
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("a\nb", "a", "13a", 1, 4, False), "2 prediction lines but 1 reference lines"),
        (("", "", "13a", 1, 4, False), "no input"),
        (("a b", "  ", "13a", 1, 4, False), "references are empty"),
        (("a", "a", "nonsense", 1, 4, False), "unknown tokenizer 'nonsense'"),
        (("a", "a", "spm", 1, 4, False), "unknown tokenizer 'spm'"),
        (("a", "a", "13a", 0, 4, False), "min_len must be >= 1, got min_len=0"),
        (("a", "a", "13a", 3, 2, False), "max_len must be >= min_len, got min_len=3 and max_len=2"),
        (("a", "a", "13a", 1, 101, False), "max_len must be <= 100"),
        (("a", "a", "13a", 1.5, 4, False), "min_len must be an integer"),
        (("a", "a", "13a", 1, 4, "yes"), "lowercase must be a bool"),
        (("x" * app.MAX_INPUT_CHARS, "y", "13a", 1, 4, False), "input too large: 2,000,001 characters"),
        (("a\n" * app.MAX_SEGMENTS + "a", "a\n" * app.MAX_SEGMENTS + "a", "13a", 1, 4, False), "too many segments"),
    ],
)
def test_bad_input_gives_its_message(client, arguments, message):
    with pytest.raises(AppError, match=re.escape(message)):
        client.predict(*arguments, api_name="/compute")


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
    predictions, references = app.parse_inputs("p1\n\np3", "r1\tr1b\nr2\nr3\t")
    assert predictions == ["p1", "", "p3"]
    assert references == [["r1", "r1b"], ["r2"], ["r3", ""]]


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
    state = {
        "predictions": ["the cat sat on the mat"],
        "references": [["a dog", "the cat ate the mat"]],
        "tokenizer": "13a",
        "lowercase": False,
        "min_len": 1,
        "max_len": 4,
    }
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
