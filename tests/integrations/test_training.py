"""The Trainer hook, through a real Seq2SeqTrainer with a tiny model built here (no downloads)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
datasets = pytest.importorskip("datasets")

from tokenizers import Tokenizer, models, pre_tokenizers, processors  # noqa: E402

from google_bleu import GLEU  # noqa: E402
from google_bleu.integrations.transformers import ComputeMetrics  # noqa: E402
from tests.helpers.oracles import REPO, hf_google_bleu  # noqa: E402
from tests.helpers.readme_snippets import readme_snippet  # noqa: E402

WORDS = "the cat sat on mat dog ate a red big".split()
SPECIALS = ["<pad>", "</s>", "<s>", "<unk>"]
PAD, EOS = 0, 1


@pytest.fixture(scope="module")
def tokenizer():
    vocab = {word: i for i, word in enumerate(SPECIALS + WORDS)}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", EOS)])
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="<pad>", eos_token="</s>", bos_token="<s>", unk_token="<unk>"
    )


@pytest.fixture(scope="module")
def model(tokenizer):
    torch.manual_seed(2)
    config = transformers.BartConfig(
        vocab_size=len(tokenizer),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=32,
        pad_token_id=PAD,
        bos_token_id=2,
        eos_token_id=EOS,
        decoder_start_token_id=EOS,
        forced_bos_token_id=None,
        forced_eos_token_id=None,
        init_std=0.5,
    )
    model = transformers.BartForConditionalGeneration(config).eval()
    # A random model that never says <pad>, <s> or <unk> generates words of varied lengths.
    with torch.no_grad():
        model.final_logits_bias[0, [PAD, 2, 3]] = -1e4
    # Explicit, so that generation does not change with transformers' defaults between calls.
    model.generation_config = transformers.GenerationConfig(
        max_length=9, decoder_start_token_id=EOS, eos_token_id=EOS, pad_token_id=PAD, bos_token_id=2
    )
    return model


@pytest.fixture(scope="module")
def texts():
    rng = np.random.default_rng(7)
    sources = [" ".join(rng.choice(WORDS, rng.integers(2, 7))) for _ in range(11)]
    # Targets from the words this model likes to generate, so that n-grams of all orders match.
    targets = [" ".join(rng.choice(["sat", "big", "the", "sat"], rng.integers(1, 8))) for _ in range(11)]
    return sources, targets


@pytest.fixture(scope="module")
def eval_dataset(tokenizer, texts):
    sources, targets = texts
    encoded = tokenizer(sources)
    encoded["labels"] = tokenizer(targets)["input_ids"]
    return datasets.Dataset.from_dict(dict(encoded))


@pytest.fixture(scope="module")
def collator(tokenizer, model):
    return transformers.DataCollatorForSeq2Seq(tokenizer, model=model)


def make_trainer(model, tokenizer, eval_dataset, collator, tmp_path, compute_metrics, **args):
    arguments = transformers.Seq2SeqTrainingArguments(
        output_dir=str(tmp_path), per_device_eval_batch_size=3, report_to=[], use_cpu=True, **args
    )
    return transformers.Seq2SeqTrainer(
        model=model,
        args=arguments,
        eval_dataset=eval_dataset,
        data_collator=collator,
        processing_class=tokenizer,
        compute_metrics=compute_metrics,
    )


def oracle(tokenizer, prediction_rows, targets):
    """Scores decoded rows the long way: drop padding per row, decode one by one, nltk."""
    texts, lengths = [], []
    for row in prediction_rows:
        ids = [int(i) for i in row if i != -100]
        lengths.append(sum(i != PAD for i in ids))
        texts.append(tokenizer.decode(ids, skip_special_tokens=True).strip())
    stats = GLEU().stats(texts, targets)
    return texts, {
        "google_bleu": hf_google_bleu(texts, [[t] for t in targets]),
        "precision": stats.precision(),
        "recall": stats.recall(),
        "gen_len": sum(lengths) / len(lengths),
    }


def eval_metrics(metrics):
    return {key: metrics[f"eval_{key}"] for key in ("google_bleu", "precision", "recall", "gen_len")}


@pytest.fixture(scope="module")
def generated(model, tokenizer, eval_dataset, collator, tmp_path_factory):
    trainer = make_trainer(
        model, tokenizer, eval_dataset, collator, tmp_path_factory.mktemp("predict"), None, predict_with_generate=True
    )
    return trainer.predict(eval_dataset).predictions


def test_seq2seq_trainer_generate_equals_direct_scoring(
    model, tokenizer, eval_dataset, collator, tmp_path, texts, generated
):
    texts_out, expected = oracle(tokenizer, generated, texts[1])
    # The test means something: words of several lengths, some matching, one score not trivial.
    assert len({len(t.split()) for t in texts_out}) > 2
    assert 0.05 < expected["google_bleu"] < 1
    results = []
    for batch_eval_metrics in (False, True):
        compute_metrics = ComputeMetrics(tokenizer)
        trainer = make_trainer(
            model,
            tokenizer,
            eval_dataset,
            collator,
            tmp_path,
            compute_metrics,
            predict_with_generate=True,
            batch_eval_metrics=batch_eval_metrics,
        )
        results.append(eval_metrics(trainer.evaluate()))
    assert results[0] == expected
    assert results[1] == expected


def test_seq2seq_trainer_logits_argmax(model, tokenizer, eval_dataset, collator, tmp_path, texts):
    # Without predict_with_generate the Trainer hands over (logits, encoder states), the logits
    # of batches of different label lengths padded with -100 across batches.
    predict = make_trainer(model, tokenizer, eval_dataset, collator, tmp_path, None)
    logits = predict.predict(eval_dataset).predictions
    assert isinstance(logits, tuple) and logits[0].ndim == 3
    padded = np.all(logits[0] == -100, axis=-1)
    assert padded.any() and not padded.all()
    rows = [row.argmax(-1)[~pad] for row, pad in zip(logits[0], padded)]
    _, expected = oracle(tokenizer, rows, texts[1])
    assert expected["google_bleu"] > 0
    for batch_eval_metrics in (False, True):
        trainer = make_trainer(
            model,
            tokenizer,
            eval_dataset,
            collator,
            tmp_path,
            ComputeMetrics(tokenizer),
            batch_eval_metrics=batch_eval_metrics,
        )
        assert eval_metrics(trainer.evaluate()) == expected


def test_minus_100_in_predictions_and_labels(tokenizer, generated, texts):
    compute_metrics = ComputeMetrics(tokenizer)
    labels = np.asarray(tokenizer(texts[1], padding=True)["input_ids"])
    labels[labels == PAD] = -100
    plain = compute_metrics(transformers.EvalPrediction(predictions=generated, label_ids=labels))
    # As gathered across processes: rows padded with -100 to a longer width.
    wider = np.full((len(generated), generated.shape[1] + 5), -100, dtype=generated.dtype)
    wider[:, : generated.shape[1]] = generated
    assert compute_metrics((wider, labels)) == plain
    # A tuple (ids, anything) uses its first element.
    assert compute_metrics(((wider, np.zeros(3)), labels)) == plain
    # torch tensors, as batch_eval_metrics passes them.
    assert compute_metrics((torch.from_numpy(wider), torch.from_numpy(labels))) == plain
    _, expected = oracle(tokenizer, generated, texts[1])
    assert plain == expected


def test_batches_accumulate_then_reset(tokenizer, generated, texts):
    compute_metrics = ComputeMetrics(tokenizer, GLEU(min_len=1, max_len=3))
    labels = np.asarray(tokenizer(texts[1], padding=True)["input_ids"])
    whole = compute_metrics((generated, labels))
    for _ in range(2):  # the second round shows the state was reset after the result
        assert compute_metrics((generated[:4], labels[:4]), compute_result=False) == {}
        assert compute_metrics((generated[4:5], labels[4:5]), compute_result=False) == {}
        assert compute_metrics((generated[5:], labels[5:]), compute_result=True) == whole
    stats = GLEU(max_len=3).stats(compute_metrics.decode(generated), texts[1])
    assert whole["google_bleu"] == stats.score()


def test_metric_options(tokenizer, generated, texts):
    labels = np.asarray(tokenizer(texts[1], padding=True)["input_ids"])
    result = ComputeMetrics(tokenizer, GLEU("char", lowercase=True, min_len=2, max_len=3))(
        (generated, labels)
    )
    decoded = ComputeMetrics(tokenizer).decode(generated)
    stats = GLEU(tokenizer="char", lowercase=True, min_len=2, max_len=3).stats(decoded, texts[1])
    assert result["google_bleu"] == stats.score()
    assert result["recall"] == stats.recall()


def test_bad_input(tokenizer, generated):
    with pytest.raises(TypeError, match="scorer must be a google_bleu.GLEU"):
        ComputeMetrics(tokenizer, "13a")
    with pytest.raises(TypeError, match=r"ComputeMetrics\(\) got unexpected keyword arguments"):
        ComputeMetrics(tokenizer, max_order=4)
    with pytest.raises(TypeError, match="batch_decode"):
        ComputeMetrics("not a tokenizer")
    compute_metrics = ComputeMetrics(tokenizer)
    with pytest.raises(ValueError, match=r"got 11 predictions but 3 labels"):
        compute_metrics((generated, generated[:3]))
    with pytest.raises(ValueError, match=r"shape \(11,\)"):
        compute_metrics((generated[:, 0], generated))
    with pytest.raises(TypeError, match="float"):
        compute_metrics((generated.astype(np.float32), generated))
    with pytest.raises(ValueError, match=r"predicted token ids must be >= 0 \(or -100, transformers' ignore index"):
        compute_metrics((np.where(generated == PAD, -1, generated), generated))
    # Labels get the same checks (the real tokenizer's batch_decode raised OverflowError).
    with pytest.raises(ValueError, match=r"label token ids must be >= 0 \(or -100, transformers' ignore index.*got -1"):
        compute_metrics((generated, np.where(generated == PAD, -1, generated)))
    too_big = generated.astype(np.int64)
    too_big[0, 0] = 1 << 32
    with pytest.raises(ValueError, match=r"label token ids must be below 2\*\*32.*got 4294967296"):
        compute_metrics((generated, too_big))
    with pytest.raises(ValueError, match=r"predicted token ids must be below 2\*\*32"):
        compute_metrics((too_big, generated))
    with pytest.raises(ValueError, match=r"labels must be token ids \[batch, length\], got shape \(\)"):
        compute_metrics(transformers.EvalPrediction(predictions=generated, label_ids=None))


@pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true:UserWarning")
def test_readme_trainer_recipe(model, tokenizer, eval_dataset, collator, tmp_path, texts, generated, capsys):
    namespace = {
        "tokenizer": tokenizer,
        "model": model,
        "eval_dataset": eval_dataset,
        "data_collator": collator,
        "output_dir": str(tmp_path),
    }
    exec(readme_snippet("trainer"), namespace)
    _, expected = oracle(tokenizer, generated, texts[1])
    assert eval_metrics(namespace["metrics"]) == expected
    assert capsys.readouterr().out.split() == [repr(expected["google_bleu"]), repr(expected["gen_len"])]


def test_the_adapters_import_nothing_heavy():
    code = (
        "import sys\n"
        "import google_bleu.integrations.columns, google_bleu.integrations.torch_distributed, google_bleu.integrations.transformers\n"
        "print(sorted(m for m in ('torch', 'transformers', 'evaluate', 'datasets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
