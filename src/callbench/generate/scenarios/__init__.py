"""`callbench generate scenarios`: scenarios written by a model from an agent's whole definition,
accepted only once they pass validation, the oracle and the audit, and recorded in manifest.json."""

from .pipeline import (
    GENERATOR,
    GenerateSettings,
    GenerationResult,
    Rejection,
    generate_scenarios,
    parse_targets,
)
from .prompts import prompt_hashes
from .source import AgentSource, read_agent

__all__ = [
    "GENERATOR",
    "AgentSource",
    "GenerateSettings",
    "GenerationResult",
    "Rejection",
    "generate_scenarios",
    "parse_targets",
    "prompt_hashes",
    "read_agent",
]
