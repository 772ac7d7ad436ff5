"""Doctest collection imports every module of the package. An adapter module that imports its
framework at the top is left out where that framework cannot be imported: NeMo-RL and ROLL are
not on PyPI, and LightEval and skyrl-gym run in their own environments (tests/frameworks/)."""

import importlib.util

_ADAPTERS = {
    "google_bleu/integrations/nemo_rl.py": "nemo_rl",
    "google_bleu/integrations/lighteval.py": "lighteval",
    "google_bleu/integrations/skyrl.py": "skyrl_gym",
    "google_bleu/integrations/roll.py": "roll",
}

collect_ignore = [path for path, module in _ADAPTERS.items() if importlib.util.find_spec(module) is None]
