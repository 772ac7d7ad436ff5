"""GLEU reward for veRL, in the file ``reward.custom_reward_function.path`` names (docs/rl-rewards.md, "veRL").

veRL imports this file by path under a made-up module name, so it imports the package absolutely, never
relatively. ``python -m google_bleu.verl_reward`` prints its path.
"""

import os

from google_bleu.integrations.verl import compute_score, compute_score_batch, compute_score_gathered

__all__ = ["compute_score", "compute_score_batch", "compute_score_gathered"]

if __name__ == "__main__":
    print(os.path.abspath(__file__))
