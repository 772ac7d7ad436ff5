"""Google-BLEU (GLEU, Wu et al. 2016) as a HuggingFace ``evaluate`` metric.

``evaluate.load`` copies this file and only the sibling modules it imports with
``from .x import y``, so every sibling any of them needs is imported here.
"""

from __future__ import annotations

from typing import Any

import datasets
import evaluate

# Every sibling the modules below import is imported here too (see module docstring).
# No comment may follow an import line: evaluate reads "import .x  # ..." as a download URL.
from .engine import segment_rows
from .gleu import text_stats
from .signature import count_references, signature
from .significance import DEFAULT_SEED, bootstrap_ci, check_n_samples, check_seed
from .stats import GleuStats
from .tokenizers import DEFAULT_TOKENIZER, get_tokenizer
from .validation import check_texts
from .version import __version__

_CITATION = """\
@misc{wu2016googles,
      title={Google's Neural Machine Translation System: Bridging the Gap between Human and Machine Translation},
      author={Yonghui Wu and Mike Schuster and Zhifeng Chen and Quoc V. Le and Mohammad Norouzi and Wolfgang Macherey
              and Maxim Krikun and Yuan Cao and Qin Gao and Klaus Macherey and Jeff Klingner and Apurva Shah and Melvin
              Johnson and Xiaobing Liu and Łukasz Kaiser and Stephan Gouws and Yoshikiyo Kato and Taku Kudo and Hideto
              Kazawa and Keith Stevens and George Kurian and Nishant Patil and Wei Wang and Cliff Young and
              Jason Smith and Jason Riesa and Alex Rudnick and Oriol Vinyals and Greg Corrado and Macduff Hughes
              and Jeffrey Dean},
      year={2016},
      eprint={1609.08144},
      archivePrefix={arXiv},
      primaryClass={cs.CL}
}
"""

_DESCRIPTION = """\
Google-BLEU (GLEU) from the GNMT paper (Wu et al. 2016). For each segment, all n-grams of
orders min_len..max_len (default 1..4) of the prediction and the reference are counted;
GLEU is min(precision, recall) = matches / max(prediction n-grams, reference n-grams).
The corpus score sums matches and max(prediction n-grams, reference n-grams) over the
segments before dividing. With several references, each segment keeps the reference with
the highest ratio (the first one on a tie), as nltk does. Numbers are identical to nltk's
corpus_gleu/sentence_gleu on the same tokens and to HF's google_bleu on the same text.
This is not the grammatical-error-correction GLEU of Napoles et al. (2015).
"""

_KWARGS_DESCRIPTION = """\
Computes corpus Google-BLEU, corpus precision and recall, and optionally sentence scores.

Args:
    predictions (list of str): translations to score.
    references (list of list of str | list of str): one or more references per prediction
        (the count may vary), or one string per prediction.
    tokenizer (str or callable): "13a" (default), "none", "intl", "zh", "char",
        "ja-mecab", "ko-mecab", "spm", "flores101", "flores200", or any callable
        str -> list[str].
    min_len (int): lowest n-gram order, default 1.
    max_len (int): highest n-gram order, default 4.
    lowercase (bool): lowercase before tokenizing, default False.
    return_sentence_scores (bool): also return one score per prediction, default False.
    n_bootstrap (int): when given, add a 95% bootstrap confidence interval from this many
        resamples of the segments' statistics (sacrebleu uses 1000), default None.
    seed (int): seed of the bootstrap's local generator, default 12345 (None: fresh entropy).

Returns:
    'google_bleu': corpus GLEU (0.0 for an empty corpus),
    'precision': corpus n-gram precision against the chosen references,
    'recall': corpus n-gram recall against the chosen references,
    'signature': settings that determine the score,
    'sentence_scores': (only when asked) list of float, one per prediction, in order.
    'ci_low', 'ci_high': (only with n_bootstrap) the 95% percentile bootstrap interval;
        'google_bleu' stays the full-corpus score and the signature gains bs:N|seed:S.

Examples:
    Example 1:
        >>> predictions = ['It is a guide to action which ensures that the rubber duck always disobeys the commands of the cat', \
        'he read the book because he was interested in world history']
        >>> references = [['It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat'], \
        ['he was interested in world history because he read the book']]
        >>> google_bleu = evaluate.load("google_bleu")
        >>> results = google_bleu.compute(predictions=predictions, references=references)
        >>> print(round(results["google_bleu"], 2))
        0.44

    Example 2 (several references for the first prediction):
        >>> references = [['It is the guiding principle which guarantees the rubber duck forces never being under the command of the cat', \
        'It is a guide to action that ensures that the rubber duck will never heed the cat commands', \
        'It is the practical guide for the rubber duck army never to heed the directions of the cat'], \
        ['he was interested in world history because he read the book']]
        >>> results = google_bleu.compute(predictions=predictions, references=references)
        >>> print(round(results["google_bleu"], 2))
        0.61

    Example 3 (min_len=2):
        >>> results = google_bleu.compute(predictions=predictions, references=references, min_len=2)
        >>> print(round(results["google_bleu"], 2))
        0.53

    Example 4 (min_len=2, max_len=6):
        >>> results = google_bleu.compute(predictions=predictions, references=references, min_len=2, max_len=6)
        >>> print(round(results["google_bleu"], 2))
        0.4

    Sentence scores:
        >>> results = google_bleu.compute(predictions=["the cat sat on the mat"],
        ...     references=[["the cat ate the mat"]], return_sentence_scores=True)
        >>> results["sentence_scores"], round(results["precision"], 4), round(results["recall"], 4)
        ([0.3333333333333333], 0.3333, 0.4286)

    Confidence interval (bootstrap over segments, seeded):
        >>> results = google_bleu.compute(predictions=predictions, references=references, n_bootstrap=1000)
        >>> results["ci_low"] <= results["google_bleu"] <= results["ci_high"], results["signature"].split("|")[4:6]
        (True, ['bs:1000', 'seed:12345'])
"""


def result(
    stats: GleuStats,
    sig: str,
    return_sentence_scores: bool = False,
    interval: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """The output dict shared by every surface; optional keys only when asked for."""
    output: dict[str, Any] = {
        "google_bleu": stats.score(),
        "precision": stats.precision(),
        "recall": stats.recall(),
        "signature": sig,
    }
    if return_sentence_scores:
        output["sentence_scores"] = stats.sentence_scores().tolist()
    if interval is not None:
        output["ci_low"], output["ci_high"] = interval
    return output


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GoogleBleu(evaluate.Metric):
    """Google-BLEU metric: exact nltk/HF numbers plus precision, recall and sentence scores."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
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
            codebase_urls=["https://github.com/nltk/nltk/blob/develop/nltk/translate/gleu_score.py"],
            reference_urls=["https://arxiv.org/abs/1609.08144"],
        )

    # Inputs are validated and references normalised to lists before evaluate's Arrow
    # encoding, so errors name the problem and batches of either shape can be mixed.
    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Adds a batch of predictions and references (validated first)."""
        predictions, references = check_texts(predictions, references)
        if predictions:
            super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Adds one prediction and its reference(s) (validated first)."""
        predictions, references = check_texts([prediction], [reference])
        super().add(prediction=predictions[0], reference=references[0], **kwargs)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """Computes the metric over these inputs and everything added before.

        An empty corpus scores 0.0 (as nltk), where evaluate alone would fail.
        """
        if predictions is not None or references is not None:
            predictions, references = check_texts(predictions, references)
        if self.writer is None and not predictions:
            if self.num_process > 1:
                # Process 0 would wait for this process's cache file until evaluate's timeout.
                raise ValueError(
                    f"process {self.process_id} of {self.num_process} added no prediction: in evaluate's "
                    "distributed mode every process must add at least one before compute()"
                )
            # evaluate cannot store an empty batch; an empty corpus scores 0.0 as in nltk.
            return self._compute(predictions=[], references=[], **kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(
        self,
        predictions: list[str],
        references: list[Any],
        tokenizer: Any = DEFAULT_TOKENIZER,
        min_len: int = 1,
        max_len: int = 4,
        lowercase: bool = False,
        return_sentence_scores: bool = False,
        n_bootstrap: int | None = None,
        seed: int | None = DEFAULT_SEED,
    ) -> dict[str, Any]:
        if not isinstance(return_sentence_scores, bool):
            raise TypeError(f"return_sentence_scores must be a bool, got {type(return_sentence_scores).__name__}")
        if n_bootstrap is not None:
            n_bootstrap = check_n_samples(n_bootstrap, "n_bootstrap")
        seed = check_seed(seed)
        tokenize = get_tokenizer(tokenizer, lowercase)
        # Stored inputs were checked by add/add_batch; text_stats checks its own input again.
        stats = text_stats(predictions, references, tokenize, False, min_len, max_len)
        sig = signature(
            count_references(references), tokenize.name, lowercase, stats.min_len, stats.max_len, n_bootstrap, seed
        )
        interval = None if n_bootstrap is None else bootstrap_ci(stats, n_bootstrap, seed)
        return result(stats, sig, return_sentence_scores, interval)
