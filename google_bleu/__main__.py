"""The ``google-bleu`` command's entry point (also ``python -m google_bleu``; docs/cli.md).

From :func:`main`'s first line to its last, Ctrl-C or SIGTERM kills the workers and exits with 130 or 143 and
one line, never a traceback; a signal the process inherited as ignored stays ignored.
"""

import os
import signal
import sys

_MESSAGES = {signal.SIGINT: b"google-bleu: interrupted\n", signal.SIGTERM: b"google-bleu: terminated\n"}


_PID = os.getpid()
#: The base install's packages (pyproject.toml's dependencies), by import name.
_NEEDED = ("numpy", "sacrebleu", "tqdm", "tabulate")


def _stop(signum, frame):
    if os.getpid() == _PID:  # (a worker forked a moment ago still has this handler: it only ends)
        try:
            for child in sys.modules["multiprocessing"].active_children():
                child.kill()
        except Exception:  # not imported, or half imported: no worker yet
            pass
        try:
            os.write(2, _MESSAGES[signum])
        except OSError:  # standard error closed
            pass
    os._exit(128 + signum)


def main():
    """Runs the command with the arguments of ``sys.argv`` and ends the process with its exit status."""
    ignored = {signum for signum in _MESSAGES if signal.getsignal(signum) is signal.SIG_IGN}
    for signum in _MESSAGES.keys() - ignored:
        signal.signal(signum, _stop)
    import importlib.util

    missing = [name for name in _NEEDED if importlib.util.find_spec(name) is None]
    if missing:  # e.g. `python -m google_bleu` at a clone's root, with a Python that lacks them
        sys.stderr.write(
            f"google-bleu: {missing[0]} is not installed for {sys.executable}; in the clone, `make run` installs the "
            "package into .venv (then: .venv/bin/google-bleu, or .venv/bin/python -m google_bleu)\n"
        )
        return 1
    from google_bleu.cli.main import main as command
    from google_bleu.scale.pool import one_thread_by_default

    one_thread_by_default()  # before numpy is imported

    status = command()
    # The run is over and its status stands: a signal from now on is ignored.
    for signum in _MESSAGES.keys() - ignored:
        signal.signal(signum, signal.SIG_IGN)
    # Nothing is left to tear down: skip the interpreter's own exit (a tenth of a second or more).
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # a closed pipe, a closed or missing stream
            pass
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
