"""GLEU reward for veRL, in the file veRL loads by path.

veRL imports ``reward.custom_reward_function.path`` as a file (``spec_from_file_location``
under a made-up module name) and takes ``.name`` from it, so this file imports the
installed package absolutely, never relatively::

    reward:
      custom_reward_function:
        path: /path/to/site-packages/google_bleu/verl_reward.py   # python -m google_bleu.verl_reward
        name: compute_score            # one sample, or the batch manager's keyword form
                                       # (compute_score_gathered: async, concurrent calls in one batch)
        reward_kwargs: {tokenizer: 13a, lowercase: false, min_len: 1, max_len: 4}

``python -m google_bleu.verl_reward`` prints this file's path.
"""

import os

from google_bleu.integrations.verl import compute_score, compute_score_batch, compute_score_gathered

__all__ = ["compute_score", "compute_score_batch", "compute_score_gathered"]

if __name__ == "__main__":
    print(os.path.abspath(__file__))
