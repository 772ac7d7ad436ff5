"""Batched token-id GLEU (torch): every score equals nltk's sentence_gleu on the same ids."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import google_bleu
from google_bleu import gleu_stats
from google_bleu.ids import batched
from google_bleu.ids.batched import batch_gleu_stats, batch_sentence_gleu, stats_scores, to_gleu_stats
from google_bleu.ids.fixed import fixed_shape_rows
from google_bleu.ids.inputs import device_tensors, read_batch
from google_bleu.stats import COLUMNS
from tests.helpers.oracles import SAMPLES, nltk_sentence, read_lines, tokenize_13a

torch = pytest.importorskip("torch")

PAD = -1


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    # On a small shared machine torch's intra-op threads mostly wait on each other; the
    # results do not depend on the thread count, the test time does (tenfold here).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def nltk_scores(hypotheses, list_of_references, min_len=1, max_len=4):
    return [nltk_sentence(refs, hyp, min_len, max_len) for hyp, refs in zip(hypotheses, list_of_references)]


def pad_rows(rows, width, value):
    return torch.tensor([list(row) + [value] * (width - len(row)) for row in rows], dtype=torch.int64)


def padded_references(list_of_references, width, value):
    """``[B, R, L]`` for rows that all have the same number of references."""
    return torch.stack([pad_rows(refs, width, value) for refs in list_of_references])


# -- hand-computed cases ------------------------------------------------------------


def test_cat_example_on_ids():
    # "the cat sat on the mat" vs "the cat ate the mat" as ids: 6 matches of max(18, 14).
    hyp = [1, 2, 3, 4, 1, 5]
    ref = [1, 2, 6, 1, 5]
    rows = batch_gleu_stats([hyp], [[ref]])
    assert rows.dtype == torch.int64 and rows.tolist() == [[6, 18, 14, 18]]
    scores = batch_sentence_gleu([hyp], [[ref]])
    assert scores.dtype == torch.float64 and scores.tolist() == [1 / 3]


def test_ties_keep_the_first_reference():
    hyp = [1, 2]  # 3 n-grams
    short = [1]  # "1": 1 match of max(3, 1) = 3 -> 1/3
    tie = [1, 9]  # "1": 1 match of max(3, 3) = 3 -> 1/3, same ratio, other n_ref
    worse = [1, 3, 4, 5, 6, 7]  # 1 match of max(3, 18) -> 1/18
    assert batch_gleu_stats([hyp], [[worse, short, tie]]).tolist() == [[1, 3, 1, 3]]
    assert batch_gleu_stats([hyp], [[worse, tie, short]]).tolist() == [[1, 3, 3, 3]]
    # Equal ratios with different n_all (1/3 and 2/6): the order changes corpus sums, as in nltk.
    spread = [1, 8, 2]  # "1", "2": 2 matches of max(3, 6) = 6 -> 1/3
    assert batch_gleu_stats([hyp], [[short, spread]]).tolist() == [[1, 3, 1, 3]]
    assert batch_gleu_stats([hyp], [[spread, short]]).tolist() == [[2, 3, 6, 6]]
    for refs in ([short, spread], [spread, short]):
        assert batch_gleu_stats([hyp], [refs]).tolist() == gleu_stats([hyp], [refs]).rows.tolist()
        assert batch_sentence_gleu([hyp], [refs]).tolist() == nltk_scores([hyp], [refs]) == [1 / 3]


def test_best_reference_by_ratio_not_by_max_count_clip():
    hyp = [1, 2, 3, 4]  # 10 n-grams
    e = [1, 2, 3]  # 6 matches of max(10, 6) -> 0.6
    f = [1, 2, 3, 4, 7, 8, 9, 10, 11, 12]  # all 10 matched, but of max(10, 34) -> 10/34
    g = [1, 2, 3, 4, 7, 7]  # 10 of max(10, 18) -> 5/9
    h = [1, 9, 2, 3, 4]  # 1, 2, 3, 4, "2 3", "3 4", "2 3 4": 7 of 14 -> 1/2
    refs = [h, e, g, f]
    assert batch_gleu_stats([hyp], [refs]).tolist() == [[6, 10, 6, 10]]
    assert batch_sentence_gleu([hyp], [refs]).tolist() == nltk_scores([hyp], [refs]) == [0.6]


def test_empty_sides():
    # Empty hypothesis and empty references: no candidate, score 0.0, zero row.
    # Empty hypothesis against a non-empty reference: a candidate with 0 matches.
    rows = batch_gleu_stats([[], [], [1, 2]], [[[]], [[], [5]], [[]]])
    assert rows.tolist() == [[0, 0, 0, 0], [0, 0, 1, 1], [0, 3, 0, 3]]
    assert batch_sentence_gleu([[], []], [[[]], [[], [5]]]).tolist() == [0.0, 0.0]


def test_short_rows_do_not_affect_other_rows():
    long = list(range(20))
    hyps = [[7], long, [3, 4], []]
    refs = [[[7]], [long[::-1], long], [[3, 4, 5]], [[1]]]
    expected = nltk_scores(hyps, refs)
    assert batch_sentence_gleu(hyps, refs).tolist() == expected
    assert expected[0] == 1.0 and expected[1] == 1.0
    # Each row alone gives the same score as in the batch.
    for i in range(len(hyps)):
        assert batch_sentence_gleu([hyps[i]], [refs[i]]).tolist() == [expected[i]]


# -- padding and the id-0 trap -----------------------------------------------------


def test_pad_id_never_drops_a_real_zero_token():
    hyp = [0, 0, 5, 0]
    ref = [0, 5, 0]
    expected = nltk_scores([hyp], [[ref]])
    hyp_t = pad_rows([hyp], 8, PAD)
    ref_t = pad_rows([ref], 8, PAD)
    assert batch_sentence_gleu(hyp_t, ref_t, pad_id=PAD).tolist() == expected
    # TensorBLEU's trap: treating 0 as padding would score a different pair.
    wrong = nltk_scores([[5]], [[[5]]])
    assert expected != wrong
    assert batch_sentence_gleu(hyp_t, ref_t, pad_id=0).tolist() != expected


def test_lengths_keep_real_tokens_equal_to_the_pad_value():
    # Padding filled with 0, which is also a real token: lengths say where rows end.
    hyps = [[0, 3, 0], [4]]
    refs = [[0, 3], [4, 0, 0]]
    hyp_t = pad_rows(hyps, 5, 0)
    ref_t = pad_rows(refs, 5, 0)
    got = batch_sentence_gleu(
        hyp_t,
        ref_t,
        hypothesis_lengths=torch.tensor([3, 1]),
        reference_lengths=torch.tensor([2, 3]),
    )
    assert got.tolist() == nltk_scores(hyps, [[r] for r in refs])
    # With no lengths, the zeros count as tokens (nothing is guessed).
    assert batch_sentence_gleu(hyp_t, ref_t).tolist() == nltk_scores(
        [r.tolist() for r in hyp_t], [[r.tolist()] for r in ref_t]
    )


def test_left_and_inner_padding_are_removed_by_value():
    hyp = torch.tensor([[PAD, PAD, 1, 2, 3], [1, PAD, 2, 3, PAD]])
    ref = torch.tensor([[1, 2, 3, PAD, PAD], [1, 2, PAD, PAD, PAD]])
    assert batch_sentence_gleu(hyp, ref, pad_id=PAD).tolist() == nltk_scores(
        [[1, 2, 3], [1, 2, 3]], [[[1, 2, 3]], [[1, 2]]]
    )


def test_pad_id_and_lengths_together():
    hyp = torch.tensor([[1, PAD, 2, 9, 9]])
    ref = torch.tensor([[[1, 2, 7, 7], [1, 2, 9, PAD]]])
    got = batch_gleu_stats(
        hyp, ref, pad_id=PAD, hypothesis_lengths=torch.tensor([3]), reference_lengths=torch.tensor([[2, 4]])
    )
    assert got.tolist() == gleu_stats([[1, 2]], [[[1, 2], [1, 2, 9]]]).rows.tolist()


# -- property-based: nltk on the same id lists ---------------------------------------

ids = st.integers(min_value=0, max_value=4)  # a small vocabulary: many repeats and ties
sequences = st.lists(ids, min_size=0, max_size=9)
rows_strategy = st.lists(
    st.tuples(sequences, st.lists(sequences, min_size=1, max_size=4)),
    min_size=1,
    max_size=6,
)
orders = st.integers(min_value=1, max_value=3).flatmap(lambda lo: st.tuples(st.just(lo), st.integers(lo, 5)))


@settings(max_examples=150, deadline=None)
@given(rows=rows_strategy, order=orders)
def test_ragged_lists_equal_nltk_and_the_core(rows, order):
    min_len, max_len = order
    hyps = [hyp for hyp, _ in rows]
    refs = [r for _, r in rows]
    stats = batch_gleu_stats(hyps, refs, min_len=min_len, max_len=max_len)
    assert stats.tolist() == gleu_stats(hyps, refs, min_len, max_len).rows.tolist()
    scores = batch_sentence_gleu(hyps, refs, min_len=min_len, max_len=max_len)
    assert scores.tolist() == nltk_scores(hyps, refs, min_len, max_len)


@settings(max_examples=100, deadline=None)
@given(
    rows=st.lists(st.tuples(sequences, st.lists(sequences, min_size=3, max_size=3)), min_size=1, max_size=5),
    extra=st.integers(min_value=0, max_value=3),
)
def test_padded_tensors_equal_nltk(rows, extra):
    hyps = [hyp for hyp, _ in rows]
    refs = [r for _, r in rows]
    expected = nltk_scores(hyps, refs)
    width = max(len(s) for hyp, rs in rows for s in [hyp, *rs]) + extra
    hyp_t = pad_rows(hyps, width, PAD)
    ref_t = padded_references(refs, width, PAD)
    assert batch_sentence_gleu(hyp_t, ref_t, pad_id=PAD).tolist() == expected
    # Lengths instead of a pad id, with padding that looks like a real token (0).
    hyp_z = pad_rows(hyps, width, 0)
    ref_z = padded_references(refs, width, 0)
    got = batch_sentence_gleu(
        hyp_z,
        ref_z,
        hypothesis_lengths=torch.tensor([len(h) for h in hyps]),
        reference_lengths=torch.tensor([[len(r) for r in rs] for rs in refs]),
    )
    assert got.tolist() == expected
    # One reference per row as a 2-D tensor.
    first = [[rs[0]] for rs in refs]
    assert batch_sentence_gleu(hyp_t, ref_t[:, 0], pad_id=PAD).tolist() == nltk_scores(hyps, first)


def static_rows_on_cpu(hyps, refs, min_len=1, max_len=4, pad_id=None):
    """The fixed-shape torch path that GPUs use, run here on CPU tensors."""
    hyp, ref, device = read_batch(torch, hyps, refs, pad_id, None, None, "cpu")
    return fixed_shape_rows(*device_tensors(torch, hyp, ref, pad_id, device), min_len, max_len)


@settings(max_examples=60, deadline=None)
@given(rows=rows_strategy, order=orders, offset=st.sampled_from([0, -(2**62), 2**62]))
def test_fixed_shape_path_used_on_gpus_equals_nltk_here_on_cpu(rows, order, offset):
    # CPU tensors are counted with numpy; other devices with the fixed-shape path
    # (ids/fixed.py). Running it on CPU tensors tests it on a machine without a GPU.
    min_len, max_len = order
    hyps = [[t + offset for t in hyp] for hyp, _ in rows]
    refs = [[[t + offset for t in r] for r in rs] for _, rs in rows]
    got = static_rows_on_cpu(hyps, refs, min_len, max_len)
    assert got.tolist() == gleu_stats(hyps, refs, min_len, max_len).rows.tolist()
    assert stats_scores(got).tolist() == nltk_scores(hyps, refs, min_len, max_len)


@settings(max_examples=40, deadline=None)
@given(rows=rows_strategy, extra=st.integers(0, 3), order=orders)
def test_batch_scorer_equals_nltk_with_padding_and_lengths(rows, extra, order):
    min_len, max_len = order
    n_refs = max(len(rs) for _, rs in rows)
    hyps = [hyp for hyp, _ in rows]
    refs = [rs + [rs[0]] * (n_refs - len(rs)) for _, rs in rows]
    width = max(len(t) for t in hyps + [r for rs in refs for r in rs]) + extra
    scorer = batched.BatchScorer(pad_id=PAD, min_len=min_len, max_len=max_len)
    hyp_t, ref_t = pad_rows(hyps, width, PAD), padded_references(refs, width, PAD)
    assert scorer(hyp_t, ref_t).tolist() == nltk_scores(hyps, refs, min_len, max_len)
    # The fixed-shape torch computation that a CUDA graph captures, run here on CPU tensors.
    rows = scorer.compute(hyp_t, None, ref_t, None)
    assert stats_scores(rows).tolist() == nltk_scores(hyps, refs, min_len, max_len)
    # Lengths instead of a pad value: the padding is real token 0 here.
    by_length = batched.BatchScorer(min_len=min_len, max_len=max_len)
    got = by_length(
        pad_rows(hyps, width, 0),
        padded_references(refs, width, 0),
        hypothesis_lengths=torch.tensor([len(h) for h in hyps]),
        reference_lengths=torch.tensor([[len(r) for r in rs] for rs in refs]),
    )
    assert got.tolist() == nltk_scores(hyps, refs, min_len, max_len)
    lengths = (torch.tensor([len(h) for h in hyps]), torch.tensor([[len(r) for r in rs] for rs in refs]))
    rows = by_length.compute(pad_rows(hyps, width, 0), lengths[0], padded_references(refs, width, 0), lengths[1])
    assert stats_scores(rows).tolist() == nltk_scores(hyps, refs, min_len, max_len)


class _Ops(torch.utils._python_dispatch.TorchDispatchMode):
    """Records every torch operation that runs inside it."""

    def __init__(self):
        super().__init__()
        self.names = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.add(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))


# Operations whose output size or value must be read back to the host: each is a GPU sync.
_HOST_READS = {"nonzero", "unique", "_unique2", "unique_dim", "_local_scalar_dense", "bincount", "masked_select", "item"}
# A tensor made from host data (``t[0] = True``, ``torch.tensor(...)``) is copied to the
# device: CUDA graph capture refuses that copy.
_HOST_COPIES = {"lift_fresh"}


def test_the_fixed_shape_path_reads_nothing_back_from_the_device():
    # A CUDA graph can only replay work that never waits on the device's results: the
    # scorer's whole computation must be free of data-dependent sizes and scalar reads.
    hyp = torch.tensor([[5, 6, 7, -1, 2], [0, 0, 1, 2, -1]])
    ref = torch.tensor([[[5, 6, 8, -1, -1], [5, 6, 7, 2, -1]], [[0, 1, 2, -1, -1], [-1, 0, -1, 0, 1]]])
    scorer = batched.BatchScorer(pad_id=PAD)
    with _Ops() as ops:
        rows = scorer.compute(hyp, None, ref, None)
    assert ops.names and not ops.names & (_HOST_READS | _HOST_COPIES), sorted(ops.names & (_HOST_READS | _HOST_COPIES))
    assert rows.tolist() == batch_gleu_stats(hyp, ref, pad_id=PAD).tolist()
    # The recorder does see such reads and copies (the eager torch way of doing it would).
    with _Ops() as ops:
        torch.unique(hyp, return_inverse=True)
        hyp.nonzero()
        hyp.clone()[0] = 1
    assert {"nonzero", "lift_fresh"} <= ops.names and ops.names & {"unique", "_unique2"}


@settings(max_examples=40, deadline=None)
@given(rows=rows_strategy, offset=st.sampled_from([-(2**62), -5, 10**6, 2**62]))
def test_any_integer_ids(rows, offset):
    # Negative, huge and sparse ids take the compacting path; the values never matter.
    hyps = [[t + offset for t in hyp] for hyp, _ in rows]
    refs = [[[t + offset for t in r] for r in rs] for _, rs in rows]
    assert batch_sentence_gleu(hyps, refs).tolist() == nltk_scores(hyps, refs)


def test_integer_dtypes_and_array_input():
    hyps = [[1, 2, 3, 2], [4, 4]]
    refs = [[[1, 2, 2]], [[4], [4, 4, 4]]]
    expected = nltk_scores(hyps, refs)
    for dtype in (torch.uint8, torch.int16, torch.int32, torch.int64):
        hyp_t = pad_rows(hyps, 4, 0).to(dtype)
        got = batch_sentence_gleu(hyp_t, refs, pad_id=0)
        assert got.tolist() == expected
    as_arrays = [np.array(h) for h in hyps]
    as_tensors = [[torch.tensor(r) for r in rs] for rs in refs]
    assert batch_sentence_gleu(as_arrays, as_tensors).tolist() == expected


# -- statistics ------------------------------------------------------------------------


def test_stats_columns_and_gleu_stats_round_trip():
    hyps = [[1, 2, 3], [4, 5], []]
    refs = [[[1, 2]], [[4, 5, 6], [5]], [[]]]
    rows = batch_gleu_stats(hyps, refs, min_len=1, max_len=3)
    core = gleu_stats(hyps, refs, 1, 3)
    assert rows.shape == (3, len(COLUMNS))
    stats = to_gleu_stats(rows, 1, 3)
    assert stats == core
    assert stats.score() == core.score()
    assert stats_scores(rows).tolist() == core.sentence_scores().tolist()


def test_running_sum_of_batches_equals_the_whole_corpus():
    rng = np.random.default_rng(7)
    hyps = [rng.integers(0, 6, rng.integers(0, 12)).tolist() for _ in range(40)]
    refs = [[rng.integers(0, 6, rng.integers(0, 12)).tolist() for _ in range(rng.integers(1, 4))] for _ in range(40)]
    total = sum(batch_gleu_stats(hyps[i : i + 7], refs[i : i + 7]).sum(dim=0) for i in range(0, 40, 7))
    whole = gleu_stats(hyps, refs)
    assert total.tolist() == list(whole.totals())
    assert to_gleu_stats(total[None, :]).score() == whole.score()


def test_real_wmt_sample_equals_the_core():
    folder = SAMPLES / "wmt17_en_de"
    refs_text = read_lines(folder / "ref0.txt")
    system = sorted(folder.glob("sys_*.txt"))[0]
    hyps_text = read_lines(system)
    vocabulary: dict[str, int] = {}

    def encode(line):
        return [vocabulary.setdefault(token, len(vocabulary)) for token in tokenize_13a(line)]

    hyps = [encode(line) for line in hyps_text]
    refs = [[encode(line)] for line in refs_text]
    rows = batch_gleu_stats(hyps, refs)
    core = gleu_stats(hyps, refs)
    assert rows.tolist() == core.rows.tolist()
    assert batch_sentence_gleu(hyps, refs).tolist() == core.sentence_scores().tolist()


@pytest.mark.slow
@pytest.mark.parametrize("pair", ["wmt17_en_de", "wmt22_en_ja", "wmt15_en_ru"])
def test_every_shared_wmt_system_as_ids_equals_the_core_on_both_backends(shared_data, pair):
    # Every real system of ../shared/data, 13a tokens as ids: the numpy path (CPU tensors),
    # and the fixed-shape torch computation a CUDA graph captures, run here on CPU tensors.
    folder = shared_data / pair
    refs_text = read_lines(folder / "ref0.txt")
    vocabulary: dict[str, int] = {}

    def encode(line):
        return [vocabulary.setdefault(token, len(vocabulary) + 1) for token in tokenize_13a(line)]

    refs = [[encode(line)] for line in refs_text]
    systems = sorted(folder.glob("sys_*.txt"))
    assert systems
    scorer = batched.BatchScorer(pad_id=0)
    for system in systems:
        hyps = [encode(line) for line in read_lines(system)]
        core = gleu_stats(hyps, refs)
        width = max(len(t) for t in hyps + [r[0] for r in refs])
        hyp_t, ref_t = pad_rows(hyps, width, 0), padded_references(refs, width, 0)
        assert batch_gleu_stats(hyp_t, ref_t, pad_id=0).tolist() == core.rows.tolist(), system.name
        assert scorer.compute(hyp_t, None, ref_t, None).tolist() == core.rows.tolist(), system.name


# -- devices ---------------------------------------------------------------------------

DEVICES = [
    "cpu",
    pytest.param(
        "cuda",
        marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine"),
    ),
]


@pytest.mark.parametrize("device", DEVICES)
def test_device_results_stay_on_the_device_and_equal_nltk(device):
    rng = np.random.default_rng(3)
    hyps = [rng.integers(0, 5, rng.integers(1, 30)).tolist() for _ in range(16)]
    refs = [[rng.integers(0, 5, rng.integers(1, 30)).tolist() for _ in range(2)] for _ in range(16)]
    width = 30
    hyp_t = pad_rows(hyps, width, PAD).to(device)
    ref_t = padded_references(refs, width, PAD).to(device)
    scores = batch_sentence_gleu(hyp_t, ref_t, pad_id=PAD)
    rows = batch_gleu_stats(hyp_t, ref_t, pad_id=PAD)
    assert scores.device.type == device and rows.device.type == device
    assert scores.cpu().tolist() == nltk_scores(hyps, refs)
    assert to_gleu_stats(rows) == gleu_stats(hyps, refs)
    # List input placed on the device on request.
    assert batch_sentence_gleu(hyps, refs, device=device).device.type == device


needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")


@needs_cuda
@settings(max_examples=200, deadline=None)
@given(rows=rows_strategy, order=orders, offset=st.sampled_from([0, -(2**62), 2**62]), extra=st.integers(0, 3))
def test_cuda_ragged_and_padded_equal_nltk(rows, order, offset, extra):
    # The GPU path (torch.unique, bincount on the device) against nltk on the same ids.
    min_len, max_len = order
    hyps = [[t + offset for t in hyp] for hyp, _ in rows]
    refs = [[[t + offset for t in r] for r in rs] for _, rs in rows]
    expected_rows = gleu_stats(hyps, refs, min_len, max_len).rows.tolist()
    expected = nltk_scores(hyps, refs, min_len, max_len)
    got = batch_gleu_stats(hyps, refs, min_len=min_len, max_len=max_len, device="cuda")
    assert got.device.type == "cuda" and got.tolist() == expected_rows
    assert stats_scores(got).cpu().tolist() == expected
    # Padded [B, R, L] on the device, with lengths (the padding value is a real token).
    n_refs = max(len(rs) for rs in refs)
    width = max(len(s) for hyp, rs in zip(hyps, refs) for s in [hyp, *rs]) + extra
    full = [rs + [rs[0]] * (n_refs - len(rs)) for rs in refs]  # a repeated reference changes no score
    hyp_t = pad_rows(hyps, width, offset).cuda()
    ref_t = padded_references(full, width, offset).cuda()
    scores = batch_sentence_gleu(
        hyp_t,
        ref_t,
        min_len=min_len,
        max_len=max_len,
        hypothesis_lengths=torch.tensor([len(h) for h in hyps], device="cuda"),
        reference_lengths=torch.tensor([[len(r) for r in rs] for rs in full], device="cuda"),
    )
    assert scores.device.type == "cuda" and scores.cpu().tolist() == expected


@needs_cuda
def test_cuda_real_wmt_systems_equal_the_core():
    folder = SAMPLES / "wmt17_en_de"
    refs_text = read_lines(folder / "ref0.txt")
    vocabulary: dict[str, int] = {}

    def encode(line):
        return [vocabulary.setdefault(token, len(vocabulary)) for token in tokenize_13a(line)]

    refs = [[encode(line)] for line in refs_text]
    for system in sorted(folder.glob("sys_*.txt")):
        hyps = [encode(line) for line in read_lines(system)]
        width = max(len(s) for s in hyps + [r[0] for r in refs])
        hyp_t = pad_rows(hyps, width, PAD).cuda()
        ref_t = padded_references(refs, width, PAD).cuda()
        core = gleu_stats(hyps, refs)
        assert batch_gleu_stats(hyp_t, ref_t, pad_id=PAD).cpu().tolist() == core.rows.tolist()
        assert batch_sentence_gleu(hyp_t, ref_t, pad_id=PAD).cpu().tolist() == core.sentence_scores().tolist()


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hypotheses", "references", "kwargs", "error", "message"),
    [
        (
            torch.tensor([[1.0, 2.0]]),
            torch.tensor([[1, 2]]),
            {},
            TypeError,
            "integer token ids, got dtype torch.float32",
        ),
        (torch.tensor([[True]]), torch.tensor([[1]]), {}, TypeError, "dtype torch.bool"),
        (torch.tensor([1, 2]), torch.tensor([[1, 2]]), {}, ValueError, "2-D tensor [batch, length], got shape [2]"),
        (torch.tensor([[1, 2]]), torch.tensor([[1], [2]]), {}, ValueError, "got 1 hypotheses but 2 rows of references"),
        (
            torch.tensor([[1, 2]]),
            torch.zeros((1, 1, 1, 1), dtype=torch.int64),
            {},
            ValueError,
            "got shape [1, 1, 1, 1]",
        ),
        (torch.tensor([[1, 2]]), torch.zeros((1, 0, 3), dtype=torch.int64), {}, ValueError, "at least one reference"),
        ([[1, 2]], [[]], {}, ValueError, "row 0 has no reference"),
        ([[1, 2], [3]], [[[1]]], {}, ValueError, "got 2 hypotheses but 1 reference lists"),
        ([[1, 2]], [[1, 2]], {}, TypeError, "wrap a single reference"),
        (["a b"], [[[1]]], {}, TypeError, "hypotheses[0] must be a sequence of integer token ids"),
        ([[1.5, 2]], [[[1]]], {}, TypeError, "hypotheses[0] must hold integer token ids, got float64"),
        ([[1, 2]], [[[1, 0.5]]], {}, TypeError, "references[0][0] must hold integer token ids"),
        ([[1, 2]], [[[[1]]]], {}, ValueError, "references[0][0] must be one sequence of ids (1-D), got shape [1, 1]"),
        ("12", [[[1]]], {}, TypeError, "hypotheses must be a sequence"),
        ([[1, 2]], [[[1]]], {"min_len": 0}, ValueError, "min_len must be >= 1"),
        ([[1, 2]], [[[1]]], {"max_len": 0, "min_len": 1}, ValueError, "max_len must be >= min_len"),
        ([[1, 2]], [[[1]]], {"pad_id": 1.0}, TypeError, "pad_id must be an integer or None"),
        ([[1, 2]], [[[1]]], {"pad_id": True}, TypeError, "pad_id must be an integer or None"),
        ([[1, 2]], [[[1]]], {"pad_id": 2**64}, ValueError, "pad_id must fit in int64"),
        ([[1, 2]], [[[1]]], {"device": "nonsense"}, ValueError, "device must name a torch device"),
        *(
            []
            if torch.cuda.is_available()
            else [([[1, 2]], [[[1]]], {"device": "cuda"}, ValueError, "CUDA is not available here")]
        ),
        ([[1, 2]], [[[1]]], {"hypothesis_lengths": [2]}, ValueError, "carries its own lengths"),
        (torch.tensor([[1, 2]]), [[[1]]], {"hypothesis_lengths": [3]}, ValueError, "must lie in 0..2"),
        (torch.tensor([[1, 2]]), [[[1]]], {"hypothesis_lengths": [-1]}, ValueError, "must lie in 0..2"),
        (torch.tensor([[1, 2]]), [[[1]]], {"hypothesis_lengths": [1, 1]}, ValueError, "must have shape [1], got [2]"),
        (torch.tensor([[1, 2]]), [[[1]]], {"hypothesis_lengths": [1.5]}, TypeError, "hypothesis_lengths must hold"),
        (
            torch.tensor([[1, 2]]),
            torch.tensor([[[1, 2], [3, 4]]]),
            {"reference_lengths": [1]},
            ValueError,
            "reference_lengths must have shape [1, 2], got [1]",
        ),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(hypotheses, references, kwargs, error, message):
    with pytest.raises(error) as info:
        batch_sentence_gleu(hypotheses, references, **kwargs)
    assert message in str(info.value)


def test_empty_batch():
    assert batch_gleu_stats([], []).shape == (0, 4)
    assert batch_sentence_gleu(
        torch.zeros((0, 3), dtype=torch.int64), torch.zeros((0, 3), dtype=torch.int64)
    ).shape == (0,)


def test_to_gleu_stats_refuses_other_things():
    with pytest.raises(TypeError, match="torch tensor"):
        to_gleu_stats([[1, 2, 3, 4]])
    with pytest.raises(ValueError, match=r"shape \[B, 4\], got \[4\]"):
        to_gleu_stats(torch.tensor([1, 2, 3, 4]))


def test_import_is_lazy_until_called():
    code = (
        "import sys, google_bleu\n"
        "import google_bleu.integrations.trl\nf = google_bleu.ids.batch_sentence_gleu\n"
        "print('torch' in sys.modules)\n"
        "f([[1]], [[[1]]])\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]
    assert "batch_sentence_gleu" in google_bleu.ids.__all__ and "batch_gleu_stats" in google_bleu.ids.__all__


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
@settings(max_examples=20, deadline=None)
@given(rows=rows_strategy, extra=st.integers(0, 3))
def test_cuda_graph_replay_is_bit_identical_to_the_first_call_and_to_nltk(rows, extra):
    n_refs = max(len(rs) for _, rs in rows)
    hyps = [hyp for hyp, _ in rows]
    refs = [rs + [rs[0]] * (n_refs - len(rs)) for _, rs in rows]
    width = max(len(t) for t in hyps + [r for rs in refs for r in rs]) + extra
    hyp_t, ref_t = pad_rows(hyps, width, PAD).cuda(), padded_references(refs, width, PAD).cuda()
    scorer = batched.BatchScorer(pad_id=PAD)
    first = scorer(hyp_t, ref_t)
    assert len(scorer._graphs) == 1
    again = scorer(hyp_t, ref_t)  # a replay
    assert torch.equal(first, again) and first.device.type == "cuda"
    assert first.cpu().tolist() == nltk_scores(hyps, refs)
    # New ids of the same shape: the same graph, new numbers.
    shuffled = hyp_t.flip(0)
    assert scorer(shuffled, ref_t).cpu().tolist() == nltk_scores(hyps[::-1], refs)
    assert len(scorer._graphs) == 1


def test_batch_scorer_refuses_lists_and_bad_settings():
    with pytest.raises(TypeError, match="BatchScorer takes padded tensors"):
        batched.BatchScorer()([[1]], [[[1]]])
    with pytest.raises(TypeError, match="cuda_graphs must be a bool"):
        batched.BatchScorer(cuda_graphs="yes")
    with pytest.raises(ValueError, match="max_graphs must be a positive integer"):
        batched.BatchScorer(max_graphs=0)
    with pytest.raises(ValueError, match="max_len must be >= min_len"):
        batched.BatchScorer(min_len=3, max_len=2)


@pytest.mark.parametrize("dtype", [torch.uint16, torch.uint32, torch.uint64])
def test_unsigned_id_tensors_and_lengths_are_scored_or_refused(dtype):
    ids = torch.tensor([[1, 2, 3, 4]], dtype=dtype)
    expected = batch_sentence_gleu(ids.long(), ids.long()[:, None, :], hypothesis_lengths=[3]).tolist()
    lengths = torch.tensor([3], dtype=dtype)
    assert batch_sentence_gleu(ids, ids[:, None, :], hypothesis_lengths=lengths).tolist() == expected
    if dtype == torch.uint64:
        with pytest.raises(ValueError, match="hypotheses holds ids above the int64 range"):
            batch_sentence_gleu(torch.tensor([[2**63]], dtype=dtype), torch.tensor([[[1]]]))


def test_unsigned_ids_reach_every_id_surface():
    # The siblings of the token-id functions share the same check: pairwise GLEU, MBR and
    # the replaying scorer take uint64 ids as the int64 ids they equal.
    from google_bleu.ids import BatchScorer, mbr_select, pairwise_gleu

    ids = torch.tensor([[1, 2, 3], [1, 2, 4]], dtype=torch.uint64)
    assert pairwise_gleu(ids, ids).tolist() == pairwise_gleu(ids.long(), ids.long()).tolist()
    assert mbr_select(ids).index == mbr_select(ids.long()).index
    scorer = BatchScorer(cuda_graphs=False)
    assert scorer(ids, ids[:, None, :]).tolist() == scorer(ids.long(), ids.long()[:, None, :]).tolist()
