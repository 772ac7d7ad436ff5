"""One process of a multi-process test: runs a README snippet with its own shard.

Usage: ``python -m tests.helpers.distributed_worker SPEC.json``. The spec names the README block,
the variables to run it with, the variables to report, and the JSON file to write. With
``mismatch_port`` it first checks that ranks counting different orders all get the same
ValueError from ``all_reduce_stats``.
"""

from __future__ import annotations

import json
import sys


class _NoTransformers:
    """An import hook under which ``import transformers`` raises ImportError."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "transformers" or name.startswith("transformers."):
            raise ImportError(f"{name} is not imported in this worker")
        return None


def check_mismatched_orders(port: int, rank: int, world_size: int) -> str:
    import torch.distributed as dist

    from google_bleu import GLEU
    from google_bleu.integrations.torch_distributed import all_reduce_stats

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world_size)
    try:
        all_reduce_stats(GLEU(max_len=4 if rank == 0 else 3).stats(["a b c"], ["a b"]))
    except ValueError as error:
        return str(error)
    finally:
        dist.destroy_process_group()
    return "no error"


def main(spec_path: str) -> None:
    with open(spec_path, encoding="utf-8") as file:
        spec = json.load(file)
    from tests.helpers.readme_snippets import readme_snippet

    if spec.get("block_transformers"):
        # evaluate imports transformers (and so torch) eagerly when it is installed, which
        # costs seconds per process; the metric needs neither (evaluate catches ImportError).
        sys.meta_path.insert(0, _NoTransformers())
    report = {}
    namespace = dict(spec["namespace"])
    if spec.get("mismatch_port"):
        report["mismatch_error"] = check_mismatched_orders(
            spec["mismatch_port"], namespace["rank"], namespace["world_size"]
        )
    exec(readme_snippet(spec["snippet"]), namespace)
    report.update({name: namespace[name] for name in spec["report"]})
    with open(spec["out"], "w", encoding="utf-8") as file:
        json.dump(report, file)


if __name__ == "__main__":
    main(sys.argv[1])
