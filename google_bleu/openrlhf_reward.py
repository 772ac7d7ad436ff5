"""GLEU reward for OpenRLHF, in the file ``--reward.remote_url`` names (docs/rl-rewards.md, "OpenRLHF").

For another model or other settings, copy this file and change the last line, e.g.
``reward_func = OpenRLHFReward(AutoTokenizer.from_pretrained(MODEL), GLEU(lowercase=True))``.
``python -m google_bleu.openrlhf_reward`` prints this file's path.
"""

import os

from google_bleu import GLEU
from google_bleu.integrations.openrlhf import COMMON_SPECIAL_TOKENS, OpenRLHFReward

SPECIAL_TOKENS = list(COMMON_SPECIAL_TOKENS)

reward_func = OpenRLHFReward(SPECIAL_TOKENS, GLEU())

if __name__ == "__main__":
    print(os.path.abspath(__file__))
