"""Batched token-id GLEU (torch) against a loop of nltk ``sentence_gleu``, in the same run.

B rows of L token ids (vocabulary 32,000), with 1 and 4 references per row; each
reference is its hypothesis with about 30% of the tokens replaced, so matches occur at
every order as in RL rewards against a target. The nltk loop gets ready-made Python id
lists (its ``.tolist()`` conversion is not timed); the batched function gets the tensors
and does all its work inside the timing. Every score is checked for equality (``==``)
with nltk's. Printed: the best of ``--repeat`` runs of each, interleaved (on a shared
machine the load changes within a run; the minimum is the least disturbed time), and
the ratio.

Usage: ``python benchmarks/bench_batched.py [--rows 256] [--lengths 256 1024] [--threads 1]``
"""

from __future__ import annotations

import argparse
import platform
import time

import torch
from nltk.translate.gleu_score import sentence_gleu

from google_bleu.batched import batch_sentence_gleu

VOCAB = 32_000
NOISE = 0.3


def make_batch(rows: int, length: int, n_refs: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    hypotheses = torch.randint(1, VOCAB, (rows, length), generator=generator)
    references = hypotheses[:, None, :].repeat(1, n_refs, 1)
    replace = torch.rand((rows, n_refs, length), generator=generator) < NOISE
    noise = torch.randint(1, VOCAB, (rows, n_refs, length), generator=generator)
    return hypotheses, torch.where(replace, noise, references)


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def measure(hypotheses: torch.Tensor, references: torch.Tensor, device: torch.device, repeat: int):
    """Best-of-``repeat`` seconds of the nltk loop and of the batched function, and whether they agree."""
    hyp_lists, ref_lists = hypotheses.tolist(), references.tolist()
    hyp_d, ref_d = hypotheses.to(device), references.to(device)
    batch_sentence_gleu(hyp_d, ref_d)  # warm-up (allocator, CUDA context)

    def nltk_loop():
        return [sentence_gleu(refs, hyp) for hyp, refs in zip(hyp_lists, ref_lists)]

    def batched():
        scores = batch_sentence_gleu(hyp_d, ref_d)
        if device.type == "cuda":
            torch.cuda.synchronize()
        return scores

    nltk_times, ours_times = [], []
    for _ in range(repeat):  # interleaved, so both see the same load
        seconds, expected = timed(nltk_loop)
        nltk_times.append(seconds)
        for _ in range(3):
            seconds, scores = timed(batched)
            ours_times.append(seconds)
    return min(nltk_times), min(ours_times), scores.cpu().tolist() == expected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=256)
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--refs", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--threads", type=int, default=1, help="torch intra-op threads (default 1; 0 keeps torch's default)"
    )
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    print(
        f"# {platform.processor() or platform.machine()}, {torch.get_num_threads()} torch thread(s), "
        f"torch {torch.__version__}, device {device}"
    )
    print(f"{'rows':>5} {'tokens':>6} {'refs':>4} {'nltk loop s':>11} {'batched s':>9} {'ratio':>7}  identical")
    generator = torch.Generator().manual_seed(12345)
    for length in args.lengths:
        for n_refs in args.refs:
            hypotheses, references = make_batch(args.rows, length, n_refs, generator)
            nltk_s, ours_s, same = measure(hypotheses, references, device, args.repeat)
            print(
                f"{args.rows:>5} {length:>6} {n_refs:>4} {nltk_s:>11.3f} {ours_s:>9.4f} {nltk_s / ours_s:>6.1f}x  {same}"
            )


if __name__ == "__main__":
    main()
