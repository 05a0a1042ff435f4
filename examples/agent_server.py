"""An example "bring your own agent" server for callbench, using only the standard library.

It speaks the callbench-agent/1 JSON contract (see src/callbench/candidates/wire.py):
callbench POSTs the agent's instructions, tools and the conversation as the
channel let it through; the server answers with speech and tool calls. This
one is a thin agent stack in front of any OpenAI-compatible model: it adds its
own house-style preamble, keeps the instructions as a stable prefix, and maps
the conversation to chat-completions messages. Replace `answer()` with your
own stack (LangChain, a state machine, a rules engine...) and keep the contract.

Run:
    AGENT_MODEL_URL=http://127.0.0.1:8000/v1 AGENT_MODEL=my-model \
        python examples/agent_server.py --port 8080
    callbench run --candidate http://127.0.0.1:8080/agent --scenario clinic-book-slot-taken
The model's key, if any, is read from the variable named by AGENT_API_KEY_ENV.
"""

from __future__ import annotations

import argparse
import json
import os
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOUSE_STYLE = (
    "\n\nHouse style: speak in short sentences suitable for a phone line; say what you "
    "are doing before you use a tool."
)


def to_chat(request: dict) -> list[dict]:
    messages = [
        {"role": "system", "content": request["instructions"] + _context(request) + HOUSE_STYLE}
    ]
    for m in request["messages"]:
        if m["role"] == "caller":
            messages.append({"role": "user", "content": m["text"]})
        elif m["role"] == "tool":
            messages.append(
                {"role": "tool", "tool_call_id": m["tool_call_id"], "content": m["text"]}
            )
        else:
            msg = {"role": "assistant", "content": m.get("text")}
            if m.get("tool_calls"):
                msg["tool_calls"] = [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in m["tool_calls"]
                ]
            messages.append(msg)
    return messages


def _context(request: dict) -> str:
    context = request.get("call_context") or {}
    return (
        ("\n\n## Call context\n" + "\n".join(f"- {k}: {v}" for k, v in context.items()) + "\n")
        if context
        else ""
    )


def answer(request: dict, model_url: str, model: str, api_key: str | None) -> dict:
    body = {
        "model": model,
        "messages": to_chat(request),
        "tools": request["tools"],
        "temperature": 0,
    }
    http = urllib.request.Request(
        model_url.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={
            "content-type": "application/json",
            "authorization": f"Bearer {api_key or 'none'}",
        },
    )
    with urllib.request.urlopen(http, timeout=60) as response:
        completion = json.loads(response.read())
    message = completion["choices"][0]["message"]
    calls = [
        {"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]}
        for c in message.get("tool_calls") or []
    ]
    usage = completion.get("usage") or {}
    return {
        "say": message.get("content"),
        "tool_calls": calls,
        "usage": {
            "prompt_tokens": usage.get("prompt_tokens", 0),
            "completion_tokens": usage.get("completion_tokens", 0),
        },
    }


def make_server(
    port: int, model_url: str, model: str, api_key: str | None, host: str = "127.0.0.1"
) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            if request.get("protocol") != "callbench-agent/1":
                return self._send(400, {"error": "unsupported protocol"})
            try:
                self._send(200, answer(request, model_url, model, api_key))
            except (
                OSError
            ) as exc:  # the model behind us is down: tell callbench it is infrastructure (a 502)
                self._send(502, {"error": f"model unavailable: {type(exc).__name__}"})

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return ThreadingHTTPServer((host, port), Handler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    key_env = os.environ.get("AGENT_API_KEY_ENV")
    server = make_server(
        args.port,
        os.environ["AGENT_MODEL_URL"],
        os.environ["AGENT_MODEL"],
        os.environ.get(key_env) if key_env else None,
    )
    print(f"callbench agent on http://127.0.0.1:{args.port}/agent")
    server.serve_forever()


if __name__ == "__main__":
    main()
