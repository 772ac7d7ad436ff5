"""process_results and aggregation of the google_bleu_translation task (google_bleu_translation.yaml)."""

from google_bleu import GLEU
from google_bleu.integrations.lm_eval import LmEvalGleu

# The settings are one GLEU: GLEU() is tokenizer="13a", lowercase=False, min_len=1, max_len=4.
gleu = LmEvalGleu(references="references", scorer=GLEU())

process_results = gleu.process_results
google_bleu = gleu.aggregation
