"""The no-op floor: polite, in the agent's language, and never calls a tool."""

from __future__ import annotations

from ..call.types import CandidateStep
from .base import CandidateView

LINES = {
    "en": ("Hello, thank you for calling. How can I help you today?",
           "I understand. Could you tell me a little more?",
           "Thank you, I have noted that.",
           "I see. Is there anything else I can help you with?"),
    "hi": ("नमस्ते, कॉल करने के लिए धन्यवाद। मैं आपकी क्या मदद कर सकती हूँ?",
           "मैं समझ गई। क्या आप थोड़ा और बता सकते हैं?",
           "धन्यवाद, मैंने यह नोट कर लिया है।",
           "अच्छा। क्या मैं आपकी और कोई मदद कर सकती हूँ?"),
    "gu": ("નમસ્તે, ફોન કરવા બદલ આભાર. હું તમારી શું મદદ કરી શકું?",
           "હું સમજી ગઈ. શું તમે થોડું વધારે કહી શકો?",
           "આભાર, મેં આ નોંધી લીધું છે.",
           "સારું. બીજી કોઈ મદદ કરી શકું?"),
}


class NoopCandidate:
    name = "noop"

    def __init__(self) -> None:
        self.turn = 0

    async def step(self, view: CandidateView) -> CandidateStep:
        lines = LINES.get(view.language.split("-")[0], LINES["en"])
        line = lines[0] if self.turn == 0 else lines[1 + (self.turn - 1) % (len(lines) - 1)]
        self.turn += 1
        return CandidateStep(speech=line)
