"""What one request, one session and the whole Space may use, and the request-size cap.

Every bound has its own visible message. Memory is bounded per session (a session keeps
the statistics of its last result, never its text or a rendered table of every segment)
and in total (gradio keeps at most ``SESSION_CAPACITY`` sessions).
"""

from __future__ import annotations

import json
from typing import Any

from google_bleu import _import_optional

#: Largest input accepted, predictions and references together, in characters.
MAX_INPUT_CHARS = 2_000_000
#: Most segments (lines) accepted.
MAX_SEGMENTS = 20_000
#: Largest uploaded file, in bytes (UTF-8 takes at most 4 bytes a character).
MAX_FILE_BYTES = 4 * MAX_INPUT_CHARS
#: File types an upload may have (text only; gradio refuses others before the app sees them).
UPLOAD_TYPES = [".txt"]
#: Gradio deletes the files it keeps (uploads included) this often and after this age, in
#: seconds; the app deletes an upload as soon as it has read it.
UPLOAD_CLEANUP = (60, 300)
#: Bytes JSON may take for one character: a character outside the Basic Multilingual Plane
#: (an emoji, CJK Extension B) is a surrogate pair, ``\\ud83d\\ude00``, when the encoder escapes
#: non-ASCII (Python's ``json.dumps`` default, so ``requests``' ``json=``).
JSON_BYTES_PER_CHAR = 12
#: Largest request body, in bytes: the text at the worst JSON escaping, plus room for the
#: other fields. Uploads (multipart) have their own cap, ``MAX_FILE_BYTES``.
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


class RequestSizeLimit:
    """ASGI middleware: refuses a request body over ``max_bytes`` before anything parses it.

    A declared ``Content-Length`` over the cap is answered 413 at once, without reading the
    body; a body sent without one (chunked) is counted as it arrives and refused as soon
    as it passes the cap, so at most ``max_bytes`` of it is ever held.
    """

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _detail(self, size: str) -> str:
        return (
            f"request too large: {size} bytes, this Space takes at most {self.max_bytes:,} "
            f"(at most {MAX_INPUT_CHARS:,} characters of text; use the google-bleu package or CLI "
            "for larger corpora)"
        )

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send, f"{int(declared):,}" if declared.isdigit() else "unknown")
            return
        received = 0

        async def limited_receive() -> dict:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # gradio's server: FastAPI's own error passes its body parsing unchanged.
                    fastapi = _import_optional("fastapi", "app", "the Space (google_bleu.space)")
                    raise fastapi.HTTPException(status_code=413, detail=self._detail(f"more than {self.max_bytes:,}"))
            return message

        await self.app(scope, limited_receive, send)

    async def _refuse(self, send: Any, size: str) -> None:
        body = json.dumps({"detail": self._detail(size)}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})
