"""The gathered GLEU reward against the per-sample one, inside veRL's own reward loop.

veRL 0.9.1 scores a batch with ``RewardLoopWorker.compute_score_batch``: one asyncio task a
sample, each running ``NaiveRewardManager.run_single`` (decode the response in the loop's
thread pool, then call the reward). Two rewards, loaded by veRL's loader from
``google_bleu/verl_reward.py`` through the config ``verl.trainer.main_ppo`` composes:

- ``compute_score``: the plain per-sample function; veRL runs each call in the loop's
  default thread pool (``run_in_executor``);
- ``compute_score_gathered``: the async form; veRL awaits each call, and the calls that
  arrive within the window (1 ms from the first, up to 64) are scored in one batched call.

Also timed: the same gathered reward with other windows (a reward file of two lines,
``GleuGatherer(max_wait=...).compute_score``, as the guide shows), and the floor: an async
reward that returns 0.0 without scoring (what veRL's loop costs by itself). The batches hold
``--concurrency`` samples (8 and 64 concurrent calls), real WMT17 en-de system outputs
against the human reference (the bundled sample), encoded with a character-level tokenizer
built here (every line decodes back to itself). Every reward veRL returns is compared
(``==``) with ``GLEU().sentence_score`` of that line. Times are per ``compute_score_batch``
call; each round scores the same 320 samples, rounds of the rewards interleaved, and the
best round counts. CPU only. Writes ``benchmarks/results/gather.json``.

Runs in veRL's framework environment, ``.venvs/verl`` (``make bench-gather``; see
``tests/frameworks/verl/requirements.txt``).

Usage: ``python benchmarks/bench_gather.py [--concurrency 8 64] [--rounds 7]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from benchmarks.machine import cpu_model, load_average  # noqa: E402
from google_bleu import GLEU, __version__  # noqa: E402

SAMPLE = REPO / "google_bleu" / "samples" / "wmt17_en_de"
RESULTS = REPO / "benchmarks" / "results" / "gather.json"
REWARD_FILE = REPO / "google_bleu" / "verl_reward.py"
#: Samples scored per round (a multiple of every concurrency timed).
ROUND = 320
#: Windows timed besides the ready instance's 1 ms, with reward files written here.
OTHER_WINDOWS = (0.0, 0.005)


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def wmt_pairs() -> list[tuple[str, str]]:
    """(system output, reference) of every non-empty output of the bundled sample, systems interleaved."""
    reference = read_lines(SAMPLE / "ref0.txt")
    systems = [read_lines(path) for path in sorted(SAMPLE.glob("sys_*.txt"))]
    return [(system[i], reference[i]) for i in range(len(reference)) for system in systems if system[i].strip()]


def char_tokenizer(texts: list[str], folder: str):
    """A character-level ``PreTrainedTokenizerFast`` over the characters of ``texts``, saved to ``folder``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocabulary = {"<pad>": 0, "<eos>": 1, "<unk>": 2}
    for char in sorted(set("".join(texts))):
        vocabulary.setdefault(char, len(vocabulary))
    model = Tokenizer(models.WordLevel(vocab=vocabulary, unk_token="<unk>"))
    model.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    model.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=model, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
    tokenizer.save_pretrained(folder)
    return tokenizer


def compose(reward_path: str, reward_name: str, tokenizer_folder: str):
    """The config as ``python -m verl.trainer.main_ppo <overrides>`` composes it (Hydra, struct mode)."""
    import verl
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return hydra_compose(
            config_name="ppo_trainer",
            overrides=[
                f"reward.custom_reward_function.path={reward_path}",
                f"reward.custom_reward_function.name={reward_name}",
                f"actor_rollout_ref.model.path={tokenizer_folder}",
            ],
        )


def data_proto(pairs: list[tuple[str, str]], tokenizer):
    """A rollout batch as veRL's reward loop receives it: prompts | responses, one attention mask."""
    from verl import DataProto

    ids = [tokenizer(hyp, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id] for hyp, _ in pairs]
    n, prompt_len, response_len = len(pairs), 4, max(map(len, ids))
    prompts = torch.full((n, prompt_len), tokenizer.pad_token_id)
    responses = torch.full((n, response_len), tokenizer.pad_token_id)
    mask = torch.zeros((n, prompt_len + response_len), dtype=torch.long)
    mask[:, :prompt_len] = 1
    for i, row in enumerate(ids):
        responses[i, : len(row)] = torch.tensor(row)
        mask[i, prompt_len : prompt_len + len(row)] = 1
    return DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": mask},
        non_tensors={
            "data_source": np.array(["wmt17"] * n, dtype=object),
            "reward_model": np.array([{"ground_truth": ref, "style": "rule"} for _, ref in pairs], dtype=object),
            "extra_info": np.array([{"index": i} for i in range(n)], dtype=object),
        },
    )


def _gatherer_of(function):
    """The GleuGatherer a loaded reward batches with: the one compute_score_with closed over, or
    the module's own for compute_score_gathered; None for a per-sample reward."""
    from google_bleu.integrations import verl
    from google_bleu.integrations.gather import GleuGatherer

    cells = [cell.cell_contents for cell in getattr(function, "__closure__", None) or ()]
    found = [cell for cell in cells if isinstance(cell, GleuGatherer)]
    if found:
        return found[0]
    return verl.gathered if function is verl.compute_score_gathered else None


class Reward:
    """One reward loaded into veRL's ``RewardLoopWorker``, and its gatherer (if any)."""

    def __init__(
        self, label: str, path: str, name: str, tokenizer_folder: str, window_ms: float | None, check: bool = True
    ) -> None:
        from verl.experimental.reward_loop import RewardLoopWorker

        self.label, self.name, self.window_ms, self.check = label, name, window_ms, check
        self.worker = RewardLoopWorker(compose(path, name, tokenizer_folder))
        manager = self.worker.reward_manager
        self.awaited = manager.is_async_reward_score
        # veRL wraps the loaded function in partial(_call_with_kwargs[_async], raw_fn, reward_kwargs).
        raw = manager.compute_score.args[0]
        self.gatherer = _gatherer_of(raw)
        self.times: list[float] = []
        self.identical = True
        self.calls = self.batches = 0

    def round(self, batches: list, expected: list[list[tuple[float, float, float]]]) -> None:
        loop = self.worker.loop
        before = self.gatherer.counts() if self.gatherer is not None else None
        outputs, start = [], time.perf_counter()
        for data in batches:
            outputs.append(loop.run_until_complete(self.worker.compute_score_batch(data)))
        self.times.append(time.perf_counter() - start)
        for out, want in zip(outputs, expected if self.check else []):
            got = [
                (o["reward_score"], o["reward_extra_info"]["precision"], o["reward_extra_info"]["recall"]) for o in out
            ]
            self.identical &= got == want
        if before is not None:
            after = self.gatherer.counts()
            self.calls += after["calls"] - before["calls"]
            self.batches += after["batches"] - before["batches"]


def bench(concurrency: int, pairs, tokenizer, rewards: list[Reward], rounds: int) -> list[dict]:
    steps = ROUND // concurrency
    chunks = [pairs[i * concurrency : (i + 1) * concurrency] for i in range(steps)]
    batches = [data_proto(chunk, tokenizer) for chunk in chunks]
    scorer = GLEU()
    expected = []
    for chunk in chunks:
        rows = []
        for hyp, ref in chunk:
            result = scorer.sentence_score(hyp, [ref])
            rows.append((result.score, result.precision, result.recall))
        expected.append(rows)
    for reward in rewards:  # warm-up: imports, tokenizer, thread pool
        reward.times, reward.identical, reward.calls, reward.batches = [], True, 0, 0
        reward.round(batches[:2], expected[:2])
        reward.times, reward.calls, reward.batches = [], 0, 0
    for _ in range(rounds):
        for reward in rewards:
            reward.round(batches, expected)
    plain = min(rewards[0].times)
    floor = min(rewards[-1].times)  # the last reward scores nothing
    rows = []
    for reward in rewards:
        best = min(reward.times)
        rows.append(
            {
                "concurrency": concurrency,
                "reward": reward.label,
                "name": reward.name,
                "awaited": reward.awaited,
                "window_ms": reward.window_ms,
                "steps_per_round": steps,
                "ms_per_step": 1000 * best / steps,
                "median_ms_per_step": 1000 * statistics.median(reward.times) / steps,
                "above_floor_ms": 1000 * (best - floor) / steps if reward.check else None,
                "samples_per_s": ROUND / best,
                "speedup": plain / best,
                "mean_batch": reward.calls / reward.batches if reward.batches else None,
                "identical": reward.identical if reward.check else None,
            }
        )
        print(
            f"N={concurrency:3d} {reward.label:34s} {1000 * best / steps:8.2f} ms/step "
            f"{ROUND / best:9.0f} samples/s  x{plain / best:5.2f}  batch {rows[-1]['mean_batch']}  "
            f"identical={reward.identical if reward.check else '-'}",
            flush=True,
        )
    return rows


def machine() -> dict:
    import ray
    import transformers
    import verl

    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "verl": verl.__version__,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "ray": ray.__version__,
        "numpy": np.__version__,
        "google_bleu": __version__,
        "os": platform.platform(),
        "load average": load_average(),
        "gpu": "none",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    for n in args.concurrency:
        if n < 1 or ROUND % n:
            parser.error(f"--concurrency values must divide {ROUND}, got {n}")
    info = machine()  # the load average before the run
    pairs = wmt_pairs()
    folder = tempfile.mkdtemp(prefix="bench_gather_")
    tokenizer = char_tokenizer([text for pair in pairs for text in pair], folder)
    for hyp, _ in pairs:  # the reward scores exactly the line
        assert tokenizer.decode(tokenizer(hyp, add_special_tokens=False)["input_ids"], skip_special_tokens=True) == hyp
    rewards = [
        Reward("compute_score (per sample, thread pool)", str(REWARD_FILE), "compute_score", folder, None),
        Reward("compute_score_gathered (1 ms window)", str(REWARD_FILE), "compute_score_gathered", folder, 1.0),
    ]
    for window in OTHER_WINDOWS:
        path = Path(folder) / f"gleu_reward_{int(window * 1000)}ms.py"
        path.write_text(
            "from google_bleu.integrations.gather import GleuGatherer\n"
            "from google_bleu.integrations.verl import compute_score_with\n\n"
            f"compute_score = compute_score_with(GleuGatherer(max_wait={window!r}))\n",
            encoding="utf-8",
        )
        label = f"compute_score_with(GleuGatherer(max_wait={window:g}))"
        rewards.append(Reward(label, str(path), "compute_score", folder, 1000 * window))
    floor = Path(folder) / "no_scoring.py"
    floor.write_text("async def compute_score(**kwargs):\n    return 0.0\n", encoding="utf-8")
    rewards.append(Reward("floor: an async reward returning 0.0", str(floor), "compute_score", folder, None, False))
    assert [r.awaited for r in rewards] == [False] + [True] * (len(rewards) - 1)
    start = time.perf_counter()
    rows = [row for n in args.concurrency for row in bench(n, pairs, tokenizer, rewards, args.rounds)]
    seconds = time.perf_counter() - start
    report = {  # schema 1 of benchmarks/report.py
        "schema": 1,
        "title": "Gathered reward in veRL's reward loop",
        "order": 60,
        "date": time.strftime("%Y-%m-%d"),
        "command": "make bench-gather",
        "machine": info,
        "notes": [
            f"veRL {info['verl']}'s `RewardLoopWorker.compute_score_batch` (one task a sample, "
            "`NaiveRewardManager.run_single`), built from the config `main_ppo` composes, in-process (in training it "
            "is a Ray actor). Data: the bundled WMT17 en-de sample, the 4 systems' outputs against the reference, "
            f"{ROUND} samples a round; every reward is compared with `GLEU().sentence_score` (`==`).",
            "The floor is veRL's own cost per batch (slicing, decoding, tasks) with a reward that scores nothing; "
            "'above the floor' is what the reward adds to it.",
            f"Best of {args.rounds} interleaved rounds; 'median' is the median round. 'mean batch' is the sentences "
            "per batched scoring call. The per-sample function runs in veRL's thread pool "
            "(`run_in_executor`), the gathered ones are awaited on the worker's loop.",
            f"CPU only: no GPU timings were taken in this run. The timed rounds took {seconds:.0f} s.",
        ],
        "tables": [
            {
                "columns": [
                    {"key": "concurrency", "label": "concurrent calls", "format": ","},
                    {"key": "reward", "label": "reward"},
                    {"key": "ms_per_step", "label": "per batch", "format": ".2f", "unit": " ms"},
                    {"key": "median_ms_per_step", "label": "median", "format": ".2f", "unit": " ms"},
                    {"key": "above_floor_ms", "label": "above the floor", "format": ".2f", "unit": " ms"},
                    {"key": "samples_per_s", "label": "samples/s", "format": ",.0f"},
                    {"key": "speedup", "label": "vs per sample", "format": ".2f", "unit": "x"},
                    {"key": "mean_batch", "label": "mean batch", "format": ".1f"},
                    {"key": "identical", "label": "identical"},
                ],
                "rows": rows,
            }
        ],
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0 if all(row["identical"] is not False for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
