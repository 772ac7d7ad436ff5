"""A local Ray cluster that talks to nothing beyond this machine.

Ray's defaults reach out: it reports usage statistics to its project's server, and its
dashboard process asks a cloud metadata address which cloud it runs on whenever no
autoscaler config exists in the home directory. Tests and benchmarks start Ray through
:func:`start` instead: usage statistics off, a local autoscaler config in a temporary
home directory for Ray's own processes (so no metadata request is made), and the node on
127.0.0.1. Checked by tracing the system calls of a run: no connection leaves the machine
(Ray's processes still find the host's own address, with a UDP ``connect`` that sends
nothing, and talk to each other there).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any


def start(num_cpus: int, **kwargs: Any) -> Any:
    """``ray.init`` of a local cluster with ``num_cpus`` CPUs, loopback only (see the module)."""
    import ray

    home = tempfile.mkdtemp(prefix="google-bleu-ray-home-")
    with open(os.path.join(home, "ray_bootstrap_config.yaml"), "w", encoding="utf-8") as config:
        config.write("provider:\n  type: local\n")
    saved = {name: os.environ.get(name) for name in ("HOME", "RAY_USAGE_STATS_ENABLED")}
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ["HOME"] = home  # Ray's processes inherit it at start
    try:
        return ray.init(
            num_cpus=num_cpus,
            include_dashboard=False,
            _node_ip_address="127.0.0.1",
            log_to_driver=False,
            configure_logging=False,
            **kwargs,
        )
    finally:
        os.environ["HOME"] = saved["HOME"] or os.path.expanduser("~")
        if saved["HOME"] is None:
            del os.environ["HOME"]
