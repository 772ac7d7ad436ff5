"""The anchor: HF evaluate-metric/google_bleu's pipeline as a local evaluate module.

Same features and ``_compute`` as the Hub module (sacrebleu's 13a with its lru_cache,
then nltk ``corpus_gleu``), so ``evaluate.load`` of this folder costs what loading HF's
module costs, offline. Used by ``benchmarks/run.py`` only.
"""

import datasets
import evaluate
from nltk.translate import gleu_score
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a


class _Split13a:
    # HF vendors sacrebleu's Tokenizer13a with a final .split(); same tokens, same lru_cache.
    def __init__(self):
        self._tokenizer = Tokenizer13a()

    def __call__(self, line):
        return self._tokenizer(line).split()


# As in HF's module, the default tokenizer is built once, as a default argument.
_DEFAULT_TOKENIZER = _Split13a()


class HfGoogleBleu(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description="HF google_bleu pipeline (anchor for benchmarks)",
            citation="",
            inputs_description="",
            features=[
                datasets.Features(
                    {
                        "predictions": datasets.Value("string", id="sequence"),
                        "references": datasets.Sequence(datasets.Value("string", id="sequence"), id="references"),
                    }
                ),
                datasets.Features(
                    {
                        "predictions": datasets.Value("string", id="sequence"),
                        "references": datasets.Value("string", id="sequence"),
                    }
                ),
            ],
        )

    def _compute(self, predictions, references, tokenizer=_DEFAULT_TOKENIZER, min_len=1, max_len=4):
        if isinstance(references[0], str):
            references = [[ref] for ref in references]
        references = [[tokenizer(r) for r in ref] for ref in references]
        predictions = [tokenizer(p) for p in predictions]
        return {
            "google_bleu": gleu_score.corpus_gleu(
                list_of_references=references, hypotheses=predictions, min_len=min_len, max_len=max_len
            )
        }
