"""Concurrent per-sample reward calls scored in one batch (google_bleu.integrations.gather).

Every expected value is ``GLEU(...).sentence_score`` of the sentence alone, on real WMT17
en-de lines, compared with ``==``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import pickle
import random
import threading
import time
import warnings

import pytest

from google_bleu import GLEU
from google_bleu.integrations import verl
from google_bleu.integrations.gather import GleuGatherer
from tests.helpers.oracles import SAMPLES, read_lines

WMT = SAMPLES / "wmt17_en_de"


def wmt_pairs(n: int = 120, seed: int = 0) -> list[tuple[str, list[str]]]:
    """``n`` (system output, references) pairs of the bundled sample, systems mixed; every
    third segment also has another system's output as a second reference."""
    reference = read_lines(WMT / "ref0.txt")
    systems = [read_lines(path) for path in sorted(WMT.glob("sys_*.txt"))]
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        i, s = rng.randrange(len(reference)), rng.randrange(len(systems))
        refs = [reference[i]] + ([systems[(s + 1) % len(systems)][i]] if i % 3 == 0 else [])
        pairs.append((systems[s][i], refs))
    return pairs


def expected(hypothesis, references, scorer=None):
    result = (scorer or GLEU()).sentence_score(hypothesis, references)
    return (result.score, result.precision, result.recall)


def run(coroutine):
    """``asyncio.run``, then no task of that loop is left (asyncio.run cancels leftovers)."""

    async def main():
        out = await coroutine
        assert asyncio.all_tasks() == {asyncio.current_task()}
        return out

    return asyncio.run(main())


# -- every caller gets its own score ----------------------------------------------------


def test_concurrent_callers_get_their_own_sentence_gleu():
    pairs = wmt_pairs(200)
    gatherer = GleuGatherer(max_batch_size=64, max_wait=0.05)

    async def callers():
        return await asyncio.gather(*(gatherer.segment(h, refs) for h, refs in pairs))

    assert run(callers()) == [expected(h, refs) for h, refs in pairs]
    # All 200 arrive in one turn of the loop: three full batches, the rest when the window ends.
    assert gatherer.counts() == {"calls": 200, "batches": 4, "largest_batch": 64, "waiting": 0}


def test_score_is_the_sentence_score():
    pairs = wmt_pairs(16, seed=1)
    gatherer = GleuGatherer(GLEU(lowercase=True, min_len=2), max_wait=0.01)

    async def callers():
        return await asyncio.gather(*(gatherer.score(h, refs) for h, refs in pairs))

    scorer = GLEU(lowercase=True, min_len=2)
    assert run(callers()) == [scorer.sentence_score(h, refs).score for h, refs in pairs]


def test_verl_gathered_form_equals_the_per_sample_form_and_batches_settings_apart(monkeypatch):
    pairs = wmt_pairs(48, seed=2)
    assert inspect.iscoroutinefunction(verl.compute_score_gathered)  # veRL awaits it instead of using a thread
    gatherer = GleuGatherer(max_wait=0.05)
    monkeypatch.setattr(verl, "gathered", gatherer)

    def call(i, h, refs):
        # As veRL's NaiveRewardManager.run_single calls it, reward_kwargs merged in; odd samples
        # carry other settings.
        settings = {"lowercase": True, "max_len": 2} if i % 2 else {}
        extra = {"index": i, "num_turns": None, "rollout_reward_scores": {}}
        return settings, dict(data_source="wmt17", solution_str=h, ground_truth=refs, extra_info=extra, **settings)

    calls = [call(i, h, refs) for i, (h, refs) in enumerate(pairs)]

    async def callers():
        return await asyncio.gather(*(verl.compute_score_gathered(**kwargs) for _, kwargs in calls))

    out = run(callers())
    assert out == [verl.compute_score(**kwargs) for _, kwargs in calls]
    assert [tuple(row.values()) for row in out] == [
        expected(h, refs, GLEU(**settings)) for (settings, _), (h, refs) in zip(calls, pairs)
    ]
    assert gatherer.counts()["batches"] == 2  # one batch per setting


def test_the_ready_instance_serves_loops_one_after_another():
    # veRL's reward manager captures get_event_loop() in __init__ and drives run_until_complete
    # on it; a later caller may use asyncio.run on a fresh loop. One module-level instance serves both.
    pairs = wmt_pairs(12, seed=3)
    loop = asyncio.new_event_loop()
    try:

        async def manager():
            calls = [verl.compute_score_gathered(data_source="wmt17", solution_str=h, ground_truth=r) for h, r in pairs]
            return await asyncio.gather(*calls)

        first = loop.run_until_complete(manager())
    finally:
        loop.close()
    second = run(manager())
    assert first == second == [verl.compute_score("wmt17", h, r) for h, r in pairs]
    assert verl.gathered.counts()["waiting"] == 0


def test_threads_with_their_own_loops_share_one_gatherer():
    pairs = wmt_pairs(240, seed=4)
    parts = [pairs[i::4] for i in range(4)]
    gatherer = GleuGatherer(max_batch_size=16, max_wait=0.02)
    results, errors = [None] * 4, []

    def thread(k):
        async def callers():
            return await asyncio.gather(*(gatherer.segment(h, refs) for h, refs in parts[k]))

        try:
            results[k] = asyncio.run(callers())
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=thread, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    for k in range(4):
        assert results[k] == [expected(h, refs) for h, refs in parts[k]]
    counts = gatherer.counts()
    # A batch holds the calls of one loop: 60 per loop in batches of at most 16.
    assert counts["calls"] == 240 and counts["largest_batch"] <= 16 and counts["batches"] >= 4 * 4
    assert counts["waiting"] == 0


def test_a_pickled_gatherer_keeps_its_settings_and_scores():
    gatherer = GleuGatherer(GLEU(max_len=3), max_batch_size=5, max_wait=0.001)
    copy = pickle.loads(pickle.dumps(gatherer))
    assert (copy.scorer, copy.max_batch_size, copy.max_wait) == (GLEU(max_len=3), 5, 0.001)
    h, refs = wmt_pairs(1, seed=5)[0]
    assert run(copy.segment(h, refs)) == expected(h, refs, GLEU(max_len=3))


# -- the limits ---------------------------------------------------------------------------


def test_a_full_batch_is_scored_without_waiting_for_the_window():
    pairs = wmt_pairs(16, seed=6)
    gatherer = GleuGatherer(max_batch_size=8, max_wait=3600)

    async def callers():
        # A full batch does not wait out the hour-long window: wait_for raises TimeoutError if it did.
        return await asyncio.wait_for(asyncio.gather(*(gatherer.segment(h, r) for h, r in pairs)), timeout=30)

    assert run(callers()) == [expected(h, r) for h, r in pairs]
    assert gatherer.counts() == {"calls": 16, "batches": 2, "largest_batch": 8, "waiting": 0}


def test_calls_within_the_window_share_a_batch_and_later_ones_start_another():
    pairs = wmt_pairs(7, seed=7)
    gatherer = GleuGatherer(max_batch_size=64, max_wait=0.5)

    async def staggered(i, h, refs, delay):
        await asyncio.sleep(delay)
        return await gatherer.segment(h, refs)

    async def callers():
        # Four calls 10 ms apart, inside one 0.5 s window; three more after it closed.
        first = [staggered(i, h, r, 0.01 * i) for i, (h, r) in enumerate(pairs[:4])]
        start = time.perf_counter()
        out = await asyncio.gather(*first)
        waited = time.perf_counter() - start
        assert gatherer.counts()["batches"] == 1
        out += await asyncio.gather(*(gatherer.segment(h, r) for h, r in pairs[4:]))
        return out, waited

    out, waited = run(callers())
    assert out == [expected(h, r) for h, r in pairs]
    assert waited >= 0.5 - 0.01  # the window is measured from the first call
    assert gatherer.counts() == {"calls": 7, "batches": 2, "largest_batch": 4, "waiting": 0}


def test_zero_wait_gathers_the_calls_of_one_loop_turn():
    pairs = wmt_pairs(10, seed=8)
    gatherer = GleuGatherer(max_wait=0)

    async def callers():
        return await asyncio.gather(*(gatherer.segment(h, r) for h, r in pairs))

    assert run(callers()) == [expected(h, r) for h, r in pairs]
    assert gatherer.counts() == {"calls": 10, "batches": 1, "largest_batch": 10, "waiting": 0}


@dataclasses.dataclass
class Words:
    """A tokenizer as users write one: a plain dataclass with __call__ (so it does not hash)."""

    lower: bool = True

    def __call__(self, text: str) -> list[str]:
        return (text.lower() if self.lower else text).split()


def test_a_tokenizer_that_does_not_hash_is_gathered_like_any_other():
    # It was refused with "TypeError: unhashable type" (the batches were keyed by the scorer),
    # although GLEU.sentence_score and veRL's compute_score take it.
    pairs = wmt_pairs(40, seed=4)
    scorer = GLEU(Words())
    gatherer = GleuGatherer(scorer, max_wait=0.05)

    async def callers():
        scores = [gatherer.segment(h, refs) for h, refs in pairs]
        reward = verl.compute_score_with(gatherer)
        verl_form = [reward(solution_str=h, ground_truth=refs, tokenizer=Words()) for h, refs in pairs[:8]]
        return await asyncio.gather(*scores), await asyncio.gather(*verl_form)

    rows, verl_rows = run(callers())
    assert rows == [expected(h, refs, scorer) for h, refs in pairs]
    assert verl_rows == [verl.compute_score(solution_str=h, ground_truth=refs, tokenizer=Words()) for h, refs in pairs[:8]]
    assert gatherer.counts()["batches"] == 1 + 8  # its own scorer in one batch; a new scorer a call apart
    assert gatherer.counts()["waiting"] == 0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"scorer": "13a"}, TypeError, r"scorer must be a google_bleu.GLEU \(e.g. GLEU\(tokenizer='char'\)\), got str '13a'"),
        ({"max_batch_size": 0}, ValueError, "max_batch_size must be >= 1, got 0"),
        ({"max_batch_size": 8.0}, TypeError, "max_batch_size must be an int, got float 8.0"),
        ({"max_batch_size": True}, TypeError, "max_batch_size must be an int, got bool True"),
        ({"max_wait": -0.1}, ValueError, "max_wait must be a finite number of seconds >= 0, got -0.1"),
        ({"max_wait": float("nan")}, ValueError, "max_wait must be a finite number of seconds >= 0, got nan"),
        ({"max_wait": "2ms"}, TypeError, "max_wait must be a number of seconds, got str '2ms'"),
        ({"max_wait": 10**400}, ValueError, "max_wait must be a finite number of seconds >= 0, got an int beyond any float"),
        ({"max_wait": -(10**400)}, ValueError, "max_wait must be a finite number of seconds >= 0, got an int beyond"),
        ({"max_wait": -3}, ValueError, "max_wait must be a finite number of seconds >= 0, got -3"),
    ],
)
def test_bad_settings_are_refused_naming_them(kwargs, error, message):
    with pytest.raises(error, match=message):
        GleuGatherer(**kwargs)


# -- a bad input fails its own call only -----------------------------------------------


def test_a_bad_input_fails_only_its_caller():
    pairs = wmt_pairs(8, seed=9)
    gatherer = GleuGatherer(max_wait=0.05)
    bad = {
        2: (gatherer.segment, (None, pairs[2][1]), TypeError, "hypothesis must be a str, got NoneType None"),
        3: (gatherer.segment, (pairs[3][0], []), ValueError, "references has no reference"),
        5: (gatherer.segment, (pairs[5][0], ["ok", 7]), TypeError, "references[1] must be a str, got int 7"),
    }

    async def callers():
        calls = [bad[i][0](*bad[i][1]) if i in bad else gatherer.segment(h, r) for i, (h, r) in enumerate(pairs)]
        return await asyncio.gather(*calls, return_exceptions=True)

    out = run(callers())
    for i, (h, refs) in enumerate(pairs):
        if i in bad:
            assert isinstance(out[i], bad[i][2]) and bad[i][3] in str(out[i])
        else:
            assert out[i] == expected(h, refs)
    assert gatherer.counts() == {"calls": 5, "batches": 1, "largest_batch": 5, "waiting": 0}


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"solution_str": None}, TypeError, r"solution_str \(the decoded response\) must be a str, got NoneType None"),
        ({"solution_str": b"bytes"}, TypeError, r"solution_str \(the decoded response\) must be a str, got bytes"),
        ({"ground_truth": None}, TypeError, "ground_truth must be a str or a list of str, got NoneType"),
        ({"ground_truth": [1]}, TypeError, r"ground_truth\[0\] must be a str, got int 1"),
        ({"min_len": 0}, ValueError, "min_len must be >= 1"),
        ({"tokenizer": "nonsense"}, ValueError, "unknown tokenizer 'nonsense'"),
        ({"solution_strs": ["a"]}, ValueError, r"got the batch manager's \['solution_strs'\]"),
        ({"max_lenght": 3}, TypeError, r"unexpected keyword arguments \['max_lenght'\]: reward_kwargs may set"),
    ],
)
def test_verl_form_bad_input_fails_only_its_caller(monkeypatch, kwargs, error, message):
    pairs = wmt_pairs(4, seed=10)
    monkeypatch.setattr(verl, "gathered", GleuGatherer(max_wait=0.05))
    score = verl.compute_score_gathered

    async def callers():
        calls = [score(data_source="wmt17", solution_str=h, ground_truth=r) for h, r in pairs]
        h, r = pairs[0]
        calls.insert(2, score(**{"data_source": "wmt17", "solution_str": h, "ground_truth": r, **kwargs}))
        return await asyncio.gather(*calls, return_exceptions=True)

    out = run(callers())
    failed = out.pop(2)
    assert isinstance(failed, error)
    with pytest.raises(error, match=message):
        raise failed
    assert out == [verl.compute_score("wmt17", h, r) for h, r in pairs]


def test_a_sentence_the_scorer_fails_on_fails_only_its_caller():
    # A custom tokenizer that refuses over-long text: the batch holding it is scored again
    # sentence by sentence, so the others still get their scores.
    def tokenize(text: str) -> list[str]:
        if len(text) > 1000:
            raise ValueError(f"text of {len(text)} characters is too long for this tokenizer")
        return text.split()

    scorer = GLEU(tokenizer=tokenize)
    pairs = wmt_pairs(6, seed=11)
    pairs.insert(3, (" ".join([pairs[0][0]] * 20), pairs[0][1]))
    gatherer = GleuGatherer(scorer, max_wait=0.05)

    async def callers():
        return await asyncio.gather(*(gatherer.segment(h, r) for h, r in pairs), return_exceptions=True)

    out = run(callers())
    assert isinstance(out[3], ValueError) and "too long for this tokenizer" in str(out[3])
    assert [row for i, row in enumerate(out) if i != 3] == [
        expected(h, r, scorer) for i, (h, r) in enumerate(pairs) if i != 3
    ]
    assert gatherer.counts()["waiting"] == 0


# -- cancellation ---------------------------------------------------------------------------


def test_a_cancelled_caller_is_dropped_and_the_others_are_scored():
    pairs = wmt_pairs(5, seed=12)
    gatherer = GleuGatherer(max_wait=0.1)

    async def callers():
        tasks = [asyncio.create_task(gatherer.segment(h, r)) for h, r in pairs]
        await asyncio.sleep(0)  # every call is waiting in the batch
        assert gatherer.counts()["waiting"] == 5
        tasks[1].cancel()
        out = await asyncio.gather(*tasks, return_exceptions=True)
        return out

    out = run(callers())
    assert isinstance(out[1], asyncio.CancelledError)
    assert [row for i, row in enumerate(out) if i != 1] == [expected(h, r) for i, (h, r) in enumerate(pairs) if i != 1]
    assert gatherer.counts() == {"calls": 4, "batches": 1, "largest_batch": 4, "waiting": 0}


def test_when_every_caller_is_cancelled_nothing_is_left_behind():
    pairs = wmt_pairs(3, seed=13)
    gatherer = GleuGatherer(max_wait=3600)

    async def callers():
        tasks = [asyncio.create_task(gatherer.segment(h, r)) for h, r in pairs]
        await asyncio.sleep(0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        loop = asyncio.get_running_loop()
        # The window's timer is cancelled with the last caller: the loop has nothing scheduled.
        assert not [handle for handle in loop._scheduled if not handle.cancelled()]
        return gatherer.counts()

    assert run(callers()) == {"calls": 0, "batches": 0, "largest_batch": 0, "waiting": 0}


def test_asyncio_run_ending_with_calls_waiting_cancels_them_cleanly():
    pairs = wmt_pairs(3, seed=14)
    gatherer = GleuGatherer(max_wait=3600)
    started = []

    async def main():
        # Tasks left running when main returns: asyncio.run cancels them on the way out.
        started.extend(asyncio.create_task(gatherer.segment(h, r)) for h, r in pairs)
        await asyncio.sleep(0)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asyncio.run(main())
    assert all(task.cancelled() for task in started)
    assert gatherer.counts()["waiting"] == 0

    # The gatherer still serves the next loop (64 calls fill a batch; no window to wait for).
    async def full_batch():
        return await asyncio.wait_for(asyncio.gather(*(gatherer.segment(h, r) for h, r in (pairs * 22)[:64])), 30)

    assert run(full_batch())[:3] == [expected(h, r) for h, r in pairs]


def test_a_loop_closed_with_calls_waiting_is_forgotten():
    pairs = wmt_pairs(2, seed=15)
    gatherer = GleuGatherer(max_wait=3600)
    loop = asyncio.new_event_loop()
    task = loop.create_task(gatherer.segment(*pairs[0]))
    loop.run_until_complete(asyncio.sleep(0))
    assert gatherer.counts()["waiting"] == 1 and not task.done()
    loop.close()  # the task never finishes: its loop is gone
    # The next batch on another loop drops the closed loop's batch.
    gatherer.max_wait = 0.0
    assert run(gatherer.segment(*pairs[1])) == expected(*pairs[1])
    assert gatherer.counts()["waiting"] == 0
