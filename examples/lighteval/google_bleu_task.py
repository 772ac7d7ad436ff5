"""A LightEval custom task scored with Google-BLEU: German translations of WMT17 en-de.

The data is the package's bundled sample (newstest2017, 300 segments), read from local files
through the datasets folder beside this file (``wmt17_en_de/README.md`` names the reference
file), so nothing is downloaded. Each document asks for one segment's German translation; its
gold is the human reference. The metric reports ``google_bleu`` (corpus GLEU) and
``google_bleu_sentence`` (the mean sentence GLEU).

Run it with any LightEval model, e.g. a custom one:

    lighteval custom MODEL_NAME my_model.py "wmt17_en_de_gleu|0" \
        --custom-tasks examples/lighteval/google_bleu_task.py
"""

from pathlib import Path

from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc

from google_bleu import GLEU
from google_bleu.integrations.lighteval import make_lighteval_metric

DATA = Path(__file__).resolve().parent / "wmt17_en_de"


def wmt17_prompt(line: dict, task_name: str | None = None) -> Doc:
    """One document per line of the reference: LightEval numbers the lines (``__index``)."""
    segment = line["__index"]
    return Doc(
        task_name=task_name,
        query=f"Translate segment {segment} of newstest2017 into German.",
        choices=[line["text"]],
        gold_index=0,
        specific={"segment": segment},
    )


wmt17_en_de_gleu = LightevalTaskConfig(
    name="wmt17_en_de_gleu",
    prompt_function=wmt17_prompt,
    hf_repo=str(DATA),
    hf_subset="default",
    hf_avail_splits=["test"],
    evaluation_splits=["test"],
    # GLEU() is tokenizer="13a", lowercase=False, min_len=1, max_len=4.
    metrics=[make_lighteval_metric(GLEU())],  # reports google_bleu and google_bleu_sentence
    generation_size=256,
    stop_sequence=["\n"],
)

TASKS_TABLE = [wmt17_en_de_gleu]
