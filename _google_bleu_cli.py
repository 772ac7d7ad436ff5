"""The ``google-bleu`` command's entry point (also ``python -m google_bleu``).

It sits outside the package so that it runs before ``google_bleu`` and its imports (numpy,
sacrebleu: a few tenths of a second) load: from its first line, Ctrl-C or SIGTERM ends the
command with status 130 or 143 and one line on standard error, never a traceback. While
the imports run nothing has started (no worker, no output), so the process simply ends;
:func:`google_bleu.cli.main` then takes the signals over for the run (the first one stops it
with its status; later ones are noted), and once it returns they are ignored, the status
being known. Only Python's own start-up, before any line of this project runs, is left to
the interpreter's defaults. A signal that the process inherited as ignored (Ctrl-C of a
background job started by a non-interactive shell) stays ignored throughout.
"""

import os
import signal
import sys

_MESSAGES = {signal.SIGINT: b"google-bleu: interrupted\n", signal.SIGTERM: b"google-bleu: terminated\n"}


def _stop(signum, frame):
    try:
        os.write(2, _MESSAGES[signum])
    except OSError:  # standard error closed
        pass
    os._exit(128 + signum)


def main():
    """Runs the command with the arguments of ``sys.argv`` and ends the process with its
    exit status."""
    ignored = {signum for signum in _MESSAGES if signal.getsignal(signum) is signal.SIG_IGN}
    for signum in _MESSAGES.keys() - ignored:
        signal.signal(signum, _stop)
    from google_bleu.cli.main import main as command
    from google_bleu.scale.pool import one_thread_by_default

    # numpy is not imported yet: its BLAS starts one thread (the command's own numpy work is
    # one thread's, its workers being its other cores) unless the caller chose otherwise.
    one_thread_by_default()

    status = command(restore_signals=False)
    # The run is over and its status stands: a signal from now on is ignored.
    for signum in _MESSAGES:
        signal.signal(signum, signal.SIG_IGN)
    # Nothing is left to tear down (the output is written, the workers are gone, a spooled
    # pipe has no name on disk): the process ends now rather than after the interpreter's
    # own exit, a tenth of a second or more of unloading modules.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # a closed pipe, a closed or missing stream
            pass
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
