"""What a benchmark is: typed suite files, loading, validation and hashing. Imports nothing else of
callbench
except the leaf `errors` module."""

from .agent import AgentDefinition, SuccessCondition, ToolSpec
from .casting import Background, Casting
from .loading import load_suite_files, parse_model, render_instructions, suite_hash
from .matchers import MISSING, Matcher, MatchResult, evaluate, evaluate_args, kind_of, type_problems
from .scenario import (
    CallerBrief,
    ChannelProgram,
    Count,
    Criterion,
    ExpectedAction,
    Persona,
    PhraseCheck,
    PlanStep,
    QueueBackendSpec,
    QueueEntry,
    ReferenceCall,
    ReferenceTurn,
    Scenario,
)
from .state import (
    ExpectedChanges,
    ExpectedWrite,
    Gates,
    InjectedFailure,
    Precondition,
    ProtectedFact,
    ReadSpec,
    Refusal,
    StateBackendSpec,
    StateExpectation,
    StateTool,
)
from .suite import CallerPhrases, LoadedAgent, Suite, SuiteDefaults, SuiteManifest
from .templates import TemplateError, make_scope, resolve
from .validation import normalize_space, validate_suite

__all__ = [
    "MISSING",
    "AgentDefinition",
    "Background",
    "CallerBrief",
    "Casting",
    "CallerPhrases",
    "ChannelProgram",
    "Count",
    "Criterion",
    "ExpectedAction",
    "LoadedAgent",
    "MatchResult",
    "Matcher",
    "Persona",
    "PhraseCheck",
    "PlanStep",
    "QueueBackendSpec",
    "QueueEntry",
    "ReferenceCall",
    "ReferenceTurn",
    "Scenario",
    "SuccessCondition",
    "Suite",
    "SuiteDefaults",
    "SuiteManifest",
    "TemplateError",
    "ToolSpec",
    "evaluate",
    "evaluate_args",
    "kind_of",
    "load_suite_files",
    "make_scope",
    "normalize_space",
    "parse_model",
    "render_instructions",
    "resolve",
    "suite_hash",
    "type_problems",
    "validate_suite",
    "ExpectedChanges",
    "ExpectedWrite",
    "Gates",
    "InjectedFailure",
    "Precondition",
    "ProtectedFact",
    "ReadSpec",
    "Refusal",
    "StateBackendSpec",
    "StateExpectation",
    "StateTool",
]
