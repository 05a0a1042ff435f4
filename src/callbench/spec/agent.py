"""Agent definitions: what a candidate is told and which tools it may call."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from .base import Identifier, SpecModel
from .matchers import Matcher


class SuccessCondition(SpecModel):
    """When a call-ending tool's *result* counts as success: the value at `path` equals or matches.

    Written as `{path: status, equals: ended}` or `{path: status, match: {one_of: [ended, closed]}}`.
    An ended call is a claim the backend must confirm; attempting the tool is not enough.
    """

    path: str = Field(min_length=1)
    equals: Any = None
    match: Matcher | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "SuccessCondition":
        given = [k for k in ("equals", "match") if k in self.model_fields_set]
        if len(given) != 1:
            raise ValueError("a success condition needs exactly one of 'equals' or 'match'")
        return self


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
    instructions: str = Field(min_length=1, description="path of the instructions document, relative to agent.yaml")
    variables: dict[str, str] = Field(default_factory=dict, description="{{name}} placeholders filled in the instructions")
    tools: list[ToolSpec] = Field(min_length=1)

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)

    @property
    def end_tools(self) -> list[ToolSpec]:
        return [t for t in self.tools if t.ends_call]
