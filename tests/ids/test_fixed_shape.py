"""The fixed-shape path (``ids/fixed.py``, what GPUs run) and the tensor checks every id surface shares.

The fixed-shape path runs on CPU tensors here; each result is compared with the engine's rows
(``gleu_stats``) and nltk's scores on the same id lists."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from google_bleu import GLEU, gleu_stats
from google_bleu.ids import BatchScorer, batch_gleu_stats, batch_sentence_gleu, mbr_select, pairwise_gleu
from google_bleu.ids.device_pairwise import device_score_matrix
from google_bleu.ids.fixed import MAX_ROW_POSITIONS, fixed_shape_rows
from google_bleu.ids.inputs import compact_rows, device_tensors, read_batch
from google_bleu.integrations.trl import GleuIdReward
from tests.helpers.oracles import nltk_sentence

torch = pytest.importorskip("torch")

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")

# Few distinct ids (many repeats) and ids at the int64 limits.
ids = st.sampled_from([0, 1, 2, 3, -(2**63), 2**63 - 1])
sequences = st.lists(ids, max_size=14)
rows_strategy = st.lists(st.tuples(sequences, st.lists(sequences, min_size=1, max_size=3)), min_size=1, max_size=5)


def fixed_rows_on(device, hyps, refs, min_len, max_len):
    hyp, ref, _ = read_batch(torch, hyps, refs, None, None, None, "cpu")
    return fixed_shape_rows(*device_tensors(torch, hyp, ref, None, torch.device(device)), min_len, max_len)


@settings(max_examples=80, deadline=None)
@given(rows=rows_strategy, min_len=st.integers(1, 4), extra=st.integers(0, 10))
# Rows x 13**16 just under 2**63: one array would overflow torch.arange's float64 sizing.
@example(rows=[([], [[], [0, 0, 0, 0]])], min_len=4, extra=4)
def test_long_orders_fold_the_keys_and_stay_exact(rows, min_len, extra):
    # (width + 1) ** max_len past int64: the keys are built order by order and made dense
    # again before they would overflow (the other branch of ngram_keys).
    hyps = [hyp for hyp, _ in rows]
    refs = [rs for _, rs in rows]
    max_len = min_len + 8 + extra
    got = fixed_rows_on("cpu", hyps, refs, min_len, max_len)
    assert got.tolist() == gleu_stats(hyps, refs, min_len, max_len).rows.tolist()


@settings(max_examples=80, deadline=None)
@given(rows=rows_strategy, order=st.integers(1, 3).flatmap(lambda low: st.tuples(st.just(low), st.integers(low, 5))))
def test_padded_sides_of_different_widths_and_lengths(rows, order):
    # Hypotheses and references padded to different widths, lengths given, padding of a
    # value that is also a real token: only the first ``length`` ids count.
    min_len, max_len = order
    n_refs = max(len(rs) for _, rs in rows)
    hyps = [hyp for hyp, _ in rows]
    refs = [rs + [rs[0]] * (n_refs - len(rs)) for _, rs in rows]
    hyp_width = max(map(len, hyps)) + 1
    ref_width = max(len(r) for rs in refs for r in rs) + 3
    hyp_t = torch.tensor([h + [1] * (hyp_width - len(h)) for h in hyps])
    ref_t = torch.tensor([[r + [2] * (ref_width - len(r)) for r in rs] for rs in refs])
    hyp_len = torch.tensor([len(h) for h in hyps])
    ref_len = torch.tensor([[len(r) for r in rs] for rs in refs])
    rows_t = BatchScorer(min_len=min_len, max_len=max_len).compute(hyp_t, hyp_len, ref_t, ref_len)
    assert rows_t.tolist() == gleu_stats(hyps, refs, min_len, max_len).rows.tolist()


def test_a_row_too_wide_for_int64_keys_is_refused_before_anything_is_allocated():
    # Before: the torch backend keyed dead positions as position + n * n over the whole
    # batch, which overflows int64 past about 3e9 positions. Expanded tensors hold no memory.
    half = MAX_ROW_POSITIONS // 2 + 1
    hyp = torch.zeros((1, 1), dtype=torch.int64).expand(1, half)
    ref = torch.zeros((1, 1, 1), dtype=torch.int64).expand(1, 1, half)
    with pytest.raises(ValueError, match=r"too wide to count with int64 keys"):
        fixed_shape_rows(hyp, None, ref, None, None, 1, 4)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda t: t.to_sparse(), TypeError, "must be a dense tensor of token ids, got layout torch.sparse_coo"),
        (lambda t: t.to("meta"), ValueError, "is on the 'meta' device, which holds no values to count"),
    ],
    ids=["sparse", "meta"],
)
def test_sparse_and_meta_id_tensors_are_refused_by_name(make, error, message):
    # Before: torch's own "can't convert Sparse layout tensor to numpy" (no argument named),
    # and for a meta tensor a meta tensor of scores, with no values and no error.
    good = torch.tensor([[1, 2, 3], [4, 5, 6]])
    bad = make(good)
    calls = {
        "hypotheses": lambda: batch_sentence_gleu(bad, good),
        "references": lambda: batch_gleu_stats(good, bad),
        "BatchScorer hypotheses": lambda: BatchScorer()(bad, good[:, None]),
        "pairwise hypotheses": lambda: pairwise_gleu(bad),
        "mbr candidates": lambda: mbr_select(bad),
        "hypotheses[0]": lambda: batch_sentence_gleu([bad[0] if bad.layout == torch.strided else bad], [[[1]]]),
    }
    for name, call in calls.items():
        argument = name.split()[-1]
        with pytest.raises(error) as info:
            call()
        assert message in str(info.value) and argument.split("[")[0] in str(info.value), (name, str(info.value))


def test_sparse_lengths_and_a_meta_device_are_refused():
    ids = torch.tensor([[1, 2, 3]])
    with pytest.raises(TypeError, match="hypothesis_lengths must be a dense tensor"):
        batch_sentence_gleu(ids, ids, hypothesis_lengths=torch.tensor([2]).to_sparse())
    with pytest.raises(ValueError, match="device is 'meta', which holds no values"):
        batch_sentence_gleu([[1, 2]], [[[1, 2]]], device="meta")


def test_the_settings_come_as_a_scorer_or_as_keywords():
    hyps, refs = [[1, 2, 3, 4]], [[[1, 2, 3, 5]]]
    by_scorer = batch_gleu_stats(hyps, refs, scorer=GLEU(min_len=2, max_len=3))
    assert by_scorer.tolist() == batch_gleu_stats(hyps, refs, min_len=2, max_len=3).tolist() == [[3, 5, 5, 5]]
    assert batch_sentence_gleu(hyps, refs, scorer=GLEU(max_len=2)).tolist() == [nltk_sentence(refs[0], hyps[0], 1, 2)]
    scorer = BatchScorer(GLEU(max_len=2))
    assert (scorer.min_len, scorer.max_len) == (1, 2)
    ids = torch.tensor(hyps)
    assert scorer.compute(ids, None, torch.tensor(refs), None).tolist() == [[5, 7, 7, 7]]
    reward = GleuIdReward("ref", GLEU(max_len=2))
    assert reward(completion_ids=hyps, ref=[refs[0][0]]) == [5 / 7]
    assert repr(reward) == repr(GleuIdReward("ref", max_len=2))
    with pytest.raises(TypeError, match="not both"):
        batch_gleu_stats(hyps, refs, scorer=GLEU(), max_len=2)
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['maxlen'\]"):
        batch_sentence_gleu(hyps, refs, maxlen=2)
    with pytest.raises(ValueError, match="token ids are scored as they are"):
        BatchScorer(GLEU(lowercase=True))
    with pytest.raises(ValueError, match="token ids are scored as they are"):
        GleuIdReward("ref", tokenizer="char")


# -- pairwise on the device --------------------------------------------------------------------

pairwise_rows = st.lists(st.lists(st.sampled_from([0, 1, 2, 7, 2**63 - 1]), max_size=9), min_size=1, max_size=6)


def padded(rows, pad=-5):
    width = max(map(len, rows))
    return torch.tensor([row + [pad] * (width - len(row)) for row in rows], dtype=torch.int64).reshape(len(rows), width)


@settings(max_examples=120, deadline=None)
@given(
    hyps=pairwise_rows,
    refs=st.one_of(st.none(), pairwise_rows),
    order=st.integers(1, 3).flatmap(lambda low: st.tuples(st.just(low), st.integers(low, 10))),
)
def test_device_pairwise_equals_nltk_here_on_cpu(hyps, refs, order):
    # The device path (grouping, columns and products in torch) run on CPU tensors.
    hyp, hyp_len = compact_rows(torch, padded(hyps), None, -5)
    ref, ref_len = (None, None) if refs is None else compact_rows(torch, padded(refs), None, -5)
    got = device_score_matrix(hyp, hyp_len, ref, ref_len, *order)
    others = hyps if refs is None else refs
    assert got.dtype == torch.float64
    assert got.tolist() == [[nltk_sentence([r], h, *order) for r in others] for h in hyps]


@needs_cuda
@settings(max_examples=40, deadline=None)
@given(hyps=pairwise_rows, refs=st.one_of(st.none(), pairwise_rows))
def test_cuda_pairwise_and_mbr_equal_the_host(hyps, refs):
    hyp_t = padded(hyps)
    ref_t = None if refs is None else padded(refs)
    on_cuda = pairwise_gleu(hyp_t.cuda(), None if ref_t is None else ref_t.cuda(), pad_id=-5)
    assert on_cuda.device.type == "cuda"
    assert on_cuda.cpu().tolist() == pairwise_gleu(hyp_t, ref_t, pad_id=-5).tolist()
    cuda_pick = mbr_select(hyp_t.cuda(), None if ref_t is None else ref_t.cuda(), pad_id=-5)
    host_pick = mbr_select(hyp_t, ref_t, pad_id=-5)
    assert (cuda_pick.index, cuda_pick.expected_scores.tolist()) == (host_pick.index, host_pick.expected_scores.tolist())


@needs_cuda
@settings(max_examples=40, deadline=None)
@given(rows=rows_strategy, min_len=st.integers(1, 3), extra=st.integers(0, 9))
def test_cuda_fixed_shape_rows_equal_the_engine(rows, min_len, extra):
    hyps = [hyp for hyp, _ in rows]
    refs = [rs for _, rs in rows]
    max_len = min_len + extra
    got = fixed_rows_on("cuda", hyps, refs, min_len, max_len)
    assert got.device.type == "cuda"
    assert got.cpu().tolist() == gleu_stats(hyps, refs, min_len, max_len).rows.tolist()
