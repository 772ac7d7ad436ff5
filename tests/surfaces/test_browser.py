"""The Space in a real headless browser: Debian's chromium driven by playwright, at a
desktop's width (1280 px) and a phone's (390 px).

Skips, with the reason, only where chromium cannot be had (``make test`` installs it as
root); under CI (``CI=true``) a missing browser is a failure, not a skip. Screenshots are
saved under ``artifacts/`` (git-ignored), named by width.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.helpers.oracles import CARD_PREDICTIONS, CARD_REFERENCES, REPO

# CHROMIUM_PATH points at another Debian chromium binary (or at none, to check the skip).
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "artifacts"


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        reason = f"Debian's chromium not found at {CHROMIUM} (as root: apt-get install chromium; make test does it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the browser test: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


#: (width, height) of the screens the page is tried on: a desktop and a phone (390 px wide).
SCREENS = {"desktop": (1280, 800), "phone": (390, 844)}


@pytest.fixture(params=list(SCREENS))
def page(request, browser, app_url):
    width, height = SCREENS[request.param]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(30_000)
    page.goto(app_url)
    page.wait_for_selector("#compute")
    page.screen = request.param
    yield page
    page.close()


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}-{page.screen}.png"), full_page=True)


def top(page, selector) -> float:
    """Where an element starts, in px from the top of the page."""
    return page.locator(selector).first.evaluate("e => e.getBoundingClientRect().top + window.scrollY")


def shown_score(page) -> str:
    """The corpus score on the page (0-100, two decimals)."""
    page.wait_for_selector("#score h2")
    return re.search(r"GLEU \(0–100\): (\d+\.\d{2})", page.inner_text("#score")).group(1)


def test_paste_compute_read_score_highlight_and_table(page):
    import evaluate

    wanted = evaluate.load(str(REPO / "google_bleu")).compute(predictions=CARD_PREDICTIONS, references=CARD_REFERENCES)
    page.locator("#predictions textarea").fill("\n".join(CARD_PREDICTIONS))
    # Several references typed as anyone can type them (a tab would move the focus): |||.
    page.locator("#references textarea").fill("\n".join(" ||| ".join(refs) for refs in CARD_REFERENCES))
    # No empty result panels before the first score.
    assert not page.locator("#results").is_visible() and not page.get_by_role("tab", name="Segments").is_visible()
    page.click("#compute")
    assert shown_score(page) == f"{100 * wanted['google_bleu']:.2f}"
    assert wanted["signature"] in page.inner_text("#score")

    # Why this score: segment 1, its chosen reference, matched n-grams highlighted.
    assert "Segment 1" in page.inner_text("#segment-info")
    assert "reference 2 of 3 chosen" in page.inner_text("#segment-info")
    highlighted = page.locator("#highlight-prediction .highlighted")
    assert highlighted.count() > 0
    assert "It is a guide to action" in highlighted.first.inner_text()
    assert page.locator("#highlight-reference .highlighted").count() > 0
    # Matched 1-grams side by side are two highlights, not one that reads as a 2-gram.
    boxes = [text.strip() for text in highlighted.all_inner_texts()]
    assert "the commands" not in " | ".join(boxes) and boxes.count("commands") == 1 and "the" in boxes
    shot(page, "space")

    # The table: one row per segment with its prediction; clicking a row explains it.
    page.get_by_role("tab", name="Segments").click()
    table = page.locator("#segments")
    for prediction in CARD_PREDICTIONS:
        table.get_by_text(prediction, exact=True).filter(visible=True).first.wait_for()
    table.get_by_text(CARD_PREDICTIONS[1], exact=True).filter(visible=True).first.click()
    page.get_by_role("tab", name="Why").click()
    page.wait_for_function("document.querySelector('#segment-info').innerText.includes('Segment 2')")
    assert "he was interested in world history" in page.inner_text("#highlight-reference")
    shot(page, "space-segment-2")

    # The distribution plot renders.
    page.get_by_role("tab", name="Histogram").click()
    page.locator("#distribution canvas, #distribution svg").first.wait_for()


#: Each two neighbouring pieces of the highlighted text with no space between them in the text,
#: on one line: the gap between their glyphs, in px; and the width of a space in their font.
_GLYPH_GAPS = """(root) => {
  const texts = Array.from(document.querySelectorAll(root + ' .textfield span.text'), (e) => e.firstChild)
    .filter((node) => node && node.data);
  const box = (node, i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
    return r.getBoundingClientRect(); };
  const gaps = [];
  texts.slice(1).forEach((b, i) => {
    const a = texts[i];
    if (/\\s$/.test(a.data) || /^\\s/.test(b.data)) return;
    const left = box(a, a.data.length - 1), right = box(b, 0);
    if (Math.abs(left.top - right.top) < 2) gaps.push([a.data + '|' + b.data, right.left - left.right]);
  });
  const context = document.createElement('canvas').getContext('2d');
  context.font = getComputedStyle(texts[0].parentElement).font;
  return {gaps, space: context.measureText(' ').width};
}"""


def test_highlights_add_no_space_the_text_lacks(page):
    # Segment 3 of the WMT17 example: "sagt," with the comma matched and the word not.
    page.get_by_text("WMT17 en→de, uedin-nmt, 40 segments", exact=True).click()
    page.locator("#segment-info").get_by_text("Segment 1").wait_for()
    page.locator("#segment input").fill("3")
    page.locator("#segment input").press("Enter")
    page.locator("#segment-info").get_by_text("Segment 3").wait_for()
    for side in ("#highlight-prediction", "#highlight-reference"):
        measured = page.evaluate(_GLYPH_GAPS, side)
        assert measured["gaps"], side  # the segment has such neighbours
        wide = [(pair, round(gap, 1)) for pair, gap in measured["gaps"] if gap >= measured["space"] / 2]
        assert wide == [], (side, measured["space"], wide)
    page.locator("#highlight-prediction").scroll_into_view_if_needed()
    shot(page, "space-highlight")


def test_an_example_computes_when_clicked_and_shows_the_original_words(page):
    page.get_by_text("WMT17 en→de, uedin-nmt, 40 segments", exact=True).click()
    shown_score(page)  # no click on Compute
    page.locator("#segment-info").get_by_text("Segment 1").wait_for()
    prediction = page.locator("#predictions textarea").input_value().split("\n")[0]
    # The highlighted prediction is the line as written (not 13a's "28 - jähriger").
    shown = page.inner_text("#highlight-prediction")
    assert " ".join(prediction.split()[:6]) in " ".join(shown.split())
    assert page.locator("#highlight-prediction .highlighted").count() > 0
    shot(page, "space-example")


def test_example_click_and_bad_input_message(page):
    page.get_by_text("The cat sat on the mat", exact=True).click()
    page.wait_for_function("document.querySelector('#predictions textarea').value === 'the cat sat on the mat'")
    assert shown_score(page) == "33.33"

    page.locator("#predictions textarea").fill("one\ntwo")
    page.locator("#references textarea").fill("one")
    _open_uploads(page)  # the upload section open, as when files were loaded
    page.click("#compute")
    message = page.locator("#message")
    message.wait_for(state="visible")
    assert "2 prediction lines but 1 reference lines" in message.inner_text()
    assert "Traceback" not in page.content()
    # The earlier result is cleared, so it cannot be taken for this input's.
    page.wait_for_selector("#score h2", state="detached")
    # The message is next to Compute: within a short distance below it, on screen.
    assert 0 <= top(page, "#message") - top(page, "#compute") < 150
    box = page.locator("#message").bounding_box()
    assert box and 0 <= box["y"] and box["y"] + box["height"] <= page.viewport_size["height"]
    shot(page, "space-error")


#: (field, what is typed, the message under Compute): every order the page refuses.
BAD_ORDERS = [
    ("min_len", "0", "min_len must be >= 1, got min_len=0"),
    ("min_len", "-2", "min_len must be >= 1, got min_len=-2"),
    ("max_len", "101", "max_len must be <= 100, got max_len=101"),
    ("min_len", "5", "max_len must be >= min_len, got min_len=5 and max_len=4"),
    ("max_len", "", "max_len must be an integer from 1 to 100, got none: the field is empty"),
    ("min_len", "1.5", "min_len must be an integer, got float 1.5"),  # said, not rounded to 2
]


def _no_error_pill_or_toast(page) -> bool:
    """No "Error" on screen: gradio's pill over an output, or its toast."""
    return page.get_by_text("Error", exact=True).filter(visible=True).count() == 0


def test_a_bad_order_is_said_under_compute_in_place_of_the_last_message(page):
    page.get_by_text("The cat sat on the mat", exact=True).click()
    assert shown_score(page) == "33.33"
    message = page.locator("#message")
    for field, typed, wanted in BAD_ORDERS:
        page.get_by_label(field, exact=True).fill(typed)
        page.click("#compute")
        page.wait_for_function(
            "(text) => { const e = document.querySelector('#message'); return e && e.innerText.includes(text); }",
            arg=wanted, timeout=10_000,
        )
        # The one message, this order's (none stale), right under Compute and on screen; the old
        # result gone, and no error pill or toast of gradio's in its place.
        assert message.inner_text().strip() == f"⚠️ {wanted}"
        assert 0 <= top(page, "#message") - top(page, "#compute") < 150 and on_screen(page, "#message")
        page.wait_for_selector("#results", state="hidden")
        assert _no_error_pill_or_toast(page), typed
        if typed == "101":
            shot(page, "space-bad-order")
        page.get_by_label(field, exact=True).fill({"min_len": "1", "max_len": "4"}[field])
    page.click("#compute")
    assert shown_score(page) == "33.33" and not message.is_visible()
    # The segment number too: out of range or not whole, said beside the highlight, not refused by gradio.
    for typed in ("0", "2", "1.5"):
        page.locator("#segment input").fill(typed)
        page.locator("#segment input").press("Enter")
        page.locator("#segment-info").get_by_text("choose a segment between 1 and 1").wait_for(timeout=10_000)
        assert _no_error_pill_or_toast(page), typed


def test_oversize_input_shows_its_message(page):
    # One character over the page's cap, typed into the box as a user would paste it.
    from space import limits

    page.locator("#predictions textarea").fill("x" * limits.MAX_INPUT_CHARS)
    page.locator("#references textarea").fill("y")
    page.click("#compute")
    message = page.locator("#message")
    message.wait_for(state="visible", timeout=60_000)
    assert f"input too large: {limits.MAX_INPUT_CHARS + 1:,} characters" in message.inner_text()
    assert "Traceback" not in page.inner_text("body")


def test_the_first_screen_holds_compute_and_the_examples(page):
    # Before any scrolling, on a desktop and on a phone: the introduction is short, and
    # Compute and the first examples are on the first screen.
    height = page.viewport_size["height"]
    assert top(page, "#compute") + 40 < height
    first_example = page.get_by_text("Metric card: 3 references (GLEU 61)", exact=True)
    assert first_example.bounding_box()["y"] + 30 < height
    # The number in an example's label says what it is: the card's GLEU, on the 0-100 scale.
    assert "GLEU: the score the metric card gives, 0–100" in page.inner_text("#examples")
    first_example.click()
    assert shown_score(page) == "61.11"  # the card's 0.61
    shot(page, "space-first-screen")


def test_every_result_tab_shows_and_the_segment_label_names_one(page):
    page.get_by_text("The cat sat on the mat", exact=True).click()
    shown_score(page)
    for name in ("Why", "Segments", "Histogram", "Raw"):
        assert page.get_by_role("tab", name=name, exact=True).is_visible(), name
    assert not page.get_by_label("More tabs").is_visible()  # nothing folded behind "⋯"
    assert "its row under Segments" in page.inner_text("#segment")


def _open_uploads(page):
    page.get_by_text("Upload files instead").click()
    page.locator("input[type=file]").first.wait_for(state="attached")


def test_an_upload_clears_the_old_result_and_names_its_file(page, tmp_path):
    page.get_by_text("The cat sat on the mat", exact=True).click()
    shown_score(page)
    (tmp_path / "hyp.txt").write_text("a b c\nd e\n", encoding="utf-8")
    (tmp_path / "ref0.txt").write_text("a b x\nd e\n", encoding="utf-8")
    (tmp_path / "ref1.txt").write_text("a b c\nd f\n", encoding="utf-8")
    _open_uploads(page)
    page.locator("input[type=file]").nth(0).set_input_files(str(tmp_path / "hyp.txt"))
    page.locator("#loaded-predictions").get_by_text("hyp.txt").wait_for()
    assert "Loaded hyp.txt into the predictions box: 2 lines." in page.inner_text("#loaded-predictions")
    # The box holds the new text, and no score of the old text stays beside it.
    assert page.locator("#predictions textarea").input_value() == "a b c\nd e"
    page.wait_for_selector("#results", state="hidden")
    page.locator("input[type=file]").nth(1).set_input_files([str(tmp_path / "ref0.txt"), str(tmp_path / "ref1.txt")])
    page.locator("#loaded-references").get_by_text("ref1.txt").wait_for()
    assert page.locator("#references textarea").input_value() == "a b x ||| a b c\nd e ||| d f"
    page.click("#compute")
    assert shown_score(page) == "100.00"
    shot(page, "space-uploaded")


def test_a_refused_upload_says_why_under_the_upload_and_keeps_the_result(page, tmp_path):
    page.get_by_text("The cat sat on the mat", exact=True).click()
    assert shown_score(page) == "33.33"
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "sys.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (tmp_path / "sys.txt").write_text("café\n", encoding="utf-8")
    _open_uploads(page)
    page.locator("#prediction-file").scroll_into_view_if_needed()  # where a user clicks to upload
    page.locator("input[type=file]").nth(0).set_input_files(str(tmp_path / "bad" / "sys.txt"))
    note = page.locator("#loaded-predictions")
    note.get_by_text("Not loaded").wait_for()
    # The reason is right under the upload, on screen, in the message colour.
    assert note.inner_text().startswith("⚠️ Not loaded: sys.txt is not UTF-8 text") and note.inner_text().count("sys.txt") == 1
    below_upload = top(page, "#loaded-predictions") - page.locator("#prediction-file").evaluate(
        "e => e.getBoundingClientRect().bottom + window.scrollY"
    )
    assert 0 <= below_upload < 80
    assert on_screen(page, "#loaded-predictions"), note.bounding_box()
    assert note.evaluate("e => getComputedStyle(e.querySelector('p') || e).color") == "rgb(185, 28, 28)"
    # Nothing else changed: the boxes hold the text that was scored, so its score stays.
    assert not page.locator("#message").is_visible()
    assert page.locator("#predictions textarea").input_value() == "the cat sat on the mat"
    assert shown_score(page) == "33.33"
    shot(page, "space-upload-refused")
    # The same name, now UTF-8: loaded; the note says so, and the old score goes with the old text.
    page.locator("input[type=file]").nth(0).set_input_files(str(tmp_path / "sys.txt"))
    page.wait_for_function("document.querySelector('#loaded-predictions').innerText.startsWith('Loaded sys.txt')")
    assert note.evaluate("e => getComputedStyle(e.querySelector('p') || e).color") != "rgb(185, 28, 28)"
    assert page.locator("#predictions textarea").input_value() == "café"
    page.wait_for_selector("#results", state="hidden")


# -- the phone and the keyboard --------------------------------------------------------------
def on_screen(page, selector) -> bool:
    """Whether the element is wholly in the viewport (to a pixel: scrolling rounds)."""
    box = page.locator(selector).first.bounding_box()
    return bool(box) and -1 <= box["y"] and box["y"] + box["height"] <= page.viewport_size["height"] + 1


def test_the_result_is_in_view_after_compute_and_after_an_example(page):
    # Compute from the first screen: the score shows right under it, in view.
    page.locator("#predictions textarea").fill("\n".join(CARD_PREDICTIONS))
    page.locator("#references textarea").fill("\n".join(" ||| ".join(refs) for refs in CARD_REFERENCES))
    page.click("#compute")
    shown_score(page)
    page.wait_for_function("document.querySelector('#score h2') !== null")
    page.wait_for_timeout(300)  # the page scrolls after the result renders
    assert on_screen(page, "#score"), page.locator("#score").bounding_box()
    # The last example, scrolled to and clicked: it fills the boxes (they grow) and the score,
    # above it on the page, is brought into view.
    last = page.get_by_text("WMT17 en→de, uedin-nmt, 40 segments", exact=True)
    last.scroll_into_view_if_needed()
    last.click()
    page.wait_for_function("document.querySelector('#score').innerText.includes('40 segments')")
    page.wait_for_timeout(300)
    assert on_screen(page, "#score"), page.locator("#score").bounding_box()
    shot(page, "space-result-in-view")


def _luminance(rgb: str) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(x) for x in re.findall(r"\d+", rgb)[:3])
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_compute_is_next_after_the_boxes_in_the_tab_order_with_a_visible_focus_ring(page):
    page.locator("#predictions textarea").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#references') !== null")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "compute"
    # The ring: a solid outline of at least 2 px, with 3:1 contrast (WCAG's for a focus
    # indicator) against the page behind it and against the button (after the transition).
    page.wait_for_timeout(400)  # the button's colour transition
    style = page.evaluate(
        """() => { const s = getComputedStyle(document.activeElement);
        return [s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor, s.backgroundColor,
                getComputedStyle(document.body).backgroundColor]; }"""
    )
    outline_style, width, color, button, background = style
    assert outline_style == "solid" and width >= 2, style
    assert _contrast(color, background) >= 3 and _contrast(color, button) >= 3, style
    # Enter on the focused button computes.
    page.locator("#predictions textarea").fill("the cat sat on the mat")
    page.locator("#references textarea").fill("the cat ate the mat")
    page.locator("#compute").focus()
    page.keyboard.press("Enter")
    assert shown_score(page) == "33.33"
    page.locator("#compute").focus()
    page.wait_for_timeout(400)
    shot(page, "space-focus")


def test_the_signature_wraps_only_between_its_fields(page):
    page.get_by_text("Metric card: 3 references (GLEU 61)", exact=True).click()
    from google_bleu import GLEU

    signature = page.locator("#score .signature")
    shown_score(page)
    # What the page shows (and a copy gives) is the signature, unchanged.
    assert signature.inner_text() == GLEU().corpus_score(CARD_PREDICTIONS, CARD_REFERENCES).signature
    # Each field is on one line (one box), and the whole signature fits the screen's width.
    fields = signature.locator("span")
    assert fields.count() == 5
    for i in range(fields.count()):
        assert fields.nth(i).evaluate("e => e.getClientRects().length") == 1, fields.nth(i).inner_text()
    assert signature.evaluate("e => e.getBoundingClientRect().right") <= page.viewport_size["width"]
    if page.screen == "phone":  # too long for one line at 390 px: wrapped, at a |
        assert signature.evaluate("e => e.getClientRects().length") > 1



# -- what a phone shows: the table and the chart whole; every refusal under its upload --------
#: Each word of the visible cells that the page breaks across lines (found with a Range per word).
_BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const cell of document.querySelectorAll(selector)) {
    if (!cell.offsetWidth) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""


def test_the_segments_table_and_the_histogram_read_whole(page):
    from space import render

    page.get_by_text("WMT17 en→de, uedin-nmt, 40 segments", exact=True).click()
    shown_score(page)
    page.get_by_role("tab", name="Segments").click()
    page.locator("#segments th").first.wait_for()
    headers = page.locator("#segments th[title]").evaluate_all("cells => cells.map(c => c.getAttribute('title'))")
    assert headers == ["#", f"GLEU ({render.SCALE})", "prediction", "chosen reference", "ref", "n_match", "n_all"]
    # No header cell narrower than its longest word ("n_mat / ch", "G/L/E/U" a letter a line),
    # no score or count broken ("3/4/./2/1"), at either width.
    numbers = "#segments tbody td:nth-child(-n+2), #segments tbody td:nth-child(n+5)"
    assert page.evaluate(_BROKEN_WORDS, "#segments th") == []
    assert page.evaluate(_BROKEN_WORDS, numbers) == []
    assert page.locator("#segments tbody td").nth(1).inner_text() == page.locator("#segments tbody td").nth(1).inner_text().strip()
    shot(page, "space-segments")

    page.get_by_role("tab", name="Histogram").click()
    title = page.locator("#distribution svg .role-title-text text, #distribution svg text.role-title-text").first
    title.wait_for()
    # The title whole, inside the chart and the screen.
    assert title.text_content() == f"Sentence scores ({render.SCALE})"
    chart = page.locator("#distribution svg").first.bounding_box()
    box = title.bounding_box()
    assert chart["x"] - 1 <= box["x"] and box["x"] + box["width"] <= chart["x"] + chart["width"] + 1, (box, chart)
    assert box["x"] + box["width"] <= page.viewport_size["width"]
    # The ten bins' labels (slanted), none over another: two neighbours are parallel lines of
    # text, as far apart across their direction as their height at least.
    gaps = page.evaluate(_LABEL_GAPS)
    assert len(gaps) == 9 and all(gap >= 0 for gap in gaps), gaps
    shot(page, "space-histogram")


#: For each two neighbouring bin labels of the histogram: the distance between them across the
#: direction of their text, less the text's height (negative: they overlap).
_LABEL_GAPS = """() => {
  const labels = Array.from(document.querySelectorAll('#distribution svg text'))
    .filter((t) => t.textContent.includes('\u2013') && t.closest('.role-axis-label'));
  const lines = labels.map((t) => {
    const m = t.getScreenCTM(), scale = Math.hypot(m.a, m.b);
    return {x: m.e, y: m.f, u: [m.a / scale, m.b / scale], height: t.getBBox().height * scale};
  });
  return lines.slice(1).map((line, i) => {
    const prev = lines[i], across = [-prev.u[1], prev.u[0]];
    return Math.abs((line.x - prev.x) * across[0] + (line.y - prev.y) * across[1]) - Math.max(line.height, prev.height);
  });
}"""


def _note(page, selector, starts):
    page.wait_for_function(
        "([selector, starts]) => { const e = document.querySelector(selector); return e && e.innerText.startsWith(starts); }",
        arg=[selector, starts],
    )
    return page.inner_text(selector)


def test_gradio_s_own_refusals_are_said_under_the_upload_and_no_note_is_stale(page, tmp_path):
    # gradio refuses a file of another type or over max_file_size in the browser, before sending
    # it, with a toast that passes: the note under the upload says why, in place of the last one.
    from space import limits

    (tmp_path / "hyp.txt").write_text("a b\nc d\n", encoding="utf-8")
    (tmp_path / "notes.csv").write_text("a,b\n", encoding="utf-8")
    (tmp_path / "big.txt").write_bytes(b"a b\n" * (limits.MAX_FILE_BYTES // 4 + 1))
    _open_uploads(page)
    upload = page.locator("input[type=file]")
    upload.nth(0).set_input_files(str(tmp_path / "hyp.txt"))
    _note(page, "#loaded-predictions", "Loaded hyp.txt into the predictions box: 2 lines.")
    upload.nth(0).set_input_files(str(tmp_path / "notes.csv"))
    note = _note(page, "#loaded-predictions", "⚠️ Not loaded: notes.csv is not a text file: upload .txt files")
    assert "Loaded" not in note
    page.locator("#prediction-file").scroll_into_view_if_needed()
    shot(page, "space-refused-type")
    upload.nth(0).set_input_files(str(tmp_path / "big.txt"))
    size = limits.MAX_FILE_BYTES + 4
    # One limit, said one way: the note names it as gradio's own toast does.
    toast = page.locator(".toast-body").filter(has_text="maximum allowed size")
    toast.wait_for()
    said = re.search(r"maximum allowed size of (\S+ \S+): ", toast.inner_text())[1]
    note = _note(page, "#loaded-predictions", f"⚠️ Not loaded: big.txt is too large: {size:,} bytes, at most ")
    assert note.endswith(f"at most {said} ({limits.MAX_FILE_BYTES:,} bytes)"), (said, note)
    assert page.locator("#predictions textarea").input_value() == "a b\nc d"  # the boxes unchanged
    shot(page, "space-refused-size")
    # The references: gradio sends the .txt among them and leaves the .csv out; the note names both.
    upload.nth(1).set_input_files([str(tmp_path / "hyp.txt"), str(tmp_path / "notes.csv")])
    note = _note(page, "#loaded-references", "Loaded hyp.txt into the references box: 2 lines, 1 reference a line.")
    assert note.endswith("⚠️ Not loaded: notes.csv is not a text file: upload .txt files, one segment a line"), note
    # A good file again: its note replaces the refusal.
    upload.nth(0).set_input_files(str(tmp_path / "hyp.txt"))
    _note(page, "#loaded-predictions", "Loaded hyp.txt into the predictions box: 2 lines.")


def test_the_tokenizer_leaves_nothing_drawn_open_after_tab(page):
    options = page.locator("#tokenizer li")
    page.locator("#tokenizer input").focus()  # as Tab reaches it: gradio opens its list
    options.first.wait_for()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#tokenizer') === null")
    page.wait_for_timeout(300)
    assert options.filter(visible=True).count() == 0  # no "✓ 13a" left over the settings
    shot(page, "space-settings-after-tab")
    # A click still opens the list and chooses from it.
    page.locator("#tokenizer input").click()
    page.locator("#tokenizer li").filter(has_text="intl").click()
    assert page.locator("#tokenizer input").input_value() == "intl"
    assert options.filter(visible=True).count() == 0
