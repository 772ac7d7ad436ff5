"""Fixtures of the verifiers environment (.venvs/verifiers): the bundled WMT17 sample, the
taskset package beside this file (wmt17_gleu), and a local OpenAI-compatible model on
127.0.0.1 that answers each prompt with a real WMT17 system output (there is no network to a
model). verifiers' own command line (``vf-eval``) runs against it in a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE))  # the taskset package, as verifiers imports it by id

from wmt17_gleu import PROMPT  # noqa: E402

from tests.helpers.wmt17 import wmt17_sample  # noqa: E402

GUIDE = REPO / "docs" / "rl-rewards.md"
#: The environment variable holding the local model's key (verifiers reads the key by name).
KEY_VAR = "WMT17_MODEL_KEY"


@pytest.fixture(scope="session")
def wmt17() -> dict:
    """The human reference and the four systems of the bundled sample, segment-aligned."""
    return wmt17_sample()


class WMT17Model(ThreadingHTTPServer):
    """``POST /v1/chat/completions`` (streamed or not): the output of the system the prompt
    names for the segment it names. Every reply it sent is kept in ``replies``."""

    daemon_threads = True

    def __init__(self, systems: dict[str, list[str]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.systems = systems
        self.replies: list[tuple[str, int, str]] = []
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def reply(self, body: dict) -> str:
        users = [m for m in body["messages"] if m["role"] == "user"]
        content = users[-1]["content"] if users else ""
        if not isinstance(content, str):
            content = "".join(part.get("text", "") for part in content)
        match = PROMPT.fullmatch(content.strip())
        if match is None:
            raise ValueError(f"not a prompt of the WMT17 taskset: {content!r}")
        system, segment = match["system"], int(match["segment"])
        text = self.systems[system][segment]
        with self.lock:
            self.replies.append((system, segment, text))
        return text


class _Handler(BaseHTTPRequestHandler):
    server: WMT17Model

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's signature
        pass

    def do_POST(self):
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        try:
            text = self.server.reply(body)
        except (ValueError, KeyError, IndexError) as error:
            self.send_error(400, str(error))
            return
        created, model = int(time.time()), body.get("model", "wmt17")
        usage = {"prompt_tokens": 16, "completion_tokens": len(text.split()), "total_tokens": 16 + len(text.split())}
        if not body.get("stream"):
            payload = json.dumps(
                {
                    "id": "chatcmpl-wmt17",
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                    "usage": usage,
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        chunk = {"id": "chatcmpl-wmt17", "object": "chat.completion.chunk", "created": created, "model": model}
        events = [
            {
                **chunk,
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}],
            },
            {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        ]
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append({**chunk, "choices": [], "usage": usage})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for event in events:
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture(scope="session")
def wmt17_model(wmt17):
    server = WMT17Model(wmt17["systems"])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def vf_env(tmp_path) -> dict[str, str]:
    """The environment of a ``vf-eval`` run: this venv's scripts (uv among them) first on PATH,
    the taskset importable, a fresh HOME (verifiers keeps its runtimes under ~/.cache/verifiers
    and reads a Prime login from ~/.prime) but uv's usual cache, and the local model's key."""
    home = tmp_path / "home"
    home.mkdir()
    uv_cache = os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv")
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    pythonpath = os.pathsep.join(filter(None, [str(HERE), str(REPO), os.environ.get("PYTHONPATH")]))
    return dict(
        os.environ, PATH=path, PYTHONPATH=pythonpath, HOME=str(home), UV_CACHE_DIR=uv_cache, **{KEY_VAR: "local"}
    )


_MARKED = r"<!-- {mark} -->\n```(?P<lang>\w+)\n(?P<code>.*?)\n```"


def guide_block(mark: str) -> str:
    """A block of docs/rl-rewards.md by the comment on the line before it (``test: NAME`` for
    python blocks, ``rl-verifiers-toml`` for the TOML)."""
    found = re.findall(_MARKED.format(mark=re.escape(mark)), GUIDE.read_text("utf-8"), re.DOTALL)
    assert len(found) == 1, f"docs/rl-rewards.md has {len(found)} blocks marked {mark!r}"
    return found[0][1]
