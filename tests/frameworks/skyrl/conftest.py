"""Fixtures of the SkyRL environment (.venvs/skyrl): the bundled WMT17 sample.

``python -m pytest`` runs from the repository root, so ``tests.helpers`` (standard library
only) is importable here.
"""

from __future__ import annotations

import pytest

from tests.helpers.wmt17 import wmt17_sample


@pytest.fixture(scope="session")
def wmt17() -> dict:
    """The human reference and the four systems of the bundled sample, segment-aligned."""
    return wmt17_sample()
