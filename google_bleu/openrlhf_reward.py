"""GLEU reward for OpenRLHF, in the file ``--remote_rm_url`` names.

OpenRLHF imports this file by path (``spec_from_file_location("reward_func", path)``) and
calls its ``reward_func(queries, prompts, labels)``; labels come from ``--label_key``.
Each query is prompt + response decoded with special tokens: the reward removes the
prompt and the strings in ``SPECIAL_TOKENS`` (common chat-template tokens) and scores the
response with sentence GLEU (13a tokens, orders 1-4).

For another model or other settings, copy this file and change the last line, e.g.
``reward_func = make_openrlhf_reward(AutoTokenizer.from_pretrained(MODEL), lowercase=True)``.
``python -m google_bleu.openrlhf_reward`` prints this file's path.
"""

import os

from google_bleu.integrations.openrlhf import COMMON_SPECIAL_TOKENS, make_openrlhf_reward

SPECIAL_TOKENS = list(COMMON_SPECIAL_TOKENS)

reward_func = make_openrlhf_reward(SPECIAL_TOKENS)

if __name__ == "__main__":
    print(os.path.abspath(__file__))
