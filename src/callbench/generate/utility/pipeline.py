"""`callbench generate utility`: construct, select, write and prove the utility-billing exam.

Proof is the suite loader's own: every written scenario is validated and played by the oracle
through the real services with the scripted caller, and must meet every deterministic check. A task
the policy model admits but the services disagree with fails the generation, naming the scenario.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .build import construct
from .render import Task
from .select import Exam, fit, proxies, select
from .write import write_suite

SUMMARY_FILE = "generation.json"


@dataclass
class Generation:
    construction: dict[str, Any]
    exam: Exam
    written: list[Path]

    def summary(self) -> dict[str, Any]:
        return {
            "construction": self.construction,
            "exam": self.exam.composition(),
            "tasks": [t.id for t in self.exam.tasks],
        }


def stored_outcomes(run_dirs: Iterable[Path]) -> list[tuple[Task, bool]]:
    """(task, completed) for every counted call of stored runs of a generated suite: completion is
    every deterministic check met; excluded calls and scenarios without generator tags are
    skipped."""
    from ...runs.stored import open_run

    out = []
    for run_dir in run_dirs:
        run = open_run(Path(run_dir))
        tasks = {}
        for sid, sc in run.suite.scenarios.items():
            account = next((t.split(":", 1)[1] for t in sc.tags if t.startswith("account:")), None)
            kinds = tuple(t.split(":", 1)[1] for t in sc.tags if t.startswith("request:"))
            if account and kinds:
                tasks[sid] = Task(account, kinds)
        for card in sorted(run.layout.root.glob("scorecards/*/*/r*.json")):
            data = json.loads(card.read_text(encoding="utf-8"))
            task = tasks.get(data["scenario_id"])
            if task is None or data.get("outcome") != "completed":
                continue
            out.append((task, bool(data.get("deterministic_passed"))))
    return out


def _hand_written(out: Path) -> None:
    """A new folder gets the built-in suite's hand-written files: suite.yaml (criteria, casting)
    and the agent's manual."""
    import shutil

    from ...suites import BUILTIN_ROOT

    source = BUILTIN_ROOT / "utility-billing"
    for rel in ("suite.yaml", "agents/billing-line/instructions.md"):
        target = out / rel
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, target)


def generate(out: Path, runs: Iterable[Path] = (), prove: bool = True) -> Generation:
    built = construct()
    pool = [t for n in sorted(built.admitted) for t in built.admitted[n]]
    p = proxies([*built.singles, *pool])
    outcomes = stored_outcomes(runs)
    source = "proxy"
    if outcomes:
        p = fit(outcomes, p)
        source = f"fitted to {len(outcomes)} stored calls"
    exam = select(pool, p, source)
    _hand_written(Path(out))
    written = write_suite(Path(out), exam.tasks)
    generation = Generation(built.summary(), exam, written)
    (Path(out) / SUMMARY_FILE).write_text(
        json.dumps(generation.summary(), indent=1) + "\n", encoding="utf-8"
    )
    if prove:
        from ...suite_check import load_suite

        load_suite(Path(out))
    write_manifest(Path(out), generation, proven=prove)
    return generation


SOURCES = (
    "backends/utility/policy.py",
    "backends/utility/accounts.yaml",
    "backends/utility/usage.py",
    "backends/utility/seed.py",
    "generate/utility/tools.yaml",
    "generate/utility/catalog.py",
    "generate/utility/kinds.py",
    "generate/utility/kinds_plans.py",
    "generate/utility/kinds_more.py",
    "generate/utility/render.py",
    "generate/utility/select.py",
)
"""The files the exam is computed from, hashed into the manifest."""


def write_manifest(out: Path, generation: Generation, proven: bool) -> Path:
    """manifest.json: what wrote the suite, from which sources (by hash), and each call's file hash;
    `proven` calls were validated and played by the oracle through the services."""
    import datetime as dt
    import hashlib

    from ..._version import __version__
    from ...spec.generation import MANIFEST_FILE, GenerationManifest, ManifestScenario
    from ...spec.loading import suite_hash_without_manifest

    package = Path(__file__).resolve().parents[2]

    def sha(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    sources = {rel: sha(package / rel) for rel in SOURCES}
    scenarios = [
        ManifestScenario(
            id=path.stem,
            file=path.relative_to(out).as_posix(),
            sha256=sha(path),
            sources=sources,
            audit="passed" if proven else "not_run",
        )
        for path in generation.written
    ]
    manifest = GenerationManifest(
        generator="callbench generate utility",
        generator_version=__version__,
        settings={"exam": generation.exam.composition(), "construction": generation.construction},
        created=dt.datetime.now(dt.UTC).replace(microsecond=0),
        suite_sha256=suite_hash_without_manifest(out),
        scenarios=scenarios,
        audit={"validated_and_played_by_the_oracle": proven, "scenarios": len(scenarios)},
    )
    path = out / MANIFEST_FILE
    path.write_text(manifest.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return path
