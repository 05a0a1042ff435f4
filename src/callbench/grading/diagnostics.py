"""The ten diagnostics: the same points as the pillars, broken down by observable behaviour.

Each verdict names exactly one diagnostic, so a diagnostic's score is simply
100·Σw·r/Σw over the measured items that feed it. They explain where a pillar
came from; they are not extra objectives and they do not sum to anything.
"""

from __future__ import annotations

from collections.abc import Iterable

DIAGNOSTICS: dict[str, str] = {
    "action_correctness": "the right tools were called the right number of times, in the right "
    "order "
    "(expected actions without argument matchers; task criteria about what was done)",
    "argument_accuracy": "the arguments of those calls were right (expected actions with argument "
    "or result matchers)",
    "outcome_state": "the world ended in the expected state (state assertions and outcome "
    "criteria)",
    "rule_compliance": "nothing forbidden happened and the operating rules held (forbidden "
    "actions, verification "
    "gates, criteria that quote the instructions)",
    "stated_facts": "the numbers and facts the agent spoke were right (spoken-value checks)",
    "memory": "nothing the caller already said was asked again or contradicted (memory rating)",
    "speech_around_tools": "the caller was never left in silence across tool calls (check and "
    "rating)",
    "speakable_replies": "replies could be spoken as written: no markdown, lists, URLs, tables, "
    "emoji; numbers grouped "
    "the way people say them (checks and rating)",
    "language_and_script": "replies were in the required language and its script (check)",
    "closing": "the call ended with an audible goodbye after the caller's needs were handled "
    "(check and rating)",
}

CONVERSATION_DIAGNOSTIC = {
    "memory_across_turns": "memory",
    "speech_around_tools": "speech_around_tools",
    "speakable_replies": "speakable_replies",
    "closing": "closing",
    "language_and_script": "language_and_script",
}


def diagnostic_scores(items: Iterable) -> dict[str, float | None]:
    totals = {name: [0.0, 0.0] for name in DIAGNOSTICS}
    for item in items:
        if item.r is None or item.diagnostic not in totals:
            continue
        totals[item.diagnostic][0] += item.weight * item.r
        totals[item.diagnostic][1] += item.weight
    return {name: (100.0 * p / w if w else None) for name, (p, w) in totals.items()}
