"""`suite.yaml` and the loaded bundle."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from .agent import AgentDefinition
from .base import Identifier, SpecModel
from .casting import Casting
from .scenario import Anchors, Diagnostic, Scenario, Weight


class ConversationCriterion(SpecModel):
    """A conversation dimension rated 1-5 on every call of the suite (memory, speech around tools,
    ...)."""

    id: Identifier
    weight: Weight = 1
    statement: str = Field(min_length=1)
    anchors: Anchors | None = None
    diagnostic: Diagnostic | None = None


class CallerPhrases(SpecModel):
    """What the scripted caller says when no plan step fires, when the agent's turn confused it (too
    long to
    follow, or asking for several things at once), how it closes, and what counts as goodbye."""

    goodbye: list[str] = Field(min_length=1)
    idle: list[str] = Field(min_length=1)
    closing: str = Field(min_length=1)
    confused: list[str] = Field(
        default_factory=list,
        description="said when the agent's turn was too long to follow "
        "or asked for several things at once (default: idle)",
    )


class SuiteDefaults(SpecModel):
    max_caller_turns: int = Field(default=30, ge=1)
    max_tool_calls_per_turn: int = Field(default=10, ge=1)
    followable_words: int = Field(
        default=80,
        ge=10,
        description="the longest agent turn a person follows on the phone (about half a minute of "
        "speech): a longer turn confuses the scripted caller and is no evidence for a "
        "spoken check, refusal or read-back",
    )
    followable_figures: int = Field(
        default=12,
        ge=1,
        description="the most figures written in digits (249.99, 02:07, 2026-11-24) an agent turn "
        "may "
        "hold and still be followed: a dump of every value a tool returned is not",
    )
    caller_phrases: dict[str, CallerPhrases] = Field(default_factory=dict)


class SuiteManifest(SpecModel):
    id: Identifier
    version: str = Field(min_length=1)
    title: str = ""
    description: str = ""
    languages: list[str] = Field(min_length=1)
    conversation_criteria: list[ConversationCriterion] = Field(default_factory=list)
    defaults: SuiteDefaults = Field(default_factory=SuiteDefaults)
    casting: Casting = Field(default_factory=Casting)


class LoadedAgent(BaseModel):
    """An agent definition with its instructions read and rendered, and the hash of that text."""

    model_config = ConfigDict(frozen=True)

    definition: AgentDefinition
    instructions: str
    instructions_sha256: str
    file: str


class Suite(BaseModel):
    """A loaded, validated suite. `sha256` covers every file of the bundle, so any edit changes
    it."""

    model_config = ConfigDict(frozen=True)

    manifest: SuiteManifest
    root: Path
    agents: dict[str, LoadedAgent]
    scenarios: dict[str, Scenario]
    scenario_files: dict[str, str]
    sha256: str

    @property
    def id(self) -> str:
        return self.manifest.id

    def agent_for(self, scenario: Scenario) -> LoadedAgent:
        return self.agents[scenario.agent]
