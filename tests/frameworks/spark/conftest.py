"""Fixtures of the Spark environment (.venvs/spark): one Spark cluster for the whole run and the
bundled WMT17 sample.

The cluster is Spark's ``local-cluster[2,1,1024]`` mode: a master and two workers in the
driver's JVM, each worker launching its executor as a JVM process of its own (one core, 1 GiB),
and each executor its Python workers, all on 127.0.0.1. Spark needs a Java runtime (``make
java``); without one the tests skip, saying so (a failure under ``CI=true``).

``python -m pytest`` runs from the repository root, so ``tests.helpers`` (standard library
only) is importable here.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.processes import alive
from tests.helpers.wmt17 import wmt17_sample

EXECUTORS = 2
#: The JVMs with their quick compiler only and one garbage-collector thread: these tests are small
#: jobs, where compiling for speed costs more than it saves (105 s for this folder on 2 shared
#: cores with Java's defaults, 47-57 s with these).
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="session")
def wmt17() -> dict:
    """The human reference and the four systems of the bundled sample, segment-aligned."""
    return wmt17_sample()


def executors(application: str) -> list[int]:
    """The pids of the running processes of ``application``'s executors (from ``/proc``)."""
    found = []
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = path.read_bytes().split(b"\0")
        except OSError:  # ended meanwhile
            continue
        if b"--app-id" in argv and application.encode() in argv and alive(int(path.parent.name)):
            found.append(int(path.parent.name))
    return found


@pytest.fixture(scope="session")
def spark():
    """A SparkSession on a local cluster of two one-core executors (see the module), up with
    both executors registered; stopped, and its executors' work folders removed, at the end."""
    if shutil.which("java") is None:
        reason = "no java on the path (as root: apt-get install openjdk-17-jre-headless; make test does it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the Spark tests: {reason}")
        pytest.skip(reason)
    import pyspark
    from pyspark.sql import SparkSession

    # Read by the JVM that pyspark starts, and by everything it starts in turn: the executors
    # bind to loopback, and run this interpreter's Python workers.
    saved = {name: os.environ.get(name) for name in ("SPARK_LOCAL_IP", "PYSPARK_PYTHON")}
    os.environ.update(SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    session = (
        SparkSession.builder.master(f"local-cluster[{EXECUTORS},1,1024]")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(EXECUTORS))
        .config("spark.driver.extraJavaOptions", JVM_OPTIONS)
        .config("spark.executor.extraJavaOptions", JVM_OPTIONS)
        .getOrCreate()
    )
    context = session.sparkContext
    try:
        deadline = time.monotonic() + 120
        while context._jsc.sc().getExecutorIds().size() < EXECUTORS:
            assert time.monotonic() < deadline, "the executors did not register within 2 minutes"
            time.sleep(0.2)
        yield session
    finally:
        application = context.applicationId
        session.stop()
        # The workers end their executors as the session stops; wait until none is left.
        deadline = time.monotonic() + 60
        while executors(application) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not executors(application), f"executors of {application} still running after the session stopped"
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        # Each worker keeps its executors' output in SPARK_HOME/work/<application> (pyspark's
        # own folder here).
        shutil.rmtree(Path(pyspark.__file__).parent / "work" / application, ignore_errors=True)
