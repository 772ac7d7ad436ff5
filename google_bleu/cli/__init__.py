"""The ``google-bleu`` command (sacrebleu's shape): :func:`run`, injectable (argv, output stream,
standard input). The process's entry point is :func:`google_bleu.cli.main.main`."""

from .main import run

__all__ = ["run"]
