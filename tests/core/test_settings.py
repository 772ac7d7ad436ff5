"""GLEU and GleuScore, and the same numbers from every surface built on them.

On the real WMT samples that ship in the repository, ``GLEU``, the evaluate module
(``google_bleu.load()``) and the CLI's JSON give the same score, totals, interval and
signature; nltk (via the HF pipeline) is the outside oracle for the score.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

import google_bleu
from google_bleu import GLEU, GleuScore, get_tokenizer, gleu_stats
from google_bleu.scale.lines import lines_from_bytes
from tests.helpers.oracles import SAMPLES, decimal_figure, hf_google_bleu, nltk_sentence, tokenize_13a

WMT17 = SAMPLES / "wmt17_en_de"
WMT22 = SAMPLES / "wmt22_en_ja"


def read(path) -> list[str]:
    return lines_from_bytes(path.read_bytes(), str(path))


@pytest.fixture(scope="module")
def metric():
    return google_bleu.load()


def cli_json(*args):
    done = subprocess.run(
        [sys.executable, "-m", "google_bleu", *map(str, args), "-w", "17"], capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


# (folder, systems, extra reference systems, settings) on the bundled real data.
CROSS_SURFACE = [
    pytest.param(WMT17, "sys_uedin-nmt.4722.txt", [], {}, id="wmt17-13a"),
    pytest.param(WMT17, "sys_PROMT-Rule-based.4735.txt", [], {"lowercase": True, "min_len": 2}, id="wmt17-lc-2-4"),
    pytest.param(
        WMT17, "sys_online-A.0.txt", ["sys_online-B.0.txt"], {"tokenizer": "intl", "max_len": 3}, id="wmt17-2refs-intl"
    ),
    pytest.param(WMT22, "sys_Online-W.txt", [], {"tokenizer": "char"}, id="wmt22-char"),
]
CLI_OPTIONS = {"tokenizer": "--tokenize", "min_len": "--min-len", "max_len": "--max-len"}


@pytest.mark.parametrize(("folder", "system", "more_refs", "settings"), CROSS_SURFACE)
def test_gleu_evaluate_and_cli_agree_on_real_data(metric, folder, system, more_refs, settings):
    predictions = read(folder / system)
    ref_paths = [folder / "ref0.txt", *(folder / name for name in more_refs)]
    references = [list(refs) for refs in zip(*map(read, ref_paths))]
    scorer = GLEU(**settings)
    score = scorer.corpus_score(predictions, references, n_bootstrap=200)

    # The evaluate module: its dict is GleuScore.to_dict() without the totals.
    result = metric.compute(predictions=predictions, references=references, n_bootstrap=200, **settings)
    assert result == {key: value for key, value in score.to_dict().items() if not key.startswith("n_")}
    # The CLI: its JSON is GleuScore.json_object() with the system's name.
    argv = [*ref_paths, "-i", folder / system, "-ci", "-cin", "200"]
    for key, value in settings.items():
        argv += ["-lc"] if key == "lowercase" else [CLI_OPTIONS[key], value]
    out = cli_json(*argv)
    orders = {"min_len": scorer.min_len, "max_len": scorer.max_len}
    assert out == {"name": "GLEU", "system": str(folder / system), **score.json_object(17), **orders}
    assert out["n_match"] / out["n_all"] == score.score
    # The outside oracle: HF's pipeline (13a or the named tokenizer, then nltk).
    if not settings.get("lowercase") and settings.get("tokenizer", "13a") == "13a" and not more_refs:
        assert score.score == hf_google_bleu(predictions, references, **settings)


def test_paired_tests_agree_across_surfaces():
    # The command line's paired tests print what GLEU.paired_scores gives (whose numbers
    # tests/core/test_significance.py checks against the one-system functions).
    references = read(WMT17 / "ref0.txt")
    names = ["sys_online-B.0.txt", "sys_uedin-nmt.4722.txt", "sys_PROMT-Rule-based.4735.txt"]
    scorer = GLEU()
    stats = [scorer.stats(read(WMT17 / name), references) for name in names]
    for test, n in (("bs", 300), ("ar", 500)):
        scores = scorer.paired_scores(stats, test, n, seed=3, n_bootstrap=200)
        assert [score.n_match / score.n_all for score in scores] == [s.score() for s in stats]
        signature = {"bs": "|bs:300|seed:3|", "ar": "|ar:500|bs:200|seed:3|"}[test]
        assert all(signature in score.signature for score in scores)
        out = cli_json(
            WMT17 / "ref0.txt",
            "-i",
            *(WMT17 / name for name in names),
            f"--paired-{test}",
            "--paired-n",
            n,
            "--seed",
            3,
            "-cin",
            200,
        )
        for obj, score, index in zip(out, scores, range(len(names))):
            values = score.json_object(17)
            values.pop("p_value", None)
            assert obj == {
                "name": "GLEU",
                "system": str(WMT17 / names[index]),
                **values,
                "min_len": 1,
                "max_len": 4,
                "baseline": index == 0,
                "p_value": None if score.p_value is None else round(score.p_value, 4),
            }


# -- GLEU -------------------------------------------------------------------------------------


def test_settings_are_checked_once_in_the_constructor():
    scorer = GLEU(tokenizer="char", lowercase=True, min_len=2, max_len=3)
    assert repr(scorer) == "GLEU(tokenizer='char', lowercase=True, min_len=2, max_len=3)"
    assert scorer.signature(2).rsplit("|", 1)[0] == "nrefs:2|case:lc|tok:char|ngram:2-3"
    stats = scorer.stats(["AB c"], ["ab c"])
    assert (stats.min_len, stats.max_len) == (2, 3)
    assert stats == GLEU(tokenizer="char", lowercase=True, min_len=2, max_len=3).stats(["AB c"], ["ab c"])


def test_a_signature_keeps_its_fields_and_formats_itself_short_or_long():
    import copy
    import pickle

    score = GLEU("char", lowercase=True, min_len=2, max_len=3).corpus_score(["a b"], ["a c"], n_bootstrap=50, seed=None)
    fields = (("nrefs", "1"), ("case", "lc"), ("tok", "char"), ("ngram", "2-3"), ("bs", "50"), ("seed", "none"))
    assert score.signature.fields == (*fields, ("version", google_bleu.__version__))
    assert score.signature.formatted() == score.signature == "|".join(f"{name}:{value}" for name, value in score.signature.fields)
    short = score.signature.formatted(short=True)
    assert short == f"#:1|c:lc|tok:char|n:2-3|bs:50|rs:none|v:{google_bleu.__version__}"
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # a score sent to another process keeps them
        same = pickle.loads(pickle.dumps(score, protocol))
        assert same == score and same.signature.fields == score.signature.fields
        assert same.signature.formatted(short=True) == short
    assert copy.deepcopy(score).signature.formatted(short=True) == short
    assert json.loads(json.dumps(score.to_dict()))["signature"] == score.signature


def test_the_scorer_is_an_immutable_value():
    import pickle

    scorer = GLEU("char", lowercase=True, min_len=2, max_len=3)
    for name, value in (("min_len", 9), ("max_len", 1), ("tokenizer", "13a"), ("lowercase", False)):
        with pytest.raises(AttributeError):
            setattr(scorer, name, value)
    with pytest.raises(AttributeError):
        del scorer.min_len
    assert (scorer.min_len, scorer.max_len, scorer.lowercase) == (2, 3, True)
    with pytest.raises(AttributeError, match="immutable"):
        scorer.tokenizer.lowercase = False  # its tokenizer too: the hash cannot change under a dict
    same = pickle.loads(pickle.dumps(scorer))
    assert same == scorer and hash(same) == hash(scorer) and {scorer: 1}[same] == 1
    assert scorer.replace(max_len=4) == GLEU("char", lowercase=True, min_len=2, max_len=4)
    assert scorer.replace(lowercase=False).lowercase is False and scorer.replace(tokenizer="13a").lowercase is False
    with pytest.raises(ValueError, match="max_len must be >= min_len"):
        scorer.replace(max_len=1)
    with pytest.raises(TypeError, match="replace\\(\\) takes the settings"):
        scorer.replace(n_bootstrap=10)


def test_lowercase_has_one_home():
    # The Tokenizer holds the setting; GLEU reports it from there, so the signature always
    # says what was applied.
    lowercasing = get_tokenizer("13a", lowercase=True)
    for scorer in (GLEU(lowercasing), GLEU(lowercasing, lowercase=False), GLEU("13a", lowercase=True)):
        assert scorer.lowercase is True and scorer.tokenizer.lowercase is True
        assert "|case:lc|" in scorer.signature()
        assert scorer.corpus_score(["The Cat"], ["the cat"]).score == 1.0
    assert GLEU().lowercase is False and "|case:mixed|" in GLEU().signature()
    with pytest.raises(AttributeError):
        GLEU().lowercase = True  # read from the tokenizer, not stored twice
    plain = get_tokenizer("13a")
    assert get_tokenizer(plain) is plain and get_tokenizer(plain, lowercase=True).lowercase is True
    assert plain.lowercase is False  # never changed in place


def test_score_stats_refuses_other_orders():
    stats = GLEU(max_len=3).stats(["a b"], ["a b"])
    with pytest.raises(ValueError, match="stats were counted with orders 1-3, not 1-4"):
        GLEU().score_stats(stats)
    with pytest.raises(TypeError, match="stats must be a GleuStats, got dict"):
        GLEU().score_stats({"n_match": 1})


@pytest.mark.parametrize("size", [1, 8, 300])  # one pair, a few, the whole sample: both strategies
def test_sentence_scores_and_token_statistics_equal_nltk(size):
    scorer = GLEU()
    predictions, references = read(WMT17 / "sys_online-B.0.txt")[:size], read(WMT17 / "ref0.txt")[:size]
    expected = [nltk_sentence([tokenize_13a(r)], tokenize_13a(p)) for p, r in zip(predictions, references)]
    assert scorer.sentence_scores(predictions, references) == expected
    assert [scorer.sentence_score(p, [r]).score for p, r in zip(predictions, references)] == expected
    tokens = gleu_stats([tokenize_13a(p) for p in predictions], [[tokenize_13a(r)] for r in references])
    assert tokens.sentence_scores().tolist() == expected


# -- GleuScore -----------------------------------------------------------------------------------


def test_score_object_formats():
    score = GLEU().corpus_score(["the cat sat on the mat"], [["the cat ate the mat"]])
    assert (score.score, score.n_match, score.n_hyp, score.n_ref, score.n_all) == (6 / 18, 6, 18, 14, 18)
    assert (score.ci_low, score.ci_high, score.p_value) == (None, None, None)
    assert str(score) == score.format() == f"GLEU|{score.signature} = 33.3 (P = 33.3, R = 42.9), scale 0-100"
    assert score.format(width=3, score_only=True) == "33.333"
    assert json.loads(score.format(json=True)) == {
        "name": "GLEU",
        "score": 33.3,
        "precision": 33.3,
        "recall": 42.9,
        "scale": "0-100",
        "signature": score.signature,
        "n_match": 6,
        "n_hyp": 18,
        "n_ref": 14,
        "n_all": 18,
    }
    assert set(score.to_dict()) == {
        "google_bleu",
        "precision",
        "recall",
        "signature",
        "n_match",
        "n_hyp",
        "n_ref",
        "n_all",
    }
    with_ci = dataclasses.replace(score, ci_low=0.25, ci_high=0.5, p_value=0.01234)
    assert with_ci.format() == f"GLEU|{score.signature} = 33.3 [25.0, 50.0] (P = 33.3, R = 42.9) p = 0.0123, scale 0-100"
    assert with_ci.json_object()["p_value"] == 0.0123 and with_ci.to_dict()["p_value"] == 0.01234
    assert score.figures() == {"score": "33.3", "precision": "33.3", "recall": "42.9"}
    assert with_ci.figures(2, scale=1) == {
        "score": "0.33",
        "precision": "0.33",
        "recall": "0.43",
        "ci_low": "0.25",
        "ci_high": "0.50",
        "p_value": "0.0123",
    }
    # Width and scale pass one integer test: 100.0 is refused as 2.0 is (format printed
    # "scale 0-100.0" before).
    for scale, error in ((10, ValueError), (100.0, TypeError), (1.0, TypeError), (True, TypeError), ("100", TypeError)):
        for show in (score.format, score.figures, score.json_object):
            with pytest.raises(error, match=r"scale must be the integer 100 \(0-100, as sacrebleu\) or 1"):
                show(scale=scale)
    assert score.format(scale=np.int64(1)).endswith(", scale 0-1")
    for width, error in ((18, ValueError), (-1, ValueError), (1.0, TypeError), (True, TypeError)):
        with pytest.raises(error, match="width must be an integer from 0 to 17"):
            score.format(width=width)
        with pytest.raises(error, match="width must be an integer from 0 to 17"):
            score.figures(width)
        with pytest.raises(error, match="width"):
            score.json_object(width)


def test_a_score_says_its_scale_where_a_sacrebleu_user_looks():
    # float(result) raised TypeError, and the repr did not say that score is 0-1 while print
    # shows 0-100.
    score = GLEU().corpus_score(["the cat sat on the mat"], [["the cat ate the mat"]], n_bootstrap=20)
    assert float(score) == score.score == 6 / 18
    assert GleuScore.scale == score.scale == "0-1"
    assert repr(score).startswith(f"GleuScore(scale='0-1', score={6 / 18!r}, precision={6 / 18!r}, recall={6 / 14!r}")
    assert "ci_low=" in repr(score) and "p_value" not in repr(score)
    assert str(score).startswith(f"GLEU|{score.signature} = 33.3 [") and str(score).endswith(", scale 0-100")
    assert f"{100 * float(score):.1f}" == score.format(score_only=True)


def test_score_of_an_empty_corpus_is_zero():
    score = GLEU().corpus_score([], [], n_bootstrap=10)
    assert (score.score, score.n_all, score.ci_low, score.ci_high) == (0.0, 0, 0.0, 0.0)
    assert isinstance(score, GleuScore)


def test_by_order_tokenizes_each_line_once_and_walks_once(monkeypatch):
    # The corpus figures and every order's come from one tokenization and one walk, in the
    # Python API and the command alike: each of the 300 hypotheses and 300 references once.
    import io

    from google_bleu import text as gleu
    from google_bleu.cli.main import run
    from tests.helpers.wmt17 import SAMPLE, wmt17_sample

    sample = wmt17_sample()
    system, reference = sample["systems"]["online-A.0"], sample["reference"]
    tokenized, calls = [], []
    real_tokenized, real_walk = gleu.tokenized, gleu.order_text_stats

    def counting_tokenized(tokenize, lines, store=None):
        tokenized.extend(lines)
        return real_tokenized(tokenize, lines, store)

    def counting_walk(*args):
        calls.append(args[-1])
        return real_walk(*args)

    monkeypatch.setattr(gleu, "tokenized", counting_tokenized)
    scorer = GLEU(max_len=3)
    monkeypatch.setattr("google_bleu.settings.order_text_stats", counting_walk)
    score = scorer.corpus_score(system, reference, by_order=True)
    assert len(tokenized) == 600 and calls == [True]
    assert score.score == scorer.corpus_score(system, reference).score
    for n, order in score.orders:
        assert order.score == GLEU(min_len=n, max_len=n).corpus_score(system, reference).score

    tokenized.clear()
    out = io.StringIO()
    run([str(SAMPLE / "ref0.txt"), "-i", str(SAMPLE / "sys_online-A.0.txt"), "--by-order", "--max-len", "3"], out)
    assert len(tokenized) == 600
    printed = json.loads(out.getvalue())
    assert printed["score"] == round(100 * score.score, 1)


@pytest.mark.parametrize("width", [0, 1, 3, 14, 17])
@pytest.mark.parametrize("scale", [100, 1])
def test_a_figure_is_printed_the_same_on_every_surface_and_holds_no_noise(width, scale):
    # -w 0 printed 29 as text but 29.0 in JSON; -w 17 printed float noise (29.30151764490765842
    # where the value is 29.3015176449076614...).
    import io

    from google_bleu.cli.main import run

    system, reference = read(WMT17 / "sys_online-A.0.txt"), read(WMT17 / "ref0.txt")
    score = GLEU().corpus_score(system, reference)
    expected = decimal_figure(score.n_match, score.n_all, width, scale)
    recall = decimal_figure(score.n_match, score.n_ref, width, scale)
    assert score.format(width, score_only=True, scale=scale) == score.figures(width, scale)["score"] == expected
    assert f" = {expected} (P = " in score.format(width, scale=scale)
    assert f'"score": {expected}, ' in score.format(width, json=True, scale=scale)
    argv = [str(WMT17 / "ref0.txt"), "-i", str(WMT17 / "sys_online-A.0.txt"), "-w", str(width), "--scale", str(scale)]

    def printed(*extra: str) -> str:
        out = io.StringIO()
        run([*argv, *extra], out)
        return out.getvalue()

    assert printed("-b") == expected + "\n"
    assert f" = {expected} (P = " in printed("-f", "text")
    document = printed()
    assert f'"score": {expected},\n' in document and f'"recall": {recall},\n' in document
    assert json.loads(document)["score"] == (int(expected) if width == 0 else float(expected))
    lines = printed("--sentence-level", "-b").splitlines()
    rows = GLEU().stats(system, reference).rows.tolist()
    assert lines == [decimal_figure(m, a, width, scale) if a else decimal_figure(0, 1, width, scale) for m, _, _, a in rows]
    sentences = printed("--sentence-level").splitlines()
    assert [json.loads(line)["score"] for line in sentences] == [float(text) for text in lines]
    assert all(f'"score": {text}, ' in line for text, line in zip(lines, sentences))
