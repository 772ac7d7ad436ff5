"""What one request, one session and the whole Space may use (docs/space.md, *Limits*).

gradio and FastAPI bound request bodies, each file and the queue; :class:`UploadLimit` adds
what they have no means for: what gradio's upload route stores on disk.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from google_bleu.imports import import_optional

#: Largest input accepted, predictions and references together, in characters.
MAX_INPUT_CHARS = 2_000_000
#: Most segments (lines) accepted.
MAX_SEGMENTS = 20_000
#: Largest uploaded file (and the reference files of one upload together), in bytes: room for
#: ``MAX_INPUT_CHARS`` characters of UTF-8's 4 bytes, round in gradio's unit (:func:`size_text`).
MAX_FILE_BYTES = 8 << 20
#: Most reference files one upload may hold (one per reference).
MAX_REFERENCES = 8
#: Most files in one request to gradio's upload route, and the largest body it may have
#: (the page's files are at most ``MAX_FILE_BYTES`` together; 64 KiB for the multipart framing).
MAX_UPLOAD_FILES = MAX_REFERENCES
MAX_UPLOAD_REQUEST_BYTES = MAX_FILE_BYTES + (64 << 10)
#: What one client (an address) may keep stored in the upload folder, not yet read by the page.
MAX_CLIENT_UPLOAD_BYTES = 4 * MAX_FILE_BYTES
MAX_CLIENT_UPLOAD_FILES = 4 * MAX_UPLOAD_FILES
#: What the upload folder may hold in all (gradio's temporary files, every client's uploads).
MAX_UPLOAD_DISK_BYTES = 16 * MAX_FILE_BYTES
MAX_UPLOAD_DISK_FILES = 16 * MAX_UPLOAD_FILES
#: File types an upload may have (text only; gradio refuses others before the app sees them).
UPLOAD_TYPES = [".txt"]
#: Gradio deletes the files it keeps (uploads included) this often and after this age, in
#: seconds; the app deletes an upload as soon as it has read it.
UPLOAD_CLEANUP = (60, 300)
#: Bytes JSON may take for one character: ``\\ud83d\\ude00`` for one outside the Basic
#: Multilingual Plane, when the encoder escapes non-ASCII (``json.dumps``' default).
JSON_BYTES_PER_CHAR = 12
#: Largest request body but an upload's, in bytes (FastAPI's ``max_body_size``): the text at the
#: worst JSON escaping, plus room for the other fields.
MAX_REQUEST_BYTES = JSON_BYTES_PER_CHAR * MAX_INPUT_CHARS + (1 << 20)
#: Requests computed at the same time (a free Space has 2 CPU cores).
CONCURRENCY = 2
#: Requests that may wait in the queue; more are turned away with a message.
QUEUE_SIZE = 64
#: Sessions whose state gradio keeps (the inputs and outputs of their last request).
SESSION_CAPACITY = 64
#: Most rows of the segments table (the others are explained by their number).
MAX_TABLE_ROWS = 1_000
#: Most tokens a side explained and highlighted in "Why this score".
MAX_SHOWN_TOKENS = 1_000
#: Most characters of a prediction or reference shown in a table cell.
MAX_CELL_CHARS = 300


def size_text(size: int) -> str:
    """A size as gradio's refusal of a file over ``max_file_size`` says it in the browser (units
    of 1024, one decimal), so that the page names the limit alike.

    Example:
        >>> size_text(MAX_FILE_BYTES), size_text(8_000_000), size_text(512)
        ('8.0 Mb', '7.6 Mb', '512.0 b')
    """
    value, units = float(size), ["b", "Kb", "Mb", "Gb"]
    while value >= 1024 and len(units) > 1:
        value, units = value / 1024, units[1:]
    return f"{value:.1f} {units[0]}"


#: The file limit in the page's words: gradio's, then the exact bytes.
FILE_LIMIT = f"{size_text(MAX_FILE_BYTES)} ({MAX_FILE_BYTES:,} bytes)"


def _responses() -> Any:
    return import_optional("starlette.responses", "app", "the Space (app.py)")


async def _answer(scope: dict, receive: Any, send: Any, status: int, detail: str) -> None:
    """A refusal, as FastAPI words one: ``{"detail": ...}`` with its status."""
    await _responses().JSONResponse({"detail": detail}, status_code=status)(scope, receive, send)


def upload_folder() -> Path:
    """Where gradio keeps uploads and its other temporary files (its own rule)."""
    return Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio").resolve()


def folder_usage(folder: Path) -> tuple[int, int]:
    """``(bytes, files)`` of every file under ``folder`` (0, 0 when it does not exist)."""
    total = count = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:  # deleted meanwhile
                continue
            count += 1
    return total, count


#: How many answered uploads hold each stored path that the page has not read yet. gradio
#: stores a file by its content (``<sha256>/<name>``), so two uploads of the same file share
#: one path: the page deletes it when the last of them is read (:func:`release`).
HANDED_OUT: Counter[str] = Counter()


def release(path: str) -> bool:
    """Marks one upload of ``path`` as read; ``True`` when no other upload still holds the
    file (so it may be deleted)."""
    key = os.path.realpath(path)
    if HANDED_OUT[key] > 1:
        HANDED_OUT[key] -= 1
        return False
    HANDED_OUT.pop(key, None)
    return True


def _cut_off(detail: str) -> Exception:
    """An upload stopped while gradio parses it: Starlette's multipart parse error, the one
    exception on which gradio deletes the files it has written so far (and answers 413); any
    other would leave them where gradio's cleanup never looks (tests/surfaces/test_app.py)."""
    formparsers = import_optional("starlette.formparsers", "app", "the Space (app.py)")
    return formparsers.MultiPartException(f"upload over the maximum allowed size: {detail}")


class UploadLimit:
    """ASGI middleware: bounds what gradio's upload route stores on disk, per request, per
    client address (behind a proxy that hides addresses, one for all) and in all (413, 429, 507;
    docs/space.md, *Limits*), and answers gradio's deep-link route, which would write a
    session's text to disk, with 404.

    A request is refused before its body is read by its declared length; an upload being
    received counts as that length and as ``MAX_UPLOAD_FILES`` files, so the caps hold exactly.
    A body is cut off (:func:`_cut_off`) past its length, the caps or its client's departure.
    Each path the route answers with is counted in ``HANDED_OUT``.
    """

    def __init__(self, app: Any, folder: Callable[[], Path] = upload_folder) -> None:
        self.app = app
        self.folder = folder
        #: Per client, the files its uploads stored: path -> bytes.
        self.stored: dict[str, dict[str, int]] = {}
        #: Uploads being received: their client and the bytes held for them.
        self.receiving: dict[int, tuple[str, int]] = {}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        path = scope.get("path", "").rstrip("/") if scope["type"] == "http" else ""
        if path.endswith("/gradio_api/deep_link"):
            await _answer(scope, receive, send, 404, "this Space keeps no deep links (a link would store the session's text)")
            return
        if not path.endswith("/gradio_api/upload") or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        client = str((scope.get("client") or ("unknown",))[0])
        declared = headers.get(b"content-length", b"")
        size = int(declared) if declared.isdigit() else None
        held = MAX_UPLOAD_REQUEST_BYTES if size is None else size
        refusal = self._refusal(client, held)
        if refusal is not None:
            await _answer(scope, receive, send, *refusal)
            return
        key = id(receive)
        self.receiving[key] = (client, held)
        try:
            await self.app(scope, self._counted(receive, held, headers), self._recorded(send, client))
        finally:
            del self.receiving[key]

    def _refusal(self, client: str, size: int) -> tuple[int, str] | None:
        if size > MAX_UPLOAD_REQUEST_BYTES:
            return 413, (
                f"upload too large: {size:,} bytes, at most {MAX_UPLOAD_REQUEST_BYTES:,} in one upload "
                f"(the page takes files of at most {FILE_LIMIT}, {MAX_INPUT_CHARS:,} characters)"
            )
        self._forget_gone()
        files = self.stored.get(client, {})
        receiving = [held for owner, held in self.receiving.values() if owner == client]
        # An upload being received may hold up to MAX_UPLOAD_FILES files: counted as that many.
        if (
            sum(files.values()) + sum(receiving) + size > MAX_CLIENT_UPLOAD_BYTES
            or len(files) + MAX_UPLOAD_FILES * (len(receiving) + 1) > MAX_CLIENT_UPLOAD_FILES
        ):
            return 429, (
                f"too many uploads not read yet: {len(files)} files, {sum(files.values()):,} bytes from this address "
                f"(at most {MAX_CLIENT_UPLOAD_FILES} files, {MAX_CLIENT_UPLOAD_BYTES:,} bytes): "
                "load them into the page, or try again in a few minutes"
            )
        used, count = folder_usage(self.folder())
        used += sum(held for _, held in self.receiving.values())
        count += MAX_UPLOAD_FILES * len(self.receiving)
        if used + size > MAX_UPLOAD_DISK_BYTES or count + MAX_UPLOAD_FILES > MAX_UPLOAD_DISK_FILES:
            return 507, (
                f"the Space holds too many uploads now ({count:,} files, {used:,} bytes; at most "
                f"{MAX_UPLOAD_DISK_FILES:,} files, {MAX_UPLOAD_DISK_BYTES:,} bytes): try again in a few minutes"
            )
        return None

    def _forget_gone(self) -> None:
        """Keeps, of every client's stored files, those still on disk (the page deletes what it
        reads, gradio's cleanup the rest), so the record is never larger than the folder."""
        for client in list(self.stored):
            files = self.stored[client]
            for path in list(files):
                try:
                    files[path] = os.lstat(path).st_size
                except OSError:
                    del files[path]
                    HANDED_OUT.pop(os.path.realpath(path), None)
            if not files:
                del self.stored[client]

    def _counted(self, receive: Any, held: int, headers: dict) -> Any:
        limit = min(held, MAX_UPLOAD_REQUEST_BYTES)
        content_type = headers.get(b"content-type", b"").decode("latin-1")
        boundary = content_type.split("boundary=", 1)[1].split(";")[0].strip('" ') if "boundary=" in content_type else ""
        delimiter = b"--" + boundary.encode("latin-1")
        received = parts = 0
        tail = b""  # the end of the body so far, shorter than a delimiter

        async def counted() -> dict:
            nonlocal received, parts, tail
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _cut_off("the client went away before the end of its upload")
            if message["type"] == "http.request":
                body = message.get("body", b"")
                received += len(body)
                if received > limit:
                    raise _cut_off(f"more than {limit:,} bytes in one upload")
                if boundary:
                    # A part starts at each delimiter (the last one closes the body).
                    window = tail + body
                    parts += window.count(delimiter)
                    tail = window[-(len(delimiter) - 1) :]
                    if parts - 1 > MAX_UPLOAD_FILES:
                        raise _cut_off(f"more than {MAX_UPLOAD_FILES} files in one upload")
            return message

        return counted

    def _recorded(self, send: Any, client: str) -> Any:
        status = 0
        body = b""

        async def recorded(message: dict) -> None:
            nonlocal status, body
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body" and status == 200 and len(body) < (1 << 20):
                body += message.get("body", b"")
                if not message.get("more_body"):
                    self._record(client, body)
            await send(message)

        return recorded

    def _record(self, client: str, body: bytes) -> None:
        # The route answers with the paths it stored.
        try:
            paths = json.loads(body)
        except ValueError:
            return
        if isinstance(paths, list):
            files = self.stored.setdefault(client, {})
            for path in paths:
                if isinstance(path, str):
                    HANDED_OUT[os.path.realpath(path)] += 1
                    try:
                        files[path] = os.lstat(path).st_size
                    except OSError:
                        pass
