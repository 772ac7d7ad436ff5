"""``device=`` with lengths that live on the host (issue 25, class 15): the hypothesis lengths
are moved to the counting device like the reference lengths. PyTorch's ``meta`` device runs
the same device path on a machine without an accelerator (a tensor left on the CPU raises
the same device-mismatch error there as it does against CUDA)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from google_bleu.ids.batched import _device_tensors, _read_input  # noqa: E402


@pytest.mark.parametrize(
    "lengths",
    [[3, 2], np.array([3, 2]), torch.tensor([3, 2]), torch.tensor([3, 2], dtype=torch.int32)],
    ids=["list", "numpy", "tensor", "int32-tensor"],
)
def test_host_hypothesis_lengths_follow_the_device(lengths):
    hypotheses = torch.tensor([[1, 2, 3, 0], [4, 5, 9, 9]])
    references = torch.tensor([[1, 2, 3, 0], [4, 5, 6, 0]])
    batch = _read_input(torch, hypotheses, references, 0, lengths, [3, 3], "meta")
    tensors = [tensor for tensor in _device_tensors(torch, batch, 0) if tensor is not None]
    assert [tensor.device.type for tensor in tensors] == ["meta"] * len(tensors)
    assert list(tensors[1].shape) == [2]
