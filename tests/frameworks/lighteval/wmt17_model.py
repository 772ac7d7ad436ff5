"""A LightEval custom model (``lighteval custom SYSTEM wmt17_model.py ...``) that answers each
prompt of the WMT17 task with the real output of one WMT17 system for that segment.

The system is the model's name (``CustomModelConfig.model_name``): one of the four systems of
the bundled sample, whose line ``i`` translates segment ``i``. LightEval loads this file by
path and instantiates the one ``LightevalModel`` subclass it defines with the config.
"""

from __future__ import annotations

import re

from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.tasks.requests import Doc
from lighteval.utils.cache_management import SampleCache

from tests.helpers.wmt17 import SAMPLE

PROMPT = re.compile(r"Translate segment (?P<segment>\d+) of newstest2017 into German\.")


class WMT17SystemModel(LightevalModel):
    """Replays ``sys_<model_name>.txt``: the prompt names the segment."""

    def __init__(self, config) -> None:
        self.config = config
        path = SAMPLE / f"sys_{config.model_name}.txt"
        if not path.is_file():
            raise ValueError(f"no WMT17 system {config.model_name!r} in {SAMPLE}")
        self.lines = path.read_text("utf-8").splitlines()
        self.prompts: list[str] = []  # every prompt answered, in order
        self._cache = SampleCache(config)  # the pipeline registers its tasks with it

    @property
    def tokenizer(self):
        return None

    @property
    def add_special_tokens(self) -> bool:
        return False

    @property
    def max_length(self) -> int:
        return 4096

    def greedy_until(self, docs: list[Doc]) -> list[ModelResponse]:
        responses = []
        for doc in docs:
            match = PROMPT.fullmatch(doc.query)
            if match is None:
                raise ValueError(f"not a prompt of the WMT17 task: {doc.query!r}")
            self.prompts.append(doc.query)
            responses.append(ModelResponse(input=doc.query, text=[self.lines[int(match["segment"])]]))
        return responses

    def loglikelihood(self, docs: list[Doc]) -> list[ModelResponse]:
        raise NotImplementedError("the WMT17 systems only generate")

    def loglikelihood_rolling(self, docs: list[Doc]) -> list[ModelResponse]:
        raise NotImplementedError("the WMT17 systems only generate")
