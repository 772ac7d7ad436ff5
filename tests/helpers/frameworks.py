"""What the framework environments' tests share: a framework's source checkout named by an
environment variable (for a framework that is not on PyPI), and a small tokenizer trained here
(nothing comes from the hub).

Standard library only at import, so that every framework environment can import it; the
tokenizer's function imports ``tokenizers`` and ``transformers`` when it is called.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def source_checkout(project: str, version: str, variable: str, marker: str) -> tuple[Path | None, str]:
    """The folder named by the environment variable ``variable`` if it holds ``project`` at
    ``version`` (its ``setup.py`` version, and the file ``marker`` in it), else ``None`` and why
    not: the reason every test of the environment skips with."""
    source = os.environ.get(variable, "")
    if not source:
        return None, (
            f"{project} is not on PyPI (the `{project.lower()}` name there is an unrelated project) and this "
            f"environment reaches only PyPI: set {variable} to a checkout of {project} v{version} to run these tests"
        )
    folder = Path(source).resolve()
    setup = folder / "setup.py"
    found = re.search(r'version="([^"]+)"', setup.read_text("utf-8")) if setup.is_file() else None
    if not (folder / marker).is_file() or found is None:
        return None, f"{variable}={source} is not a checkout of {project} (no {marker}, no setup.py version)"
    if found[1] != version:
        return None, f"{variable}={source} holds {project} {found[1]}; these tests are for {project} {version}"
    return folder, ""


def byte_level_bpe(
    corpus: Sequence[str],
    special: Sequence[str],
    *,
    eos: str,
    pad: str,
    extra: Sequence[str] = (),
    chat_template: str | None = None,
    vocab_size: int = 2000,
) -> Any:
    """A ``transformers`` fast tokenizer: a byte-level BPE (lossless on any text) trained on
    ``corpus``, its ``special`` tokens first (ids 0, 1, ... in that order), ``eos`` and ``pad``
    among them, ``extra`` as additional special tokens, and ``chat_template`` if given."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=list(special), initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    backend.train_from_iterator(corpus, trainer)
    named = {"additional_special_tokens": list(extra)} if extra else {}
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token=eos, pad_token=pad, **named)
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    return tokenizer


def sample_corpus(wmt17: dict) -> list[str]:
    """Every line of the bundled sample (:func:`tests.helpers.wmt17.wmt17_sample`): the reference, then each system."""
    return wmt17["reference"] + sum(wmt17["systems"].values(), [])
