"""Real WMT system outputs: 13a-tokenized scores equal nltk's, corpus and sentence level."""

import pytest

from google_bleu import GLEU, gleu_stats
from tests.helpers.oracles import SAMPLES, nltk_corpus, nltk_sentence, read_lines, tokenize_13a

pytestmark = pytest.mark.usefixtures("both_strategies")


def _check_system(ref_path, sys_path):
    refs = read_lines(ref_path)
    hyps = read_lines(sys_path)
    assert len(refs) == len(hyps)
    tok_refs = [[tokenize_13a(r)] for r in refs]
    tok_hyps = [tokenize_13a(h) for h in hyps]
    stats = GLEU().stats(hyps, refs)
    assert stats == gleu_stats(tok_hyps, tok_refs)
    assert stats.score() == nltk_corpus(tok_refs, tok_hyps)
    assert stats.sentence_scores().tolist() == [nltk_sentence(r, h) for r, h in zip(tok_refs, tok_hyps)]
    return stats


@pytest.mark.parametrize("pair", ["wmt17_en_de", "wmt22_en_ja"])
def test_bundled_sample_equals_nltk(pair):
    folder = SAMPLES / pair
    systems = sorted(folder.glob("sys_*.txt"))
    assert len(systems) >= 2
    for system in systems:
        _check_system(folder / "ref0.txt", system)


def _systems(shared, pair):
    return sorted((shared / pair).glob("sys_*.txt"))


@pytest.mark.parametrize("pair", ["wmt17_en_de", "wmt22_en_ja"])
def test_every_shared_system_equals_nltk(shared_data, pair):
    systems = _systems(shared_data, pair)
    assert systems, f"no systems under {shared_data / pair}"
    for system in systems:
        _check_system(shared_data / pair / "ref0.txt", system)


def test_oracle_table_cross_check(shared_data):
    """The shipped oracle TSV (10 decimals) agrees with the 13a rows we compute."""
    for pair in ("wmt17_en_de", "wmt22_en_ja"):
        lines = (shared_data / pair / "nltk_gleu_oracle.tsv").read_text(encoding="utf-8").splitlines()
        rows = [line.split("\t") for line in lines if line and not line.startswith(("#", "system"))]
        rows = [row for row in rows if row[1] == "13a" and row[2] == "ref0"]
        assert rows
        refs = read_lines(shared_data / pair / "ref0.txt")
        for system, _, _, value in rows:
            hyps = read_lines(shared_data / pair / f"{system}.txt")
            assert round(GLEU().stats(hyps, refs).score(), 10) == pytest.approx(float(value), abs=1e-10)


def test_multi_reference_from_real_systems(shared_data):
    """Several references (other systems as extra references) with ties, against nltk."""
    folder = shared_data / "wmt17_en_de"
    refs0 = read_lines(folder / "ref0.txt")[:800]
    others = [read_lines(path)[:800] for path in _systems(shared_data, "wmt17_en_de")[:4]]
    hyps = others[0]
    references = [[r0, *extra] for r0, *extra in zip(refs0, *others[1:])]
    tok_refs = [[tokenize_13a(r) for r in refs] for refs in references]
    tok_hyps = [tokenize_13a(h) for h in hyps]
    assert GLEU().stats(hyps, references).score() == nltk_corpus(tok_refs, tok_hyps)


def _check_orders(hyps, references):
    """Each order's figures on real text equal nltk's corpus GLEU of orders n-n (with its own
    choice of reference per segment), and the totals of re-scoring with min_len = max_len = n."""
    scorer = GLEU()
    score = scorer.corpus_score(hyps, references, by_order=True)
    tok_refs = [[tokenize_13a(r) for r in refs] for refs in references]
    tok_hyps = [tokenize_13a(h) for h in hyps]
    assert [n for n, _ in score.orders] == [1, 2, 3, 4]
    for n, order in score.orders:
        assert order.score == nltk_corpus(tok_refs, tok_hyps, n, n)
        single = GLEU(min_len=n, max_len=n).corpus_score(hyps, references)
        assert (order.n_match, order.n_hyp, order.n_ref, order.n_all) == (
            single.n_match,
            single.n_hyp,
            single.n_ref,
            single.n_all,
        )
        assert order.signature == single.signature
    assert sum(order.n_hyp for _, order in score.orders) == score.n_hyp  # lengths decide these


def test_order_figures_of_the_bundled_sample_equal_nltk():
    folder = SAMPLES / "wmt17_en_de"
    refs = read_lines(folder / "ref0.txt")
    for system in sorted(folder.glob("sys_*.txt")):
        _check_orders(read_lines(system), [[ref] for ref in refs])


def test_order_figures_of_shared_systems_equal_nltk(shared_data):
    folder = shared_data / "wmt17_en_de"
    refs0 = read_lines(folder / "ref0.txt")
    systems = [read_lines(path) for path in _systems(shared_data, "wmt17_en_de")]
    for hyps in systems[:3]:
        _check_orders(hyps, [[ref] for ref in refs0])
    # Several references: each order keeps its own best reference per segment.
    _check_orders(systems[0][:600], [[r0, *extra] for r0, *extra in zip(refs0[:600], *(s[:600] for s in systems[1:4]))])
