"""Agent definitions: what a candidate is told and which tools it may call."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .base import Identifier, SpecModel
from .conditions import SuccessCondition
from .state import IdFormat, StateTool

#: The service domains a bundle reports its composition by (the reference bundle's nine).
Domain = Literal[
    "finance",
    "healthcare",
    "public_services",
    "logistics",
    "retail",
    "travel",
    "agriculture",
    "education",
    "emergency_intake",
]


class ToolSpec(SpecModel):
    name: Identifier
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    ends_call: bool = False
    success: SuccessCondition | None = None

    def parameter_schema(self, name: str) -> dict[str, Any] | None:
        props = self.parameters.get("properties") or {}
        schema = props.get(name)
        return schema if isinstance(schema, dict) else None


class AgentDefinition(SpecModel):
    id: Identifier
    name: str = Field(min_length=1)
    language: str = Field(min_length=2, description="BCP-47 language code, e.g. en, gu, hi")
    direction: Literal["inbound", "outbound"] = "inbound"
    domain: Domain | None = Field(
        default=None,
        description="the service domain, so a bundle's composition is declared rather than guessed",
    )
    instructions: str = Field(
        min_length=1, description="path of the instructions document, relative to agent.yaml"
    )
    variables: dict[str, str] = Field(
        default_factory=dict, description="{{name}} placeholders filled in the instructions"
    )
    tools: list[ToolSpec] = Field(min_length=1)
    state_tools: dict[Identifier, StateTool] = Field(
        default_factory=dict,
        description="how the tools act on a state world, shared by every state-backend scenario "
        "of this agent; a scenario's own backend.tools entry of the same name replaces one",
    )
    state_ids: dict[Identifier, IdFormat] = Field(
        default_factory=dict, description="id formats shared the same way"
    )

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)

    @property
    def end_tools(self) -> list[ToolSpec]:
        return [t for t in self.tools if t.ends_call]
