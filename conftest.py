"""Doctest collection imports every module of the package. An adapter module that imports its
framework at the top is left out where that framework cannot be imported: NeMo-RL is not on
PyPI, and LightEval runs in its own environment (tests/frameworks/lighteval)."""

import importlib.util

_ADAPTERS = {"google_bleu/integrations/nemo_rl.py": "nemo_rl", "google_bleu/integrations/lighteval.py": "lighteval"}

collect_ignore = [path for path, module in _ADAPTERS.items() if importlib.util.find_spec(module) is None]
