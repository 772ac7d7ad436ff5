"""Scale-out: the line policy of text files, input files planned into byte ranges, and a
pool of worker processes that read their own ranges.

:func:`parallel_stats` and :func:`file_stats` take a :class:`~google_bleu.GLEU` and return
rows identical to one process's.
"""

from .files import FileError
from .lines import LineError, lines_from_bytes, split_lines
from .parallel import file_stats, files_stats, parallel_stats

__all__ = ["FileError", "LineError", "file_stats", "files_stats", "lines_from_bytes", "parallel_stats", "split_lines"]
