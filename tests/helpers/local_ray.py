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

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import Any

_HOMES: list[str] = []


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    """Usage statistics off and a home directory with a local autoscaler config, for the Ray
    processes started inside (they inherit the environment)."""
    # One home a process: Ray keeps the authentication token it made for the first cluster in
    # the process and writes it to the home once (~/.ray/auth_token); a later cluster's
    # processes must find it there.
    if not _HOMES:
        _HOMES.append(tempfile.mkdtemp(prefix="google-bleu-ray-home-"))
        with open(os.path.join(_HOMES[0], "ray_bootstrap_config.yaml"), "w", encoding="utf-8") as config:
            config.write("provider:\n  type: local\n")
    home = _HOMES[0]
    saved = {name: os.environ.get(name) for name in ("HOME", "RAY_USAGE_STATS_ENABLED")}
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ["HOME"] = home
    try:
        yield
    finally:
        os.environ["HOME"] = saved["HOME"] or os.path.expanduser("~")
        if saved["HOME"] is None:
            del os.environ["HOME"]


def start(num_cpus: int, **kwargs: Any) -> Any:
    """``ray.init`` of a local cluster with ``num_cpus`` CPUs, loopback only (see the module)."""
    import ray

    with _offline():
        return ray.init(
            # A cluster of its own: without an address, ray.init joins the one named in
            # /tmp/ray/ray_current_cluster (which a ray.cluster_utils.Cluster, of this suite or
            # of another run beside it, writes) instead of starting one.
            address="local",
            num_cpus=num_cpus,
            include_dashboard=False,
            _node_ip_address="127.0.0.1",
            log_to_driver=False,
            configure_logging=False,
            **kwargs,
        )


def cluster(head_cpus: int, nodes: int, cpus_per_node: int = 1, object_store_mib: int = 100) -> Any:
    """A ``ray.cluster_utils.Cluster`` on this machine: a head of ``head_cpus`` CPUs and
    ``nodes`` more nodes, each a raylet with its own CPUs and object store, loopback only, and
    this process connected to it. ``shutdown()`` it (after ``ray.shutdown()``)."""
    import ray
    from ray.cluster_utils import Cluster

    node = {"node_ip_address": "127.0.0.1", "object_store_memory": object_store_mib * 2**20}
    with _offline():
        made = Cluster(initialize_head=True, head_node_args={**node, "num_cpus": head_cpus, "include_dashboard": False})
        for _ in range(nodes):
            made.add_node(**node, num_cpus=cpus_per_node)
        made.wait_for_nodes()
        # ray.init(address=...) turns a loopback address into this host's own address
        # (services.resolve_ip_for_localhost), where the loopback-only cluster is not: Ray's
        # switch for single-machine systems keeps it loopback, in this process, for the call.
        constants, enabled = ray._private.ray_constants, ray._private.ray_constants.ENABLE_RAY_CLUSTER
        constants.ENABLE_RAY_CLUSTER = False
        try:
            ray.init(address=made.address, _node_ip_address="127.0.0.1", log_to_driver=False, configure_logging=False)
        finally:
            constants.ENABLE_RAY_CLUSTER = enabled
    return made
