"""A stored run opened for re-reading (`callbench score`, `callbench report`): its manifest, its
configuration and its suite, checked to be the suite it ran on."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..layout import RunLayout
from ..spec import Suite
from ..suite_check import load_suite
from .config import RunConfig
from .episodes import Attempt
from .manifest import RunManifest
from .runner import attempt_order


@dataclass(frozen=True)
class StoredRun:
    layout: RunLayout
    manifest: RunManifest
    config: RunConfig
    suite: Suite

    @property
    def suite_changed(self) -> bool:
        return self.suite.sha256 != self.manifest.suite.sha256

    def attempts(self) -> list[Attempt]:
        """The run's attempts in the one order of runs (so reports line up)."""
        config = self.config
        return attempt_order(
            config, list(config.scenarios) if config.scenarios else list(self.suite.scenarios)
        )

    def judge_options(self, judge: str | None, given: dict[str, Any] | None) -> dict[str, Any]:
        """A judge's options for grading this run again: the run's own judge keeps the options it
        ran with (its key variable, endpoint and settings; `given` ones win); another judge takes
        only those given."""
        options = dict(self.config.judge_options) if judge and judge == self.config.judge else {}
        options.update(given or {})
        return options

    def old_report(self) -> dict[str, Any]:
        """report.json as the run (or the last rebuild) wrote it; {} when there is none."""
        path = self.layout.report()
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def open_run(run_dir: Path) -> StoredRun:
    """The run's manifest read the one way every command reads it, and its suite loaded again from
    where the run loaded it."""
    manifest = RunManifest.read(run_dir)
    suite = load_suite(manifest.suite.source or manifest.suite.id)
    return StoredRun(RunLayout(run_dir), manifest, manifest.to_config(), suite)
