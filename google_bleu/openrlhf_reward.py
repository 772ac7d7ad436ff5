"""GLEU reward for OpenRLHF, in the file ``--reward.remote_url`` names.

OpenRLHF (0.11) imports this file by path (``spec_from_file_location("reward_func", path)``)
and calls its ``reward_func(queries, prompts, labels)`` once per sample; labels come from
``--data.label_key``. Each query is prompt + response decoded with special tokens: the
reward removes the prompt and the strings in ``SPECIAL_TOKENS`` (common chat-template
tokens) and scores the response with sentence GLEU (13a tokens, cased, orders 1-4).

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
