"""Serves the real Space app (``app.py``) on a free local port, for the app and browser tests.

The test run gives the server a folder of its own for uploads (``GRADIO_TEMP_DIR``, set in
tests/conftest.py before gradio builds the page; the server process of the load test
inherits it), so the upload bounds count this run's files only.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve() -> Iterator[str]:
    """Launches ``app.demo`` in this process and yields its URL; closes it afterwards."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    import app

    port = free_port()
    app.demo.launch(
        server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True, **app.launch_kwargs()
    )
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        app.demo.close()


def main(argv: list[str] | None = None) -> None:
    """``python -m tests.helpers.app_server PORT``: serves the Space on 127.0.0.1:PORT until killed
    (the load test runs it as a separate process, so it can watch the server's memory)."""
    import sys

    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    import app

    port = int((argv if argv is not None else sys.argv[1:])[0])
    app.demo.launch(server_name="127.0.0.1", server_port=port, quiet=True, **app.launch_kwargs())


if __name__ == "__main__":
    main()
