"""``device=`` with lengths that live on the host (issue 25, class 15): the hypothesis lengths
are moved to the counting device like the reference lengths. PyTorch's ``meta`` device runs
the same preparation on a machine without an accelerator (a tensor left on the CPU raises
the same device-mismatch error there as it does against CUDA); the public functions refuse
``device="meta"`` itself, which would count nothing."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from google_bleu.ids.inputs import device_tensors, read_batch  # noqa: E402


@pytest.mark.parametrize(
    "lengths",
    [[3, 2], np.array([3, 2]), torch.tensor([3, 2]), torch.tensor([3, 2], dtype=torch.int32)],
    ids=["list", "numpy", "tensor", "int32-tensor"],
)
def test_host_hypothesis_lengths_follow_the_device(lengths):
    hypotheses = torch.tensor([[1, 2, 3, 0], [4, 5, 9, 9]])
    references = torch.tensor([[1, 2, 3, 0], [4, 5, 6, 0]])
    hyp, ref, _ = read_batch(torch, hypotheses, references, 0, lengths, [3, 3], None)
    tensors = [tensor for tensor in device_tensors(torch, hyp, ref, 0, torch.device("meta")) if tensor is not None]
    assert [tensor.device.type for tensor in tensors] == ["meta"] * len(tensors)
    assert list(tensors[1].shape) == [2]
