"""Every core of one machine: statistics counted by worker processes that read their own byte ranges,
``==`` one process's (docs/scale.md)."""

from .files import FileError
from .lines import LineError, lines_from_bytes, split_lines
from .parallel import file_stats, files_stats, parallel_stats

__all__ = ["FileError", "LineError", "file_stats", "files_stats", "lines_from_bytes", "parallel_stats", "split_lines"]
