"""One episode: the turn loop, the views each side gets, the text channel, and the trace."""

from .channel import TextChannel
from .episode import EpisodeSetup, parse_arguments, run_episode, success_holds
from .roles import Backend, Caller, Candidate
from .trace import (
    TRACE_SCHEMA_VERSION,
    CallerTurnRecord,
    ChannelEventRecord,
    EndRecord,
    Failure,
    Message,
    SuiteRef,
    Timings,
    ToolEvent,
    Trace,
    read_trace,
)
from .types import (
    CONCLUDING_MESSAGE,
    CallerUtterance,
    CandidateStep,
    ObservedMessage,
    PublicTurn,
    ToolCall,
    ToolOutcome,
    Usage,
)
from .views import CallerTurnRejected, CallerView, CandidateView, check_utterance

__all__ = [
    "CONCLUDING_MESSAGE",
    "TRACE_SCHEMA_VERSION",
    "Backend",
    "Caller",
    "CallerTurnRecord",
    "CallerTurnRejected",
    "CallerUtterance",
    "CallerView",
    "Candidate",
    "CandidateStep",
    "CandidateView",
    "ChannelEventRecord",
    "EndRecord",
    "EpisodeSetup",
    "Failure",
    "Message",
    "ObservedMessage",
    "PublicTurn",
    "SuiteRef",
    "TextChannel",
    "Timings",
    "ToolCall",
    "ToolEvent",
    "ToolOutcome",
    "Trace",
    "Usage",
    "check_utterance",
    "parse_arguments",
    "read_trace",
    "run_episode",
    "success_holds",
]
