"""A cascade voice stack: a recogniser, any chat candidate, and a synthesizer, each pluggable.

The classic voice-agent build (speech recognition -> a text LLM -> speech synthesis) as a
candidate: `cascade:<candidate>` wraps any text candidate callbench runs (`cascade:local:smollm2`,
`cascade:openai:gpt-4.1-mini`, `cascade:python:pkg.mod:Agent`, `cascade:http://...`). The stack
hears the caller's audio with the run's recogniser (the one the channel uses, shared: so the
cascade's ears are the run's ears) unless given its own, keeps its own history of the call (what
it heard, what it meant to say, its tool calls and their results — the chat candidate never sees
what the line and the caller's recogniser made of its words), and speaks its replies by synthesis.

The chat candidate is made without the scenario: a cascade is a candidate under test, so an entry
that reads the answer key (the oracle) is refused.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable
from typing import Any

from ...call.audio.types import Audio, Recognizer, Synthesizer
from ...call.types import ObservedMessage, ToolCall
from ...call.views import CandidateView
from ...errors import AudioError
from ..base import Candidate
from .protocol import AudioOut, ToolCallOut, TranscriptOut, TurnDone, VoiceEvent, VoiceSessionSetup

ChatSource = str | Callable[[], Candidate] | Any
"""a candidate name, a factory of candidates, or a registry `CandidateEntry`"""


class CascadeStack:
    """`CascadeStack("local:smollm2")`: recogniser + chat candidate + synthesizer.

    `recognizer`: a recogniser spec (`make_recognizer`) or None for the run's own;
    `synthesizer`: a synthesizer spec (`make_synthesizer`; "auto", the run's default, speaks
    English with Piper and other languages with espeak-ng) or a Synthesizer."""

    def __init__(
        self,
        chat: ChatSource,
        synthesizer: str | Synthesizer = "auto",
        recognizer: str | Recognizer | None = None,
        *,
        models: dict[str, Any] | None = None,
        name: str | None = None,
    ):
        self._factory = _chat_factory(chat, models)
        label = chat if isinstance(chat, str) else getattr(chat, "name", "chat")
        self.name = name or f"cascade:{label}"
        self._synth_spec, self._recog_spec = synthesizer, recognizer
        self._synth: Synthesizer | None = None
        self._recog: Recognizer | None = None

    def synthesizer(self) -> Synthesizer:
        if self._synth is None:
            if isinstance(self._synth_spec, str):
                from ...call.audio.synth import make_synthesizer

                self._synth = make_synthesizer(self._synth_spec)
            else:
                self._synth = self._synth_spec
        return self._synth

    def _recognize_with(self, setup: VoiceSessionSetup) -> Callable[[Audio], str]:
        if self._recog_spec is None:
            if setup.recognize is None:
                raise AudioError(
                    f"{self.name}: no recogniser (run it with --channel audio, or give it one)"
                )
            return setup.recognize
        if self._recog is None:
            if isinstance(self._recog_spec, str):
                from ...call.audio.recognize import make_recognizer

                self._recog = make_recognizer(self._recog_spec)
            else:
                self._recog = self._recog_spec
        recog = self._recog
        return lambda audio: recog.transcribe(audio, setup.language).strip()

    async def open(self, setup: VoiceSessionSetup) -> CascadeSession:
        return CascadeSession(
            setup, self._factory(), self._recognize_with(setup), self.synthesizer()
        )


class CascadeSession:
    """One call: the chat candidate, the history it is shown, and the events of the current
    response."""

    def __init__(
        self,
        setup: VoiceSessionSetup,
        chat: Candidate,
        recognize: Callable[[Audio], str],
        synthesizer: Synthesizer,
    ):
        from ...call.audio.channel import AGENT_VOICE

        self.setup, self.chat = setup, chat
        self.recognize, self.synth, self.voice = recognize, synthesizer, AGENT_VOICE
        self.history: list[ObservedMessage] = []
        self._audio: list[Audio] = []
        self._responding = False
        self._ids = itertools.count(1)
        self.heard: list[str] = []
        """what the cascade recognised of each caller turn (for tests and debugging)"""

    def view(self) -> CandidateView:
        """The chat candidate's view, as a text candidate's is built: the deployment's
        instructions (the call context block the adapter added taken off again, so it is not
        shown twice) and the call as the cascade knows it."""
        context = dict(self.setup.call_context)
        instructions = self.setup.instructions
        suffix = CandidateView("", (), "", "", context).system_prompt()
        if context and instructions.endswith(suffix):
            instructions = instructions[: -len(suffix)]
        return CandidateView(
            instructions=instructions,
            tools=self.setup.tools,
            language=self.setup.language,
            direction=self.setup.direction,
            call_context=context,
            messages=tuple(self.history),
        )

    async def send_audio(self, audio: Audio) -> None:
        self._audio.append(audio)

    async def send_tool_result(self, call_id: str, result: Any) -> None:
        name = next((c.name for m in self.history for c in m.tool_calls if c.id == call_id), None)
        text = result if isinstance(result, str) else str(result)
        self.history.append(
            ObservedMessage(role="tool", text=text, tool_call_id=call_id, tool_name=name)
        )

    async def respond(self) -> None:
        self._responding = True

    async def events(self) -> AsyncIterator[VoiceEvent]:
        """Hear the caller's audio, ask the chat candidate for its message, speak it: the work
        happens here, as the adapter waits for the first audio, so the response latency it
        measures is the cascade's own (recognition + the chat model + synthesis). Recognition and
        synthesis run in worker threads, off the event loop every call in flight shares."""
        if not self._responding:
            return
        self._responding = False
        if self._audio:
            pieces, self._audio = self._audio, []
            for piece in pieces:
                text = await asyncio.to_thread(self.recognize, piece)
                self.heard.append(text)
                self.history.append(ObservedMessage(role="caller", text=text))
        step = await self.chat.step(self.view())
        calls = tuple(
            c if c.id else ToolCall(c.name, c.arguments, f"cascade_{next(self._ids)}")
            for c in step.tool_calls
        )
        speech = (step.speech or "").strip()
        if speech or calls:
            self.history.append(
                ObservedMessage(role="candidate", text=speech or None, tool_calls=calls)
            )
        if speech:
            audio = await asyncio.to_thread(
                self.synth.synthesize, speech, self.setup.language, self.voice
            )
            yield TranscriptOut(speech)
            yield AudioOut(audio)
        for c in calls:
            yield ToolCallOut(c.id or "", c.name, c.arguments)
        yield TurnDone(usage=step.usage, error=step.error)

    async def close(self) -> None:
        close = getattr(self.chat, "close", None)
        if close is not None:
            await close()


def _chat_factory(chat: ChatSource, models: dict[str, Any] | None) -> Callable[[], Candidate]:
    if isinstance(chat, str):
        from ..registry import candidate_entry

        chat = candidate_entry(chat, models=models)
    make = getattr(chat, "make", None)
    if make is None:
        if not callable(chat):
            raise TypeError(f"a cascade needs a candidate name, entry or factory, not {chat!r}")
        return chat
    if getattr(chat, "privileged", False):
        from ..registry import UnknownCandidate

        raise UnknownCandidate(
            f"'{getattr(chat, 'name', chat)}' reads the answer key: a cascade plays candidates "
            "under test only"
        )
    return lambda: make(None)
