import os
import tempfile

import pytest

from tests.helpers.oracles import SHARED_DATA

# evaluate reads these when it is imported (at collection): a private cache, and no network.
os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="google_bleu_tests_hf_")
for _flag in ("HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
    os.environ[_flag] = "1"


@pytest.fixture(scope="session")
def shared_data():
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real WMT data not found at {SHARED_DATA} (../shared/data beside the clone)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def app_url():
    """The Space app (app.py) served on a free port of 127.0.0.1 for the whole session."""
    from tests.helpers.app_server import serve

    with serve() as url:
        yield url
