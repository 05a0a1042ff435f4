"""Stock phrases for the script baselines, in the languages of the built-in suites (English
otherwise).

The baselines must sound like an agent in the caller's language, or a
scripted caller waiting for a greeting would never start, and the floor they
measure would be the language barrier rather than the task.
"""

from __future__ import annotations

PHRASES = {
    "en": {
        "greeting": "Hello, thank you for calling. How can I help you today?",
        "fillers": (
            "I understand. Could you tell me a little more?",
            "Thank you, I have noted that.",
            "I see. Is there anything else I can help you with?",
        ),
        "wait": "Okay, one moment please.",
        "ask": "Could you tell me: {}?",
        "goodbye": "Thank you for calling. Goodbye.",
    },
    "hi": {
        "greeting": "नमस्ते, कॉल करने के लिए धन्यवाद। मैं आपकी क्या मदद कर सकती हूँ?",
        "fillers": (
            "मैं समझ गई। क्या आप थोड़ा और बता सकते हैं?",
            "धन्यवाद, मैंने यह नोट कर लिया है।",
            "अच्छा। क्या मैं आपकी और कोई मदद कर सकती हूँ?",
        ),
        "wait": "ठीक है, एक मिनट रुकिए।",
        "ask": "कृपया बताइए: {}?",
        "goodbye": "कॉल करने के लिए धन्यवाद। नमस्ते।",
    },
    "gu": {
        "greeting": "નમસ્તે, ફોન કરવા બદલ આભાર. હું તમારી શું મદદ કરી શકું?",
        "fillers": (
            "હું સમજી ગઈ. શું તમે થોડું વધારે કહી શકો?",
            "આભાર, મેં આ નોંધી લીધું છે.",
            "સારું. બીજી કોઈ મદદ કરી શકું?",
        ),
        "wait": "સારું, એક મિનિટ.",
        "ask": "મહેરબાની કરીને કહો: {}?",
        "goodbye": "આભાર. આવજો.",
    },
}


def phrases(language: str) -> dict:
    return PHRASES.get(language.split("-")[0], PHRASES["en"])
