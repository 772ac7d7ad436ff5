"""A verifiers 0.4 taskset of the bundled WMT17 en-de sample: one task per (system, segment).

Each task asks for the German translation of one newstest2017 segment; the local model of the
tests (conftest.py) answers with that segment's output of the system the prompt names. The
human reference is both ``answer`` (a string) and ``references`` (a list of one). The task has
no reward of its own: an environment's TOML plugs them (``[env.taskset.task.rewards]``).

verifiers loads a taskset by importing its id as a package and taking the ``Taskset`` subclass
that ``__all__`` exports (``verifiers.v1.utils.loaders``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import verifiers.v1 as vf

from tests.helpers.wmt17 import SAMPLE, SYSTEMS, read_lines

_PROMPT = "Translate segment {segment} of newstest2017 into German, as {system}."
PROMPT = re.compile(r"Translate segment (?P<segment>\d+) of newstest2017 into German, as (?P<system>\S+)\.")


class TranslationData(vf.TaskData):
    system: str
    segment: int
    answer: str
    references: list[str]


class TranslationTask(vf.Task[TranslationData]):
    pass


class WMT17Config(vf.TasksetConfig):
    num_segments: int = 300
    """The first segments of each system (the sample has 300)."""


class WMT17Taskset(vf.Taskset[TranslationTask, WMT17Config]):
    def load(self) -> Iterator[TranslationTask]:
        reference = read_lines(SAMPLE / "ref0.txt")
        for system in SYSTEMS:
            for segment in range(self.config.num_segments):
                data = TranslationData(
                    id=f"{system}/{segment}",
                    prompt=_PROMPT.format(segment=segment, system=system),
                    system=system,
                    segment=segment,
                    answer=reference[segment],
                    references=[reference[segment]],
                )
                yield TranslationTask(data, self.config.task)


__all__ = ["WMT17Taskset"]
