"""The ``google-bleu`` command (sacrebleu's shape): :func:`main` and the injectable :func:`run`."""

from .main import main, run

__all__ = ["main", "run"]
