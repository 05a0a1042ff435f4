"""Reading a suite folder into typed models, collecting every problem instead of stopping at the
first."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..errors import Problem
from .agent import AgentDefinition
from .folder import IGNORED, bundle_files, escape
from .scenario import Scenario
from .suite import LoadedAgent, Suite, SuiteManifest
from .yamlio import YamlDocument, dotted, read_yaml

M = TypeVar("M", bound=BaseModel)
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\s*\}\}")


def parse_model(doc: YamlDocument, model: type[M], label: str) -> tuple[M | None, list[Problem]]:
    """Validate one parsed document against a model; pydantic errors become file + field-path
    problems."""
    if not isinstance(doc.data, dict):
        return None, [
            Problem(
                label,
                "",
                f"expected a mapping at the top level, found {type(doc.data).__name__}",
                doc.line_of(()),
            )
        ]
    try:
        return model.model_validate(doc.data), []
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            if err["type"] in ("union_tag_not_found", "union_tag_invalid"):
                loc += (
                    err["ctx"]["discriminator"].strip("'"),
                )  # point at `kind:`, not at the whole block
            loc = _real_loc(doc.data, loc, err["type"] in ("missing", "union_tag_not_found"))
            problems.append(Problem(label, dotted(loc), _message(err), doc.line_of(loc)))
        return None, _unique(problems)


def _real_loc(data: Any, loc: tuple, missing: bool = False) -> tuple:
    """Drop the union-tag segments pydantic inserts, keeping only keys and indices a user wrote.

    A last segment absent from the data is kept only for a missing field (it names the key to
    add); otherwise it is a tag (`channel.events[0].split` for an error of the whole event).
    """
    out: list[Any] = []
    node = data
    for i, seg in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(node, dict):
            if seg in node:
                out.append(seg)
                node = node[seg]
            elif last and missing:
                out.append(seg)
        elif isinstance(node, list) and isinstance(seg, int) and 0 <= seg < len(node):
            out.append(seg)
            node = node[seg]
    return tuple(out)


def _message(err: ErrorDetails) -> str:
    kind = err["type"]
    if kind in ("missing", "union_tag_not_found"):
        return "required field is missing"
    if kind == "union_tag_invalid":
        return f"{err['ctx']['tag']!r} is not one of: {err['ctx']['expected_tags']}"
    if kind == "extra_forbidden":
        return "unknown key"
    msg = err["msg"]
    return msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")


def _unique(problems: list[Problem]) -> list[Problem]:
    seen, out = set(), []
    for p in problems:
        if (p.path, p.message) not in seen:
            seen.add((p.path, p.message))
            out.append(p)
    return out


def render_instructions(text: str, variables: dict[str, str]) -> tuple[str, list[str]]:
    """Fill `{{name}}` placeholders; return the text and the names that had no value."""
    missing: list[str] = []

    def fill(m: re.Match) -> str:
        name = m.group(1)
        if name not in variables:
            missing.append(name)
            return m.group(0)
        return variables[name]

    return PLACEHOLDER.sub(fill, text), missing


def suite_hash(root: Path) -> str:
    """sha256 over every file's relative path and bytes, in sorted order: any edit changes the hash.

    Symlinked folders are followed, even out of the suite folder, so a suite
    assembled from linked folders hashes as its copy would. The loader refuses
    such links, so for a loadable suite this is the hash of exactly what was
    loaded. Entries that cannot be hashed (loops, FIFOs, broken links) are left
    out here and refused by the loader.
    """
    root = Path(root)
    return _digest(root, bundle_files(root, confined=False)[0])


def suite_hash_without_manifest(root: Path) -> str:
    """The suite's hash leaving out its generation manifest (which records this hash)."""
    from .generation import MANIFEST_FILE

    root = Path(root)
    files = [
        p
        for p in bundle_files(root, confined=False)[0]
        if p.relative_to(root).as_posix() != MANIFEST_FILE
    ]
    return _digest(root, files)


def _digest(root: Path, files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _read_suite_yaml(
    root: Path, path: Path, label: str
) -> tuple[YamlDocument | None, list[Problem]]:
    """`read_yaml`, but only for a file that really lies inside the suite folder (a symlink counts
    as its target)."""
    reason = escape(root.resolve(), path)
    if reason:
        return None, [Problem(label, "", f"this file {reason}")]
    return read_yaml(path, label)


def load_suite_files(root: Path) -> tuple[Suite | None, list[Problem], dict[str, YamlDocument]]:
    """Parse every file of a suite folder. Cross-file rules are checked by `validation`.

    Returns the suite (None when suite.yaml itself is unusable), the problems so
    far, and the parsed documents by label so later checks can cite line numbers.
    """
    problems: list[Problem] = []
    docs: dict[str, YamlDocument] = {}
    if not root.is_dir():
        return None, [Problem(str(root), "", "suite folder not found")], docs
    manifest = None
    doc, errs = _read_suite_yaml(root, root / "suite.yaml", "suite.yaml")
    problems += errs
    if doc is not None:
        docs["suite.yaml"] = doc
        manifest, errs = parse_model(doc, SuiteManifest, "suite.yaml")
        problems += errs

    agents: dict[str, LoadedAgent] = {}
    agent_dirs = (
        sorted(p for p in (root / "agents").iterdir() if p.is_dir() and p.name not in IGNORED)
        if (root / "agents").is_dir()
        else []
    )
    if not agent_dirs:
        problems.append(
            Problem(
                "agents/", "", "no agent definitions found (expected agents/<agent-id>/agent.yaml)"
            )
        )
    for agent_dir in agent_dirs:
        loaded, errs = _load_agent(root, agent_dir, docs)
        problems += errs
        if loaded is not None:
            agents[loaded.definition.id] = loaded

    scenarios: dict[str, Scenario] = {}
    files: dict[str, str] = {}
    scenario_paths = (
        sorted((root / "scenarios").glob("*/*.yaml")) if (root / "scenarios").is_dir() else []
    )
    # A scenario saved as .yml or at the wrong depth would otherwise be skipped without a word.
    for path in (
        sorted((root / "scenarios").rglob("*.y*ml")) if (root / "scenarios").is_dir() else []
    ):
        if (
            path.suffix in (".yml", ".yaml")
            and path not in scenario_paths
            and not (IGNORED & set(path.parts))
        ):
            problems.append(
                Problem(
                    path.relative_to(root).as_posix(),
                    "",
                    "not a scenario file: scenarios live at "
                    "scenarios/<agent-id>/<scenario-id>.yaml",
                )
            )
    if not scenario_paths:
        problems.append(
            Problem(
                "scenarios/",
                "",
                "no scenarios found (expected scenarios/<agent-id>/<scenario-id>.yaml)",
            )
        )
    for path in scenario_paths:
        label = path.relative_to(root).as_posix()
        doc, errs = _read_suite_yaml(root, path, label)
        problems += errs
        if doc is None:
            continue
        docs[label] = doc
        scenario, errs = parse_model(doc, Scenario, label)
        problems += errs
        if scenario is None:
            continue
        if scenario.id != path.stem:
            problems.append(
                Problem(
                    label,
                    "id",
                    f"id '{scenario.id}' must equal the file name '{path.stem}'",
                    doc.line_of(("id",)),
                )
            )
        if scenario.agent != path.parent.name:
            problems.append(
                Problem(
                    label,
                    "agent",
                    f"agent '{scenario.agent}' must equal the folder name '{path.parent.name}'",
                    doc.line_of(("agent",)),
                )
            )
        if scenario.id in scenarios:
            problems.append(
                Problem(
                    label, "id", f"scenario id '{scenario.id}' is also used by {files[scenario.id]}"
                )
            )
            continue
        scenarios[scenario.id] = scenario
        files[scenario.id] = label

    bundle, errs = bundle_files(root)
    reported = {p.file for p in problems}
    problems += [
        p for p in errs if p.file not in reported
    ]  # a refused scenario file is not reported twice
    if manifest is None or errs:
        return None, problems, docs
    scenarios = {
        sid: _inherit_state_tools(sc, agents.get(sc.agent)) for sid, sc in scenarios.items()
    }
    suite = Suite(
        manifest=manifest,
        root=root,
        agents=agents,
        scenarios=scenarios,
        scenario_files=files,
        sha256=_digest(root, bundle),
    )
    return suite, problems, docs


def _inherit_state_tools(scenario: Scenario, agent: LoadedAgent | None) -> Scenario:
    """A state-backend scenario gets its agent's shared `state_tools` and `state_ids`; its own
    entries win."""
    if (
        agent is None
        or scenario.backend.kind != "state"
        or not (agent.definition.state_tools or agent.definition.state_ids)
    ):
        return scenario
    backend = scenario.backend.model_copy(
        update={
            "tools": {**agent.definition.state_tools, **scenario.backend.tools},
            "ids": {**agent.definition.state_ids, **scenario.backend.ids},
        }
    )
    return scenario.model_copy(update={"backend": backend})


def _load_agent(
    root: Path, agent_dir: Path, docs: dict[str, YamlDocument]
) -> tuple[LoadedAgent | None, list[Problem]]:
    label = (agent_dir / "agent.yaml").relative_to(root).as_posix()
    doc, errs = _read_suite_yaml(root, agent_dir / "agent.yaml", label)
    if doc is None:
        return None, errs
    docs[label] = doc
    agent, errs = parse_model(doc, AgentDefinition, label)
    if agent is None:
        return None, errs
    problems: list[Problem] = []
    if agent.id != agent_dir.name:
        problems.append(
            Problem(
                label,
                "id",
                f"id '{agent.id}' must equal the folder name '{agent_dir.name}'",
                doc.line_of(("id",)),
            )
        )
    instructions_path = agent_dir / agent.instructions
    reason = escape(root.resolve(), instructions_path)
    if reason:
        # An absolute path, `../..` or a symlink out of the folder would make any local file the
        # system prompt.
        problems.append(
            Problem(
                label,
                "instructions",
                f"instructions file '{agent.instructions}' {reason}",
                doc.line_of(("instructions",)),
            )
        )
        return None, problems
    try:
        text = instructions_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        problems.append(
            Problem(
                label,
                "instructions",
                f"instructions file '{agent.instructions}' not found or unreadable",
                doc.line_of(("instructions",)),
            )
        )
        return None, problems
    rendered, missing = render_instructions(text, agent.variables)
    for name in missing:
        problems.append(
            Problem(
                label,
                "variables",
                f"the instructions use {{{{{name}}}}} but no variable '{name}' is defined",
                doc.line_of(("variables",)),
            )
        )
    sha = hashlib.sha256(rendered.encode("utf-8")).hexdigest()
    return LoadedAgent(
        definition=agent, instructions=rendered, instructions_sha256=sha, file=label
    ), problems
