"""A local stand-in for an OpenAI-compatible server and the Anthropic messages API.

It listens on 127.0.0.1 (a free port), answers from a script of behaviours
(a reply with given usage, a reply without usage, a 429, a 500), and records
every request, so tests can compare the Meter with exactly what was served.
"""
from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeLLM:
    def __init__(self, script=None, default=None):
        self.script = list(script or [])
        self.default = default or {"status": 200, "text": "42", "usage": (10, 5)}
        self.requests: list[dict] = []
        self.served: list[dict] = []
        self._lock = threading.Lock()
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def next_behaviour(self, body: dict) -> dict:
        with self._lock:
            self.requests.append(body)
            behaviour = self.script.pop(0) if self.script else (
                self.default if callable(self.default) else dict(self.default))
            if callable(behaviour):
                behaviour = behaviour(body)
            self.served.append(behaviour)
            return behaviour

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                b = fake.next_behaviour(body)
                status = b.get("status", 200)
                if status != 200:
                    payload = {"error": {"message": f"fake {status}", "type": "fake_error"}}
                    if "/messages" in self.path:
                        payload = {"type": "error", "error": {"type": "overloaded_error", "message": f"fake {status}"}}
                    return self._send(status, payload)
                text = b.get("text", "42")
                usage = b.get("usage")
                if "/messages" in self.path:
                    payload = {"id": "msg_fake", "type": "message", "role": "assistant", "model": body.get("model"),
                               "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                               "stop_sequence": None,
                               "usage": None if usage is None else {
                                   "input_tokens": usage[0], "output_tokens": usage[1],
                                   "cache_read_input_tokens": b.get("cached"),
                                   "cache_creation_input_tokens": b.get("cache_write")}}
                    if usage is None:
                        payload.pop("usage")
                else:
                    payload = {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
                               "model": body.get("model"),
                               "choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant", "content": text}}]}
                    if usage is not None:
                        payload["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                            "total_tokens": usage[0] + usage[1]}
                        if b.get("cached") is not None:
                            payload["usage"]["prompt_tokens_details"] = {"cached_tokens": b["cached"]}
                        if b.get("reasoning") is not None:
                            payload["usage"]["completion_tokens_details"] = {"reasoning_tokens": b["reasoning"]}
                self._send(200, payload)

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def arithmetic_answerer(body: dict) -> dict:
    """A behaviour that answers the qa workload's questions correctly (usage from the prompt length)."""
    text = body["messages"][-1]["content"] if body.get("messages") else ""
    everything = " ".join(m.get("content", "") for m in body.get("messages", []))
    match = re.search(r"Compute (\d+) ([+*-]) (\d+)", everything)
    if "Which candidate" in text:
        answer = "1"
    elif match:
        a, op, b = int(match.group(1)), match.group(2), int(match.group(3))
        answer = str(a + b if op == "+" else a - b if op == "-" else a * b)
    else:
        answer = "1"
    return {"status": 200, "text": answer, "usage": (len(text.split()) + 5, 3)}
