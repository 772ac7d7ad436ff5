"""Scale-out: the line policy of text files, streamed files and a pool of worker processes.

:func:`parallel_stats` and :func:`file_stats` take a :class:`~google_bleu.GLEU` and return
rows identical to one process's.
"""

from .lines import LineError, lines_from_bytes, lines_from_text, split_lines
from .parallel import FileError, file_stats, parallel_stats

__all__ = ["FileError", "LineError", "file_stats", "lines_from_bytes", "lines_from_text", "parallel_stats", "split_lines"]
