"""CPU per request of the chat-completions client, side by side in one run.

At 500 calls in flight the harness is bound by its one event loop, and the profile of the sweep
(bench_sweep.py) puts most of that loop's CPU in the OpenAI SDK: its request building (URL parsing,
header models, the typed-dict transform of the parameters), its httpx layer over aiohttp, its
response wrapper. This measures, against a zero-latency fake provider in its own process, the
process CPU per request of:
  - `sdk`: `OpenAICompatibleModel.complete`, as runs call it,
  - `sdk_post`: the SDK's low-level `post` with the same body (no typed-dict transform),
  - `aiohttp`: one aiohttp session posting the same body and reading the reply with the same
    `_read` (what a direct transport would cost),
each twice, alternating, so the ratios are comparable on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _results import RESULTS, save  # noqa: E402

KINDS = ("sdk", "sdk_post", "aiohttp")
MESSAGES = [{"role": "system", "content": "You are the parcel desk's phone agent. " * 20}] + [
    {"role": "user" if i % 2 else "assistant", "content": "Where is my parcel SP-1234? " * 3}
    for i in range(8)
]


def _serve(queue) -> None:
    from callbench.testing import FakeProvider

    with FakeProvider(lambda body: "Hello, this is the parcel desk.") as fp:
        queue.put(fp.base_url)
        while True:
            time.sleep(3600)


async def _measure(kind: str, base_url: str, requests: int, concurrency: int) -> float:
    import aiohttp
    import httpx2

    from callbench.models.openai_compat import OpenAICompatibleModel, _body

    model = OpenAICompatibleModel("m", base_url=base_url, api_key=None)
    body = model._body(MESSAGES, None, False)
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    url = base_url.rstrip("/") + "/chat/completions"
    headers = {"content-type": "application/json", "authorization": "Bearer not-needed"}
    gate = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with gate:
            if kind == "sdk":
                await model.complete(MESSAGES)
            elif kind == "sdk_post":
                client = model._client_for_loop()
                raw = await client.post("/chat/completions", body=body, cast_to=httpx2.Response)
                model._read(_body(raw.content))
            else:
                async with session.post(url, data=json.dumps(body), headers=headers) as r:
                    model._read(_body(await r.read()))

    try:
        await asyncio.gather(*(one() for _ in range(50)))  # connections opened, code warm
        c0 = time.process_time()
        await asyncio.gather(*(one() for _ in range(requests)))
        return 1000 * (time.process_time() - c0) / requests
    finally:
        await session.close()
        await model.aclose()


def measure(requests: int, concurrency: int, repeats: int) -> dict:
    queue: mp.Queue = mp.Queue()
    server = mp.Process(target=_serve, args=(queue,), daemon=True)
    server.start()
    base_url = queue.get(timeout=60)
    runs: dict[str, list[float]] = {k: [] for k in KINDS}
    try:
        for _ in range(repeats):
            for kind in KINDS:
                runs[kind].append(asyncio.run(_measure(kind, base_url, requests, concurrency)))
    finally:
        server.terminate()
    best = {k: min(v) for k, v in runs.items()}
    return {
        "requests": requests,
        "concurrency": concurrency,
        "cpu_ms_per_request": {k: [round(x, 3) for x in v] for k, v in runs.items()},
        "ratio_sdk_to_aiohttp": round(best["sdk"] / best["aiohttp"], 2),
        "ratio_sdk_to_sdk_post": round(best["sdk"] / best["sdk_post"], 2),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS / "client.json")
    args = parser.parse_args(argv)
    return save(measure(args.requests, args.concurrency, args.repeats), args.out)


if __name__ == "__main__":
    main()
