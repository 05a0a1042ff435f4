"""Run configuration files (TOML), so a sweep can be repeated exactly. Keys never appear here, only
the names of the environment variables that hold them.

    suite = "starter"
    candidates = ["openai:gpt-4.1-mini", "oracle"]
    caller = "openai:gpt-4.1-mini"
    repeats = 3
    seed = 1
    concurrency = 16
    step_timeout_s = 300        # seconds a candidate may take over one message (0: no deadline)
    call_timeout_s = 900        # seconds of candidate time in one call (0: no deadline)

    [candidate]                 # settings for model-backed candidates
    base_url = "http://127.0.0.1:8000/v1"
    api_key_env = "MY_ENDPOINT_KEY"
    temperature = 0.0
    max_tokens = 400
    user_first = false          # empty user message before the first assistant turn
    concluding_message = false  # goodbye as an argument of call-ending tools
    http_transport = "aiohttp"  # the SDK's aiohttp transport; "httpx" is the SDK's default client

    [caller_model]              # settings for an LLM caller
    temperature = 0.7

    judge = "openai:gpt-4.1"    # task and conversation judges; without one, judged items are "not
    measured"
    [judge_model]
    temperature = 0.0

    [limits."openai:*"]         # per endpoint, shared by every role on it: in-flight requests,
    per-minute budgets
    concurrency = 16
    rpm = 500
    tpm = 200000

    [prices."openai:gpt-4.1-mini"]   # USD per million tokens; no price, no cost figure
    input = 0.40
    cached_input = 0.10
    output = 1.60
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from ..errors import CallbenchError
from ..models.base import TRANSPORTS, ModelSettings

RUN_KEYS = {
    "suite",
    "candidates",
    "caller",
    "judge",
    "repeats",
    "seed",
    "concurrency",
    "scenarios",
    "out",
    "infra_reruns",
    "scoring",
    "step_timeout_s",
    "call_timeout_s",
}
SECTIONS = {"candidate", "caller_model", "judge_model", "prices", "limits"}
SETTING_KEYS = set(ModelSettings.__dataclass_fields__)
ADAPTER_KEYS = {"base_url", "api_key_env", "user_first", "concluding_message"}


class ConfigError(CallbenchError):
    pass


def deadline(value: float | None, default: float) -> float | None:
    """A deadline as given (flag or file) to what RunConfig takes: absent is the default, 0 is
    none."""
    if value is None:
        return default
    return float(value) or None


def read_config(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: malformed TOML: {exc}") from None
    unknown = set(data) - RUN_KEYS - SECTIONS
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) {sorted(unknown)} (known: {sorted(RUN_KEYS | SECTIONS)})"
        )
    for key in ("step_timeout_s", "call_timeout_s"):
        value = data.get(key, 0)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0 <= value < float("inf")
        ):
            raise ConfigError(
                f"{path}: {key} must be a number of seconds (0 for no deadline), not {value!r}"
            )
    for section in ("candidate", "caller_model", "judge_model"):
        bad = set(data.get(section, {})) - SETTING_KEYS - ADAPTER_KEYS
        if bad:
            raise ConfigError(f"{path}: [{section}] unknown key(s) {sorted(bad)}")
        transport = data.get(section, {}).get("http_transport", TRANSPORTS[0])
        if transport not in TRANSPORTS:
            raise ConfigError(
                f"{path}: [{section}] http_transport must be one of {list(TRANSPORTS)}, not "
                f"{transport!r}"
            )
    for endpoint, limit in data.get("limits", {}).items():
        bad = set(limit) - {"concurrency", "rpm", "tpm"}
        if bad or not all(isinstance(v, int) and v > 0 for v in limit.values()):
            raise ConfigError(
                f'{path}: [limits."{endpoint}"] takes positive integers for concurrency, rpm, tpm'
            )
    for model, price in data.get("prices", {}).items():
        bad = set(price) - {"input", "cached_input", "output"}
        if bad or not all(isinstance(v, (int, float)) for v in price.values()):
            raise ConfigError(
                f'{path}: [prices."{model}"] takes numbers for input, cached_input, output (USD '
                "per million tokens)"
            )
    return data


def role_options(section: dict[str, Any]) -> dict[str, Any]:
    """Split a [candidate]/[caller_model] section into adapter options and ModelSettings."""
    settings = ModelSettings(**{k: v for k, v in section.items() if k in SETTING_KEYS})
    options = {k: v for k, v in section.items() if k in ADAPTER_KEYS}
    options["settings"] = settings
    return options


def limits_from(data: dict[str, Any]) -> dict[str, Any]:
    from ..models.limits import ProviderLimits

    return {
        endpoint: ProviderLimits(**values) for endpoint, values in data.get("limits", {}).items()
    }
