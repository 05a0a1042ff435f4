"""Per-provider limits: in-flight caps, per-minute windows, and a cool-down shared after a rate
limit."""

import asyncio
import time

from callbench.models.base import ModelSettings
from callbench.models.limits import ProviderGate, ProviderLimits
from callbench.models.openai_compat import OpenAICompatibleModel
from callbench.runs import RunConfig, run_suite
from callbench.testing import FakeProvider


def test_concurrency_cap_holds_across_a_run(mini_suite, tmp_path):
    with FakeProvider(lambda body: time.sleep(0.05) or "Hello.") as fp:
        name = f"openai-compatible:{fp.base_url}#m"
        run_suite(
            mini_suite,
            RunConfig(
                candidates=(name,),
                repeats=12,
                concurrency=12,
                limits={"openai-compatible:*": ProviderLimits(concurrency=3)},
            ),
            tmp_path / "r",
        )
    assert fp.max_in_flight == 3


def test_requests_per_minute_window_with_a_fake_clock():
    now = [0.0]
    slept = []

    async def sleep(s):
        slept.append(s)
        now[0] += s

    gate = ProviderGate(ProviderLimits(rpm=2), clock=lambda: now[0], sleep=sleep)

    async def go():
        for _ in range(3):
            await gate.before_request()
            now[0] += 1

    asyncio.run(go())
    assert slept == [58.0]  # the third request waits until the first leaves the one-minute window


def test_a_rate_limit_cools_down_every_call_on_the_endpoint():
    with FakeProvider(
        fault_plan=lambda n: {"fault": "rate_limit", "retry_after": 0.3} if n == 0 else None
    ) as fp:
        gate = ProviderGate(ProviderLimits(concurrency=4))
        models = []
        for _ in range(2):
            m = OpenAICompatibleModel(
                "m",
                base_url=fp.base_url,
                api_key=None,
                settings=ModelSettings(max_retries=2, backoff_base_s=0.01, backoff_max_s=0.5),
            )
            m.gate = gate
            models.append(m)

        async def go():
            first = asyncio.create_task(models[0].complete([{"role": "user", "content": "a"}]))
            deadline = time.monotonic() + 10
            while (
                gate.cooldown_until == 0 and time.monotonic() < deadline
            ):  # until the first call has met the 429
                await asyncio.sleep(0.005)
            assert gate.cooldown_until > 0
            t0 = time.monotonic()
            await models[1].complete([{"role": "user", "content": "b"}])
            waited = time.monotonic() - t0
            await first
            return waited

        waited = asyncio.run(go())
    assert waited >= 0.1  # the second call honoured the cool-down the first one discovered
    assert gate.waited_s > 0
