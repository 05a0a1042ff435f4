"""The agent a batch is written for, read whole: agent.yaml as written (tools with their schemas,
state_tools), the instructions rendered as the candidate will read them, and the suite around it.

The model is shown the files themselves, not a summary: a scenario is only as faithful to the
operating document as what its author read of it, and criteria excerpts must be copied verbatim
from the rendered instructions.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import Problem, SuiteError
from ...spec.agent import AgentDefinition
from ...spec.loading import parse_model, render_instructions
from ...spec.yamlio import read_yaml


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class AgentSource:
    folder: Path
    """the agent's folder (holding agent.yaml)"""
    definition: AgentDefinition
    agent_yaml: str
    """agent.yaml exactly as written"""
    instructions: str
    """the instructions rendered with the agent's variables"""
    suite_root: Path | None
    """the suite folder the agent lives in (agents/<id>/ under it), when there is one"""
    examples: dict[str, str] = field(default_factory=dict)
    """scenario file name -> text: the suite's existing scenarios for this agent"""
    sources: dict[str, str] = field(default_factory=dict)
    """what the generator read: path (relative to the agent folder's suite, or the folder) -> sha"""

    @property
    def id(self) -> str:
        return self.definition.id

    @property
    def language(self) -> str:
        return self.definition.language


def read_agent(path: Path) -> AgentSource:
    """Read the agent at `path` (its folder or its agent.yaml); raises SuiteError naming what is
    wrong with the definition."""
    path = Path(path)
    folder = path.parent if path.is_file() else path
    doc, problems = read_yaml(folder / "agent.yaml", "agent.yaml")
    if doc is None or problems:
        raise SuiteError(problems or [Problem("agent.yaml", "", "could not be read")])
    definition, problems = parse_model(doc, AgentDefinition, "agent.yaml")
    if definition is None:
        raise SuiteError(problems)
    instructions_path = folder / definition.instructions
    if not instructions_path.is_file():
        raise SuiteError([Problem("agent.yaml", "instructions", "instructions file not found")])
    raw = instructions_path.read_bytes()
    rendered, missing = render_instructions(raw.decode("utf-8"), definition.variables)
    if missing:
        raise SuiteError(
            [Problem("agent.yaml", "variables", f"no value for {', '.join(sorted(set(missing)))}")]
        )
    in_suite = folder.parent.name == "agents" and (folder.parent.parent / "suite.yaml").is_file()
    suite_root = folder.parent.parent if in_suite else None
    base = suite_root or folder
    agent_yaml = (folder / "agent.yaml").read_bytes()
    sources = {
        (folder / "agent.yaml").relative_to(base).as_posix(): sha256_bytes(agent_yaml),
        instructions_path.relative_to(base).as_posix(): sha256_bytes(raw),
    }
    examples: dict[str, str] = {}
    if suite_root is not None:
        sources["suite.yaml"] = sha256_bytes((suite_root / "suite.yaml").read_bytes())
        for scenario in sorted((suite_root / "scenarios" / definition.id).glob("*.yaml")):
            examples[scenario.name] = scenario.read_text(encoding="utf-8")
    return AgentSource(
        folder=folder,
        definition=definition,
        agent_yaml=agent_yaml.decode("utf-8"),
        instructions=rendered,
        suite_root=suite_root,
        examples=examples,
        sources=sources,
    )


__all__ = ["AgentSource", "read_agent", "sha256_bytes"]
