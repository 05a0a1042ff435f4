"""Repeatable runs from a config file, per-role settings on the wire, and cost from a user price
table."""

import json

from typer.testing import CliRunner

from callbench.cli import app
from callbench.testing import FakeProvider


def test_config_file_drives_a_run_with_settings_and_prices(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_ENDPOINT_KEY", "k-123")
    with FakeProvider(lambda body: "Hello, how can I help?", api_key="k-123") as cand:
        spec = f"openai-compatible:{cand.base_url}#m1"
        (tmp_path / "run.toml").write_text(f'''
suite = "tests/fixtures/mini"
candidates = ["{spec}", "oracle"]
repeats = 2
seed = 4

[candidate]
api_key_env = "MY_ENDPOINT_KEY"
temperature = 0.2
top_p = 0.9
seed = 11
max_tokens = 77

[prices."{spec}"]
input = 2.0
cached_input = 0.5
output = 8.0
''')
        res = CliRunner().invoke(
            app, ["run", "--config", str(tmp_path / "run.toml"), "--out", str(tmp_path / "out")]
        )
        assert res.exit_code == 0, res.output
        body = cand.requests[0]
        assert (body["temperature"], body["top_p"], body["seed"], body["max_tokens"]) == (
            0.2,
            0.9,
            11,
            77,
        )
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["run"]["repeats"] == 2 and report["run"]["seed"] == 4
    assert report["candidate_models"][spec]["settings"]["temperature"] == 0.2
    usage = report["candidates"][spec]["usage"]["candidate"]
    calls = usage["calls"]
    assert usage["prompt_tokens"] == 100 * calls and usage["cached_tokens"] == 64 * calls
    expected = (36 * calls * 2.0 + 64 * calls * 0.5 + 10 * calls * 8.0) / 1e6
    assert abs(usage["cost_usd"] - expected) < 1e-9
    assert "cost_usd" not in report["candidates"]["oracle"]["usage"].get("candidate", {})
    assert "k-123" not in (tmp_path / "out" / "report.json").read_text()


def test_bad_config_is_a_one_line_error(tmp_path):
    (tmp_path / "bad.toml").write_text('candidates = ["oracle"]\nfrobnicate = 1\n')
    res = CliRunner().invoke(app, ["run", "--config", str(tmp_path / "bad.toml")])
    assert (
        res.exit_code == 2
        and "unknown key(s) ['frobnicate']" in res.output
        and "Traceback" not in res.output
    )
    (tmp_path / "bad2.toml").write_text("[candidate]\ntemprature = 0\n")
    res = CliRunner().invoke(app, ["run", "--config", str(tmp_path / "bad2.toml")])
    assert res.exit_code == 2 and "temprature" in res.output
    (tmp_path / "bad3.toml").write_text('[caller_model]\nhttp_transport = "curl"\n')
    res = CliRunner().invoke(app, ["run", "--config", str(tmp_path / "bad3.toml")])
    assert (
        res.exit_code == 2
        and "bad3.toml: [caller_model] http_transport must be one of ['aiohttp', 'httpx']"
        in res.output
    )


def test_model_spec_errors_name_the_problem(tmp_path):
    res = CliRunner().invoke(
        app,
        [
            "run",
            "--suite",
            "tests/fixtures/mini",
            "--candidate",
            "openai-compatible:http://x/v1",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert res.exit_code == 2 and "openai-compatible:URL#MODEL" in res.output
    res = CliRunner().invoke(
        app,
        [
            "run",
            "--suite",
            "tests/fixtures/mini",
            "--caller",
            "nonsense",
            "--out",
            str(tmp_path / "p"),
        ],
    )
    assert res.exit_code == 2 and "unknown caller 'nonsense'" in res.output


def test_model_specs_parse_the_way_users_write_them():
    import pytest

    from callbench.models.specs import ModelSpecError, parse_spec

    s = parse_spec("openai:gpt-4.1-mini")
    assert (s.provider, s.model, s.base_url, s.api_key_env) == (
        "openai",
        "gpt-4.1-mini",
        None,
        "OPENAI_API_KEY",
    )
    s = parse_spec("openai-compatible:http://127.0.0.1:8000/v1#my-model")
    assert (s.base_url, s.model, s.api_key_env) == ("http://127.0.0.1:8000/v1", "my-model", None)
    assert parse_spec("ollama:qwen2.5:7b").model == "qwen2.5:7b"
    assert (
        parse_spec("openrouter:meta-llama/llama-3.1-8b-instruct").base_url
        == "https://openrouter.ai/api/v1"
    )
    with pytest.raises(ModelSpecError, match="credentials"):
        parse_spec("openai-compatible:http://user:pw@host/v1#m")
    with pytest.raises(ModelSpecError, match="unknown provider"):
        parse_spec("gemini:x")
