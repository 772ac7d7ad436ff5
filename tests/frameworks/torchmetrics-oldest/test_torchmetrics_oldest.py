"""The torchmetrics metric's tests (tests/integrations/test_torchmetrics.py, imported, not
copied) on the oldest torchmetrics that pyproject.toml allows: GoogleBLEUScore uses only
torchmetrics' public API, so each test passes on 1.4 as on the newest release."""

from __future__ import annotations

from importlib.metadata import version

from tests.integrations.test_torchmetrics import *  # noqa: F403  (pytest collects the imported tests)

# evaluate's wording, not torchmetrics': that test needs evaluate, which this environment lacks.
del test_evaluate_common_metric_wording_for_a_length_mismatch  # noqa: F821


def test_this_environment_has_the_oldest_torchmetrics_allowed():
    # The lower bound of the torchmetrics extra in pyproject.toml.
    assert version("torchmetrics") == "1.4.0"


def test_merge_state_works_where_torchmetrics_has_none():
    import torchmetrics

    from google_bleu.integrations.torchmetrics import GoogleBLEUScore

    assert not hasattr(torchmetrics.Metric, "merge_state")  # torchmetrics added it in 1.6
    left, right = GoogleBLEUScore(), GoogleBLEUScore()
    left.update("a b c", [["a b c"]])
    right.update("a b", [["a x"]])
    left.merge_state(right)
    assert left.totals() == (7, 9, 9, 9)
