import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.helpers.oracles import SHARED_DATA

# evaluate reads these when it is imported (at collection): a private cache, and no network.
os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="google_bleu_tests_hf_")
for _flag in ("HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
    os.environ[_flag] = "1"
# The Space's uploads and temporary files in a folder of this run's own, set before gradio
# builds the page (each component reads it then), so that the upload bounds count this
# run's files only, not another process's in the shared temporary folder.
os.environ["GRADIO_TEMP_DIR"] = tempfile.mkdtemp(prefix="google_bleu_tests_gradio_")

# tests/frameworks/<name>/ run in their own environments (`make frameworks`), not here.
collect_ignore = ["frameworks"]


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


# -- tiers: `make check` runs the suite without the tests below (`-m "not slow"`) --------
# Whole files that start servers, clusters, browsers or process groups, and single tests
# that train, spawn or load a harness; `make test` (CI) runs everything.
SLOW_FILES = {
    "scale/test_ray.py",
    "surfaces/test_app_load.py",
    "surfaces/test_browser.py",
    "tooling/test_docs.py",
    "integrations/test_distributed.py",
    "core/test_fuzz.py",
}
SLOW_TESTS = {
    "test_streamed_files_memory_grows_with_rows_not_text",
    "test_sigterm_while_the_workers_start_never_hangs",
    "test_a_signal_at_any_moment_ends_the_command_within_a_second",
    "test_lm_eval_harness_score_of_real_translations",
    "test_lm_eval_dummy_model_runs_guide_snippet",
    "test_trl_rewards_run_in_a_spawned_cuda_free_child",
    "test_long_segment_with_high_orders",
    "test_two_process_gloo_sync_is_exact",
    "test_load_by_path_from_another_directory",
    "test_load_by_name_from_repository_root",
    "test_every_shared_system_equals_nltk",
    "test_cli_jobs_output_is_identical",
    "test_evaluate_load_runs_from_the_copied_core_alone",
    "test_twenty_concurrent_requests_get_their_own_results",
    "test_import_is_lazy",
    "test_one_real_grpo_step",
    "test_one_real_grpo_step_with_the_async_reward_and_its_logged_metrics",
    "test_one_real_grpo_step_with_the_token_id_reward",
    "test_the_grpo_example_scores_every_completion_with_the_three_rewards",
    "test_rejection_rate_under_simulated_null_is_nominal",
    # Long differential runs against nltk and sacrebleu (property-based or exhaustive).
    "test_corpus_gleu_equals_nltk",
    "test_str_path_equals_nltk_on_tricky_tokens",
    "test_every_code_point_in_every_13a_context_equals_sacrebleu",
    "test_every_line_of_shared_data_equals_sacrebleu",
    "test_fuzz_one_line_equals_sacrebleu",
    "test_fuzz_batch_equals_sacrebleu",
    "test_sequences_of_every_kind_give_the_same_rows",
}


# `make test BROWSER=0` (GOOGLE_BLEU_BROWSER=0): no chromium is installed, and the browser test
# is skipped, saying so.
BROWSER_FILE = "surfaces/test_browser.py"
BROWSER_OFF = "the browser test is off (make test BROWSER=0 installs no chromium)"


# `make test` runs the suite on two cores (pytest-xdist): the tests of a group run in one worker,
# one after another, so that one Ray cluster, one Space server, one set of evaluate's
# distributed processes and one trained model (module fixtures) serve them; every other test is
# a unit of its own.
# The scheduler is xdist's by scope, each group a scope (the largest first): xdist's own
# xdist_group marks rename the tests, which pytest 9.2 no longer lets them do.
GROUPS = {
    "integrations/test_distributed.py": "distributed",
    "integrations/test_training.py": "training",
    "scale/test_ray.py": "ray",
    "scale/test_ray_cluster.py": "ray",
    "surfaces/test_app.py": "space",
    "surfaces/test_app_load.py": "space-load",
    "surfaces/test_browser.py": "space",
}


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class Groups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return GROUPS.get(nodeid.split("::", 1)[0].removeprefix("tests/"), nodeid)

    return Groups(config, log)


def pytest_collection_modifyitems(config, items):
    root = Path(__file__).parent
    browser_off = os.environ.get("GOOGLE_BLEU_BROWSER") == "0"
    for item in items:
        path = Path(str(item.fspath))
        relative = path.relative_to(root).as_posix() if path.is_relative_to(root) else ""
        if relative in SLOW_FILES or getattr(item, "originalname", None) in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
        if browser_off and relative == BROWSER_FILE:
            item.add_marker(pytest.mark.skip(reason=BROWSER_OFF))


# -- the engine's two strategies (plain Python for small inputs, numpy above) ------------
# Oracle tests of the counting run under both (`both_strategies`); tests of the vectorised
# engine's own paths force numpy (`numpy_strategy`), whatever their inputs' size.
settings.register_profile("google_bleu", suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.load_profile("google_bleu")


@pytest.fixture(params=["python", "numpy"])
def both_strategies(request):
    from google_bleu.counting import strategy

    with strategy(request.param):
        yield request.param


@pytest.fixture
def numpy_strategy():
    from google_bleu.counting import strategy

    with strategy("numpy"):
        yield
