"""GLEU on token ids: batched sentence GLEU, all-pairs GLEU and MBR; torch is imported only for tensor input.

Example:
    >>> from google_bleu.ids import batch_sentence_gleu
    >>> batch_sentence_gleu([[1, 2, 3]], [[[1, 2, 3]]]).tolist()
    [1.0]
"""

from .batched import BatchScorer, batch_gleu_stats, batch_sentence_gleu
from .mbr import MbrResult, mbr_select
from .pairwise import pairwise_gleu

__all__ = ["BatchScorer", "MbrResult", "batch_gleu_stats", "batch_sentence_gleu", "mbr_select", "pairwise_gleu"]
