"""Bootstrap intervals and paired significance tests, on real WMT17 systems."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from google_bleu import GLEU, GleuStats, gleu_stats
from google_bleu.significance import (
    _resampled_totals,
    bootstrap_ci,
    bootstrap_scores,
    paired_bootstrap_p,
    paired_intervals,
    paired_randomization_p,
    percentile_interval,
)
from tests.helpers.oracles import SAMPLES, read_lines

SAMPLE = SAMPLES / "wmt17_en_de"
REFS = read_lines(SAMPLE / "ref0.txt")
SYSTEMS = ["sys_PROMT-Rule-based.4735.txt", "sys_online-A.0.txt", "sys_online-B.0.txt", "sys_uedin-nmt.4722.txt"]


@pytest.fixture(scope="module")
def sample_stats():
    return {name: GLEU().stats(read_lines(SAMPLE / name), REFS) for name in SYSTEMS}


@pytest.fixture(scope="module")
def full_stats(shared_data):
    folder = shared_data / "wmt17_en_de"
    refs = read_lines(folder / "ref0.txt")
    names = ["sys_uedin-nmt.4722.txt", "sys_online-B.0.txt", "sys_KIT.4950.txt", "sys_PROMT-Rule-based.4735.txt"]
    return {name: GLEU().stats(read_lines(folder / name), refs) for name in names}


# -- bootstrap intervals ------------------------------------------------------------


def test_fixed_seed_gives_identical_output(sample_stats):
    stats = sample_stats["sys_online-B.0.txt"]
    first = bootstrap_scores(stats, 300, seed=7)
    assert np.array_equal(first, bootstrap_scores(stats, 300, seed=7))
    assert not np.array_equal(first, bootstrap_scores(stats, 300, seed=8))
    assert bootstrap_ci(stats, 300, seed=7) == bootstrap_ci(stats, 300, seed=7)
    results = [paired_intervals(list(sample_stats.values()), test, 200, seed=3) for test in ("bs", "ar", "bs")]
    assert results[0] == results[2]


def test_resampled_scores_are_exact_corpus_scores(sample_stats):
    # Each resampled score equals GleuStats(drawn rows).score() bit for bit: the matrix
    # product of counts and rows reproduces the integer sums exactly.
    stats = sample_stats["sys_uedin-nmt.4722.txt"]
    n_segments, seed = len(stats), 11
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, n_segments, size=(50, n_segments))  # the first block of draws
    scores = bootstrap_scores(stats, 50, seed=seed)
    for sample in range(50):
        drawn = GleuStats(stats.rows[indices[sample]])
        assert scores[sample] == drawn.score()
    totals = _resampled_totals(stats.rows, 50, seed)
    assert totals.tolist() == [list(GleuStats(stats.rows[i]).totals()) for i in indices]


def test_interval_contains_point_estimate(sample_stats, full_stats):
    for stats in [*sample_stats.values(), *full_stats.values()]:
        low, high = bootstrap_ci(stats, 1000)
        assert 0.0 <= low < stats.score() < high <= 1.0
    # More segments, narrower interval (3004 vs the 300-segment sample of the same system).
    wide = np.subtract(*bootstrap_ci(sample_stats["sys_uedin-nmt.4722.txt"])[::-1])
    narrow = np.subtract(*bootstrap_ci(full_stats["sys_uedin-nmt.4722.txt"])[::-1])
    assert narrow < wide


def test_identical_segments_give_a_point_interval():
    stats = GLEU().stats(["the cat sat on the mat"] * 40, ["the cat ate the mat"] * 40)
    low, high = bootstrap_ci(stats, 500, seed=1)
    assert low == high == stats.score() == 1 / 3


def test_empty_corpus():
    empty = GleuStats.empty()
    assert bootstrap_ci(empty, 10) == (0.0, 0.0)
    assert paired_bootstrap_p(empty, empty, 10) == 1.0
    assert paired_randomization_p(empty, empty, 10) == 1.0


def test_percentile_interval_uses_sacrebleu_order_statistics():
    scores = np.random.default_rng(0).permutation(1000)
    assert percentile_interval(scores) == (25.0, 974.0)
    assert percentile_interval(np.array([0.5])) == (0.5, 0.5)


# -- paired tests ---------------------------------------------------------------------


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_system_against_itself_gives_p_one(sample_stats, test):
    stats = sample_stats["sys_online-A.0.txt"]
    results = GLEU().paired_scores([stats, stats], test, 500)
    assert results[0].p_value is None and results[1].p_value == 1.0
    assert paired_bootstrap_p(stats, stats, 500) == paired_randomization_p(stats, stats, 500) == 1.0


def test_clearly_better_system_gets_small_p(full_stats):
    # uedin-nmt (GLEU 0.32) against rule-based PROMT (0.24) on the 3004 segments of newstest2017.
    best, rule_based = full_stats["sys_uedin-nmt.4722.txt"], full_stats["sys_PROMT-Rule-based.4735.txt"]
    assert paired_bootstrap_p(rule_based, best, 1000) == 1 / 1001
    assert paired_randomization_p(rule_based, best, 2000) == 1 / 2001
    # Two-sided: the order of the pair does not matter.
    assert paired_bootstrap_p(best, rule_based, 1000) == 1 / 1001


def test_degraded_system_gets_small_p(sample_stats):
    stats = sample_stats["sys_online-B.0.txt"]
    rows = stats.rows.copy()
    rows[::2, 0] = 0  # every other segment loses all its matches
    worse = GleuStats(rows)
    assert paired_bootstrap_p(stats, worse, 500) == 1 / 501
    assert paired_randomization_p(stats, worse, 500) == 1 / 501


def _null_p_values(a: GleuStats, b: GleuStats, trials: int, n_segments: int) -> tuple[np.ndarray, np.ndarray]:
    # Under the null, each segment's output comes from one process: swap every segment
    # between two real systems at random, so the two pseudo-systems are exchangeable.
    rng = np.random.default_rng(2024)
    p_bs, p_ar = [], []
    for trial in range(trials):
        segments = rng.choice(len(a), n_segments, replace=False)
        swap = rng.integers(2, size=n_segments).astype(bool)[:, None]
        x = GleuStats(np.where(swap, a.rows[segments], b.rows[segments]))
        y = GleuStats(np.where(swap, b.rows[segments], a.rows[segments]))
        p_bs.append(paired_bootstrap_p(x, y, 400, seed=trial))
        p_ar.append(paired_randomization_p(x, y, 400, seed=trial))
    return np.array(p_bs), np.array(p_ar)


def test_rejection_rate_under_simulated_null_is_nominal(full_stats):
    p_bs, p_ar = _null_p_values(
        full_stats["sys_uedin-nmt.4722.txt"], full_stats["sys_online-B.0.txt"], trials=1000, n_segments=300
    )
    for p_values in (p_bs, p_ar):
        # 1000 trials: the rate's standard error at 5% is 0.7 points (seen: bs 5.4%, ar
        # 4.9%). sacrebleu 2.6's paired bootstrap rule (|delta*| centred on its mean,
        # strict >) rejects 12% at 0.05 and 100% at 0.5 in this simulation.
        assert 0.03 <= np.mean(p_values <= 0.05) <= 0.075
        assert 0.42 <= np.mean(p_values <= 0.5) <= 0.58
        assert np.all((p_values > 0) & (p_values <= 1))


def test_real_difference_is_detected_on_small_subsets(full_stats):
    # Power: a real difference (uedin-nmt 0.32 vs rule-based PROMT 0.24) is detected on
    # nearly every random 300-segment subset.
    a, b = full_stats["sys_uedin-nmt.4722.txt"], full_stats["sys_PROMT-Rule-based.4735.txt"]
    rng = np.random.default_rng(5)
    rejected = 0
    for trial in range(40):
        segments = rng.choice(len(a), 300, replace=False)
        rejected += paired_bootstrap_p(a[segments], b[segments], 300, seed=trial) <= 0.05
    assert rejected >= 36


# -- properties on adversarial statistics -------------------------------------------


@st.composite
def paired_rows(draw):
    """Two systems' rows on the same segments: small counts, zero rows (skipped segments) included."""
    n = draw(st.integers(0, 12))
    systems = []
    for _ in range(2):
        rows = []
        for _ in range(n):
            n_hyp, n_ref = draw(st.integers(0, 9)), draw(st.integers(0, 9))
            n_match = draw(st.integers(0, min(n_hyp, n_ref)))
            rows.append([n_match, n_hyp, n_ref, max(n_hyp, n_ref)])
        systems.append(GleuStats(np.asarray(rows, np.int64).reshape(n, 4)))
    return systems


@settings(max_examples=150, deadline=None)
@given(paired_rows(), st.integers(0, 2**32))
def test_properties_on_random_statistics(pair, seed):
    a, b = pair
    scores = bootstrap_scores(a, 30, seed)
    # Every resampled score is the exact score of the drawn corpus.
    if len(a):
        indices = np.random.default_rng(seed).integers(0, len(a), size=(30, len(a)))
        assert scores.tolist() == [GleuStats(a.rows[i]).score() for i in indices]
    low, high = bootstrap_ci(a, 30, seed)
    assert 0.0 <= low <= high <= 1.0
    # Two-sided tests: swapping baseline and system gives exactly the same p-value.
    for test in (paired_bootstrap_p, paired_randomization_p):
        p = test(a, b, 30, seed)
        assert 1 / 31 <= p <= 1.0
        assert test(b, a, 30, seed) == p
        assert test(a, a, 30, seed) == 1.0


# -- the scorer's paired scores ------------------------------------------------------


def test_paired_scores_against_the_plain_tests(sample_stats):
    # Each system's line comes from one stacked resampling of all systems; the plain
    # one-system and two-system functions resample alone, and must give the same numbers.
    stats = [sample_stats[name] for name in SYSTEMS]
    for test, n in (("bs", 300), ("ar", 400)):
        scores = GLEU().paired_scores(stats, test, n, seed=5, n_bootstrap=200)
        assert [score.score for score in scores] == [s.score() for s in stats]
        assert scores[0].p_value is None
        n_bootstrap = n if test == "bs" else 200
        for score, system in zip(scores, stats):
            assert (score.ci_low, score.ci_high) == bootstrap_ci(system, n_bootstrap, seed=5)
            assert score.ci_low <= score.score <= score.ci_high
        plain = paired_bootstrap_p if test == "bs" else paired_randomization_p
        assert [score.p_value for score in scores[1:]] == [plain(stats[0], system, n, seed=5) for system in stats[1:]]
        # Each comparison depends only on the baseline and that system.
        alone = GLEU().paired_scores([stats[0], stats[2]], test, n, seed=5, n_bootstrap=200)
        assert alone[1] == scores[2]


def test_ar_defaults(sample_stats):
    results, n_samples, n_bootstrap, seed = paired_intervals(
        [sample_stats[SYSTEMS[0]], sample_stats[SYSTEMS[1]]], "ar", seed=1, n_bootstrap=200
    )
    assert (n_samples, n_bootstrap, seed) == (10000, 200, 1)
    assert results[1][:2] == bootstrap_ci(sample_stats[SYSTEMS[1]], 200, seed=1)


# -- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda s: bootstrap_ci(s, 0), ValueError, "n_bootstrap|n_samples must be a positive integer, got 0"),
        (lambda s: bootstrap_ci(s, 10.0), TypeError, "got 10.0"),
        (lambda s: bootstrap_ci(s, True), TypeError, "got True"),
        (lambda s: bootstrap_ci(s, 10, seed=-1), ValueError, "seed must be a non-negative integer"),
        (lambda s: bootstrap_ci(s, 10, seed="x"), TypeError, "seed must be"),
        (lambda s: bootstrap_ci(s.rows, 10), TypeError, "stats must be a GleuStats, got ndarray"),
        (lambda s: paired_bootstrap_p(s, s[:2]), ValueError, "baseline has 3, system 2"),
        (lambda s: paired_randomization_p(s, s[:1]), ValueError, "baseline has 3, system 1"),
        (
            lambda s: paired_intervals([s, s], "t-test"),
            ValueError,
            "test must be one of \\['bs', 'ar'\\], got 't-test'",
        ),
        (lambda s: paired_intervals([]), ValueError, "at least one system"),
        (lambda s: paired_intervals([s, s], "ar", n_bootstrap=0), ValueError, "n_bootstrap must be"),
        (lambda s: GLEU().paired_scores([s, s.rows]), TypeError, "systems\\[1\\] must be a GleuStats"),
    ],
)
def test_bad_input(call, error, message):
    stats = gleu_stats([["a", "b"], ["c"], ["d"]], [[["a", "b"]], [["c"]], [["e"]]])
    with pytest.raises(error, match=message):
        call(stats)


def test_different_orders_are_refused():
    a = gleu_stats([["a", "b"]], [[["a", "b"]]], 1, 4)
    b = gleu_stats([["a", "b"]], [[["a", "b"]]], 1, 2)
    with pytest.raises(ValueError, match="systems\\[1\\] were counted with orders 1-2, not 1-4"):
        paired_intervals([a, b])
    with pytest.raises(ValueError, match="systems\\[0\\] were counted with orders 1-2, not 1-4"):
        GLEU().paired_scores([b, b])


# -- the evaluate module ------------------------------------------------------------


@pytest.fixture(scope="module")
def metric():
    import evaluate

    from tests.helpers.oracles import REPO

    # Loaded through evaluate's copy of the metric folder: significance.py must travel too.
    return evaluate.load(str(REPO / "google_bleu"))


def test_compute_adds_interval_only_when_asked(metric, sample_stats):
    predictions = read_lines(SAMPLE / "sys_online-B.0.txt")
    plain = metric.compute(predictions=predictions, references=REFS)
    assert set(plain) == {"google_bleu", "precision", "recall", "signature"}
    result = metric.compute(predictions=predictions, references=REFS, n_bootstrap=1000)
    assert set(result) == {"google_bleu", "precision", "recall", "signature", "ci_low", "ci_high"}
    # google_bleu stays the full-corpus point estimate.
    assert result["google_bleu"] == plain["google_bleu"] == sample_stats["sys_online-B.0.txt"].score()
    assert (result["ci_low"], result["ci_high"]) == bootstrap_ci(sample_stats["sys_online-B.0.txt"], 1000, 12345)
    assert result["ci_low"] < result["google_bleu"] < result["ci_high"]
    assert "|bs:1000|seed:12345|" in result["signature"]
    assert "bs:" not in plain["signature"]
    seeded = metric.compute(predictions=predictions, references=REFS, n_bootstrap=200, seed=7)
    assert "|bs:200|seed:7|" in seeded["signature"]
    assert (seeded["ci_low"], seeded["ci_high"]) == bootstrap_ci(sample_stats["sys_online-B.0.txt"], 200, 7)


def counted_checks(monkeypatch, package: str) -> list[str]:
    """The names of the checks of resampling inputs that run, in order, in ``package`` (the
    library, or evaluate's copy of the metric folder)."""
    calls = []
    for module, name in (("significance", "check_n_samples"), ("significance", "check_seed"),
                         ("significance", "check_stats"), ("settings", "check_stats")):
        module = sys.modules[f"{package}.{module}"]
        check = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, _check=check, _name=name, **kwargs: (
            calls.append(_name), _check(*args, **kwargs))[1])
    return calls


def test_each_resampling_input_is_checked_once(monkeypatch, metric):
    # n_bootstrap, seed and statistics are checked by the call that receives them; what it
    # passes down (and the statistics the engine counts) is not checked again.
    predictions = read_lines(SAMPLE / "sys_online-B.0.txt")[:30]
    stats = GLEU().stats(predictions, REFS[:30])
    calls = counted_checks(monkeypatch, "google_bleu")
    for call, checks in (
        (lambda: GLEU().corpus_score(predictions, REFS[:30], n_bootstrap=50), ["check_n_samples", "check_seed"]),
        (lambda: GLEU().score_stats(stats, 1, 50), ["check_stats", "check_n_samples", "check_seed"]),
        (lambda: bootstrap_ci(stats, 50), ["check_n_samples", "check_stats", "check_seed"]),
        (lambda: bootstrap_scores(stats, 50), ["check_stats", "check_n_samples", "check_seed"]),
    ):
        calls.clear()
        call()
        assert calls == checks
    calls = counted_checks(monkeypatch, type(metric).__module__.rsplit(".", 1)[0])
    result = metric.compute(predictions=predictions, references=REFS[:30], n_bootstrap=50)
    assert calls == ["check_n_samples", "check_seed"]
    assert (result["ci_low"], result["ci_high"]) == bootstrap_ci(stats, 50)


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"n_bootstrap": 0}, ValueError, "n_bootstrap must be a positive integer, got 0"),
        ({"n_bootstrap": "1000"}, TypeError, "n_bootstrap must be a positive integer"),
        ({"n_bootstrap": 10, "seed": -5}, ValueError, "seed must be a non-negative integer"),
    ],
)
def test_compute_bad_resampling_options(metric, options, error, message):
    with pytest.raises(error, match=message):
        metric.compute(predictions=["a b"], references=[["a b"]], **options)
