"""run.json is one typed manifest, written once and read by every command: every field round-trips,
files of earlier versions still read, and `--resume`, `callbench score` and `callbench report` keep
what the run was made with (concurrency, limits, prices, the judge's options)."""

import json
import re
from dataclasses import fields, replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from callbench.call.audio.plan import AudioPlan
from callbench.cli import app
from callbench.errors import CallbenchError
from callbench.layout import RunLayout
from callbench.models.base import ModelSettings
from callbench.models.limits import ProviderLimits
from callbench.runs import RunConfig, RunFlags, RunManifest, make_executor
from callbench.runs.config import ConfigError, read_config
from callbench.runs.executors import LocalExecutor
from callbench.runs.manifest import MANIFEST_VERSION
from callbench.runs.process_executor import ProcessExecutor
from callbench.runs.ray_executor import RayExecutor
from callbench.testing import FakeProvider

SETTINGS = ModelSettings(
    temperature=0.3,
    top_p=0.8,
    seed=5,
    max_tokens=123,
    reasoning_effort="low",
    timeout_s=12.0,
    max_retries=1,
    backoff_base_s=0.5,
    backoff_max_s=3.0,
    extra_body={"top_k": 7},
    http_transport="httpx",
)


def _role(n: int) -> dict:
    return {
        "base_url": f"http://127.0.0.1:80{n}/v1",
        "api_key_env": f"KEY_{n}",
        "user_first": True,
        "concluding_message": True,
        "http": {"max_retries": n},
        "settings": SETTINGS,
    }


NON_DEFAULT = {
    "candidates": ("oracle", "noop"),
    "repeats": 3,
    "seed": 9,
    "caller": "openai:gpt-4.1-mini",
    "concurrency": 50,
    "scenarios": ("a", "b"),
    "infra_reruns": 1,
    "candidate_options": _role(1),
    "caller_options": _role(2),
    "judge": "openai:gpt-4.1",
    "judge_options": _role(3),
    "limits": {"openai:*": ProviderLimits(concurrency=4, rpm=500, tpm=200000)},
    "prices": {"openai:gpt-4.1": {"input": 2.0, "cached_input": 0.5, "output": 8.0}},
    "step_timeout_s": 12.5,
    "call_timeout_s": None,
    "scoring": "reference",
    "language_detector": "lingua",
    "executor": "ray",
    "processes": 7,
    "address": "ray://head:10001",
    "channel": "audio",
    "audio": AudioPlan(
        synthesizer="piper:joe",
        recognizer="whisper:base",
        loss=0.05,
        jitter_ms=30.0,
        keep_audio=False,
        background="street",
    ),
}


def test_every_run_config_field_has_a_non_default_value_here():
    """Fails when RunConfig grows a field: give it a value above, and a place in the manifest."""
    names = {f.name for f in fields(RunConfig)}
    assert set(NON_DEFAULT) == names
    default = RunConfig()
    assert [k for k, v in NON_DEFAULT.items() if getattr(default, k) == v] == []
    assert all(getattr(ModelSettings(), k) != getattr(SETTINGS, k) for k in vars(SETTINGS))


def test_every_field_round_trips_through_run_json(mini_suite, tmp_path):
    config = RunConfig(**NON_DEFAULT)
    manifest = RunManifest.build(mini_suite, config, created_at="2026-01-02T03:04:05+00:00")
    path = manifest.write(tmp_path)
    assert path == RunLayout(tmp_path).manifest
    read = RunManifest.read(tmp_path)
    assert read == manifest
    assert read.to_config() == config
    # every manifest field is set to something other than its default (`generation` needs a
    # suite with a manifest.json: its round trip is in tests/test_sealing.py)
    for name, info in RunManifest.model_fields.items():
        if name not in ("manifest_version", "generation"):
            assert getattr(read, name) != info.get_default(call_default_factory=True), name
    assert read.manifest_version == MANIFEST_VERSION
    text = path.read_text()
    assert "KEY_1" in text and "sk-" not in text  # key variable names, never keys


def test_the_run_id_is_unchanged_by_how_the_run_runs(mini_suite):
    """Concurrency, limits, prices and the executor do not change what a run measures."""
    base = RunConfig(candidates=("oracle",))
    other = RunConfig(
        candidates=("oracle",),
        concurrency=50,
        executor="processes",
        limits={"openai:*": ProviderLimits(rpm=5)},
        prices={"m": {"input": 1.0}},
    )
    assert RunManifest.build(mini_suite, base).run_id == RunManifest.build(mini_suite, other).run_id
    assert RunManifest.build(mini_suite, base).run_id != (
        RunManifest.build(mini_suite, RunConfig(candidates=("oracle",), seed=1)).run_id
    )


OLD_RUN_JSON = {
    "run_id": "mini-0123456789ab",
    "suite": {"id": "mini", "version": "0.1", "sha256": "ab" * 32, "source": "tests/fixtures/mini"},
    "config": {
        "candidates": ["openai:gpt-4.1-mini", "oracle"],
        "repeats": 2,
        "seed": 4,
        "caller": "scripted",
        "scenarios": None,
        "infra_reruns": 3,
        "judge": None,
        "scoring": "guards",
        "step_timeout_s": 300.0,
        "call_timeout_s": 900.0,
    },
    "prices": {"openai:gpt-4.1-mini": {"input": 0.4, "output": 1.6}},
    "code_version": "0.1.0",
    "options": {
        "candidate": {
            "api_key_env": "MY_KEY",
            "settings": {
                "temperature": 0.2,
                "top_p": None,
                "seed": None,
                "max_tokens": 77,
                "reasoning_effort": None,
                "timeout_s": 60.0,
                "max_retries": 4,
                "backoff_base_s": 1.0,
                "backoff_max_s": 30.0,
                "extra_body": {},
                "http_transport": "aiohttp",
            },
        },
        "caller": {"settings": {"temperature": 0.7}},
        "judge": {},
    },
}
"""run.json as version 0.1.0 wrote it before the manifest (no version, no execution section)."""

OLDEST_RUN_JSON = {
    "run_id": "mini-0123456789ab",
    "suite": {"id": "mini", "version": "0.1", "sha256": "ab" * 32, "source": "x"},
    "config": {
        "candidates": ["oracle"],
        "repeats": 1,
        "seed": 0,
        "caller": "scripted",
        "scenarios": ["s1"],
        "infra_reruns": 3,
        "judge": None,
    },
    "prices": {},
    "code_version": "0.1.0",
}
"""the first run.json: no options, no scoring mode, no deadlines"""


def test_run_json_of_earlier_versions_still_reads(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps(OLD_RUN_JSON))
    manifest = RunManifest.read(tmp_path)
    assert manifest.manifest_version == 1
    config = manifest.to_config()
    assert config.candidates == ("openai:gpt-4.1-mini", "oracle") and config.seed == 4
    assert config.prices == OLD_RUN_JSON["prices"]
    assert config.candidate_options == {
        "api_key_env": "MY_KEY",
        "settings": ModelSettings(temperature=0.2, max_tokens=77),
    }
    assert config.caller_options == {"settings": ModelSettings(temperature=0.7)}
    assert (config.concurrency, config.limits, config.executor) == (8, {}, "local")
    (tmp_path / "run.json").write_text(json.dumps(OLDEST_RUN_JSON))
    config = RunManifest.read(tmp_path).to_config()
    assert config.scenarios == ("s1",) and config.scoring == "guards"
    assert (config.step_timeout_s, config.call_timeout_s) == (300.0, 900.0)


def test_a_broken_run_json_is_a_one_line_error(tmp_path):
    with pytest.raises(CallbenchError, match="not a run folder"):
        RunManifest.read(tmp_path)
    (tmp_path / "run.json").write_text("{")
    with pytest.raises(CallbenchError, match="not valid JSON"):
        RunManifest.read(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps({**OLD_RUN_JSON, "config": {"seed": 1}}))
    with pytest.raises(CallbenchError, match=r"not a run manifest \(config.candidates"):
        RunManifest.read(tmp_path)


# --- one merge of flags, run file and resumed manifest ---------------------------------------


def test_flags_win_over_the_run_file_which_wins_over_defaults(tmp_path):
    (tmp_path / "run.toml").write_text(
        'candidates = ["noop"]\nrepeats = 2\nseed = 3\nconcurrency = 40\nscoring = "reference"\n'
        'executor = "processes"\nprocesses = 3\n'
        '[candidate]\nbase_url = "http://127.0.0.1:9/v1"\ntemperature = 0.1\n'
        '[limits."openai:*"]\nrpm = 10\n[prices."m"]\ninput = 1.0\n'
    )
    file = read_config(tmp_path / "run.toml")
    plain = RunConfig.from_sources()
    assert plain.candidate_options == plain.caller_options == {"settings": ModelSettings()}
    assert replace(plain, candidate_options={}, caller_options={}) == RunConfig()
    from_file = RunConfig.from_sources(RunFlags(), file)
    assert (from_file.candidates, from_file.repeats, from_file.seed) == (("noop",), 2, 3)
    assert (from_file.concurrency, from_file.scoring, from_file.executor) == (
        40,
        "reference",
        "processes",
    )
    assert from_file.processes == 3 and from_file.caller == "scripted"  # a default
    assert from_file.limits == {"openai:*": ProviderLimits(rpm=10)}
    assert from_file.prices == {"m": {"input": 1.0}}
    flagged = RunConfig.from_sources(
        RunFlags(candidates=("oracle",), seed=0, concurrency=2, temperature=0.9), file
    )
    assert (flagged.candidates, flagged.seed, flagged.concurrency) == (("oracle",), 0, 2)
    assert flagged.repeats == 2  # the file's, where no flag was given
    # a section merges key by key: the flag's temperature, the file's endpoint
    assert flagged.candidate_options["base_url"] == "http://127.0.0.1:9/v1"
    assert flagged.candidate_options["settings"].temperature == 0.9
    assert RunConfig.from_sources(RunFlags(step_timeout_s=0)).step_timeout_s is None
    with pytest.raises(ConfigError, match="unknown scoring mode 'x'"):
        RunConfig.from_sources(RunFlags(scoring="x"))
    with pytest.raises(ConfigError, match=re.escape("unknown executor 'y' (local, processes")):
        RunConfig.from_sources(RunFlags(executor="y"))


def test_a_resumed_run_takes_the_stored_config_and_only_execution_flags(mini_suite):
    # (the script detector: a resumed lingua run needs lingua on this machine, tested below)
    stored = RunConfig(**{**NON_DEFAULT, "scenarios": None, "language_detector": "script"})
    manifest = RunManifest.build(mini_suite, stored)
    assert RunConfig.from_sources(RunFlags(), None, manifest) == stored
    faster = RunConfig.from_sources(RunFlags(concurrency=3, executor="local"), None, manifest)
    assert (faster.concurrency, faster.executor) == (3, "local")
    assert faster.limits == stored.limits and faster.prices == stored.prices
    with pytest.raises(ConfigError, match="drop --seed, --temperature, --judge-base-url"):
        RunConfig.from_sources(RunFlags(seed=1, temperature=0.5, judge_base_url="x"), {}, manifest)
    with pytest.raises(ConfigError, match="takes no run file"):
        RunConfig.from_sources(RunFlags(), {"seed": 1}, manifest)


def test_make_executor_builds_what_the_config_names():
    local = make_executor(RunConfig(concurrency=5))
    assert isinstance(local, LocalExecutor) and local.concurrency == 5
    procs = make_executor(RunConfig(executor="processes", processes=3, concurrency=9))
    assert isinstance(procs, ProcessExecutor) and (procs.processes, procs.concurrency) == (3, 9)
    ray = make_executor(RunConfig(executor="ray", address="ray://h:1", concurrency=4))
    assert isinstance(ray, RayExecutor) and (ray.address, ray.concurrency) == ("ray://h:1", 4)
    with pytest.raises(ConfigError, match="unknown executor"):
        make_executor(RunConfig(executor="threads"))


# --- the commands keep what the run was made with --------------------------------------------


def test_resume_keeps_concurrency_limits_and_prices(mini_path, tmp_path, monkeypatch):
    (tmp_path / "run.toml").write_text(
        f'suite = "{mini_path}"\ncandidates = ["oracle"]\nconcurrency = 50\n'
        '[limits."openai:*"]\nrpm = 500\nconcurrency = 4\n'
        '[prices."openai:gpt-4.1-mini"]\ninput = 0.4\noutput = 1.6\n'
    )
    out = tmp_path / "r"
    runner = CliRunner()
    res = runner.invoke(app, ["run", "--config", str(tmp_path / "run.toml"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    import callbench.runs as runs

    seen = []
    real = runs.run_suite

    def spy(suite, config, out_dir, *args, **kwargs):
        seen.append((config, kwargs["executor"]))
        return real(suite, config, out_dir, *args, **kwargs)

    monkeypatch.setattr(runs, "run_suite", spy)
    res = runner.invoke(app, ["run", "--resume", str(out)])
    assert res.exit_code == 0, res.output
    config, executor = seen[-1]
    assert config.concurrency == 50 and executor.concurrency == 50
    assert config.limits == {"openai:*": ProviderLimits(concurrency=4, rpm=500)}
    assert config.prices == {"openai:gpt-4.1-mini": {"input": 0.4, "output": 1.6}}
    res = runner.invoke(app, ["run", "--resume", str(out), "--concurrency", "3"])
    assert res.exit_code == 0, res.output
    assert seen[-1][0].concurrency == 3 and seen[-1][0].limits == config.limits
    res = runner.invoke(app, ["run", "--resume", str(out), "--temperature", "0.5"])
    assert res.exit_code == 2 and "drop --temperature" in res.output


def test_score_and_report_keep_prices_and_the_judges_options(mini_path, tmp_path, monkeypatch):
    """The judge's key variable lives in the run's manifest: re-scoring with the same judge used to
    drop it, the judge failed, and the run's judge cost went from 0.00056 to none."""
    from test_rescore_calibrate import judge_responder

    monkeypatch.setenv("MANIFEST_JUDGE_KEY", "k-9")
    with FakeProvider(judge_responder(), api_key="k-9") as judge:
        spec = f"openai-compatible:{judge.base_url}#j1"
        (tmp_path / "run.toml").write_text(
            f'suite = "{mini_path}"\ncandidates = ["oracle"]\njudge = "{spec}"\n'
            '[judge_model]\napi_key_env = "MANIFEST_JUDGE_KEY"\n'
            f'[prices."{spec}"]\ninput = 2.0\noutput = 8.0\n'
        )
        out = tmp_path / "r"
        runner = CliRunner()
        res = runner.invoke(app, ["run", "--config", str(tmp_path / "run.toml"), "--out", str(out)])
        assert res.exit_code == 0, res.output
        ran = json.loads((out / "report.json").read_text())["candidates"]["oracle"]["usage"]
        assert ran["judge"]["cost_usd"] == pytest.approx((200 * 2.0 + 20 * 8.0) / 1e6)
        res = runner.invoke(app, ["score", str(out), "--judge", spec, "--tag", "again"])
        assert res.exit_code == 0, res.output
        scored = json.loads((out / "report-again.json").read_text())
    assert scored["candidates"]["oracle"]["usage"]["judge"] == ran["judge"]
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    rebuilt = json.loads((out / "report.json").read_text())["candidates"]["oracle"]["usage"]
    assert rebuilt["judge"]["cost_usd"] == ran["judge"]["cost_usd"]


def test_the_run_folder_comes_from_resume_flag_file_or_the_suite_and_time(tmp_path):
    import datetime as dt

    from callbench.runs.config import run_folder

    now = dt.datetime(2026, 1, 2, 3, 4, 5)
    assert run_folder(RunFlags(), {}, tmp_path, "mini") == tmp_path  # a resumed run's own
    assert run_folder(RunFlags(out=tmp_path / "a"), {"out": "b"}, None, "mini") == tmp_path / "a"
    assert run_folder(RunFlags(), {"out": str(tmp_path / "b")}, None, "mini") == tmp_path / "b"
    assert run_folder(RunFlags(), None, None, "mini", now) == Path("runs/mini-20260102-030405")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    with pytest.raises(ConfigError, match="already exists and is not empty"):
        run_folder(RunFlags(out=tmp_path / "full"), None, None, "mini")


def test_a_run_file_value_of_the_wrong_type_is_a_one_line_error(tmp_path):
    (tmp_path / "a.toml").write_text('[candidate]\ntemperature = "hot"\n')
    with pytest.raises(ConfigError, match=r"a.toml: \[candidate\] temperature: Input should be"):
        read_config(tmp_path / "a.toml")
    (tmp_path / "b.toml").write_text("[judge_model]\nbase_url = 5\n")
    with pytest.raises(ConfigError, match=r"\[judge_model\] base_url: Input should be a valid str"):
        read_config(tmp_path / "b.toml")
    (tmp_path / "c.toml").write_text('[candidate]\nbase_url = "http://127.0.0.1:1/v1"\ntop_p = 1\n')
    assert read_config(tmp_path / "c.toml")["candidate"]["top_p"] == 1


def test_the_cli_names_an_unknown_executor_and_a_run_file_can_choose_one(
    mini_path, tmp_path, monkeypatch
):
    res = CliRunner().invoke(app, ["run", "--suite", str(mini_path), "--executor", "threads"])
    assert res.exit_code == 2
    assert "unknown executor 'threads' (local, processes or ray)" in res.output
    (tmp_path / "run.toml").write_text(
        f'suite = "{mini_path}"\ncandidates = ["oracle"]\nexecutor = "processes"\nprocesses = 3\n'
    )
    import callbench.runs as runs

    chosen = []

    def spy(suite, config, out_dir, *args, **kwargs):
        chosen.append(kwargs["executor"])
        raise CallbenchError("stopped by the test")

    monkeypatch.setattr(runs, "run_suite", spy)
    res = CliRunner().invoke(
        app, ["run", "--config", str(tmp_path / "run.toml"), "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 2 and "stopped by the test" in res.output
    assert isinstance(chosen[0], ProcessExecutor) and chosen[0].processes == 3


def test_the_language_detector_is_a_recorded_setting_that_changes_what_is_measured(
    mini_suite, tmp_path
):
    """Scores of a suite with Hindi and Marathi once depended on whether lingua happened to be
    installed; now the detector is a setting: in the run's id, in run.json, and in the graders."""
    from callbench.grading.conversation_checks import ConversationChecks
    from callbench.grading.scripts import lingua_available
    from callbench.runs.runner import make_cast

    script = RunConfig(candidates=("oracle",))
    lingua = RunConfig(candidates=("oracle",), language_detector="lingua")
    assert RunManifest.build(mini_suite, script).run_id != (
        RunManifest.build(mini_suite, lingua).run_id
    )
    RunManifest.build(mini_suite, lingua).write(tmp_path)
    assert json.loads(RunLayout(tmp_path).manifest.read_text())["config"]["language_detector"] == (
        "lingua"
    )
    assert RunManifest.read(tmp_path).to_config().language_detector == "lingua"
    graders = make_cast(script).graders()
    (checks,) = [g for g in graders if isinstance(g, ConversationChecks)]
    assert checks.language_detector == "script"
    with pytest.raises(ConfigError, match="unknown language detector 'auto'"):
        RunConfig.from_sources(RunFlags(language_detector="auto"))
    if not lingua_available():
        with pytest.raises(ConfigError, match="pip install"):
            RunConfig.from_sources(RunFlags(language_detector="lingua"))


def test_the_verifier_decides_the_checks_the_run_scored_with_its_detector(mini_suite, monkeypatch):
    """The LLM verifier re-grades the code's checks; with the run's detector, not the default."""
    import asyncio

    from callbench.grading import verifier

    seen = []

    class Checks:
        def __init__(self, language_detector="script"):
            seen.append(language_detector)

        def grade(self, trace, scenario, suite):
            return []

    monkeypatch.setattr(verifier, "ConversationChecks", Checks)
    monkeypatch.setattr(verifier, "SpokenChecks", Checks)
    model = object.__new__(type("M", (), {"name": "m"}))
    judge = verifier.LLMVerifier(model, language_detector="lingua")  # type: ignore[arg-type]
    scenario = next(iter(mini_suite.scenarios.values()))
    graded = asyncio.run(judge.agrade(None, scenario, mini_suite.manifest))  # type: ignore[arg-type]
    assert graded.verdicts == [] and seen[0] == "lingua"


def test_one_background_for_every_call_comes_from_the_flag_or_the_run_file(tmp_path):
    (tmp_path / "run.toml").write_text('channel = "audio"\n[audio]\nbackground = "cafe"\n')
    file = read_config(tmp_path / "run.toml")
    assert RunConfig.from_sources(RunFlags(), file).audio.background == "cafe"
    flagged = RunConfig.from_sources(RunFlags(background="television"), file)
    assert flagged.audio.background == "television"
    with pytest.raises(ConfigError, match="background must be one of clean|street"):
        RunConfig.from_sources(RunFlags(background="rain"), file)
