"""Deterministic conversation checks: what code can decide about how the agent *spoke*.

Five checks, one verdict each (kind "check", pillar "conversation", weight 1):

``speakable``       (diagnostic speakable_replies) no markdown, bullets, URLs, tables or emoji in
speech
``numbers_spoken``  (diagnostic speakable_replies) no digit strings a text-to-speech voice would
misread
``script``          (diagnostic language_and_script) each reply is in the script of the agent's
language
``tool_speech``     (diagnostic speech_around_tools) no turn runs tools without the agent saying
anything
``goodbye``         (diagnostic closing) the last thing the agent said before the call ended was a
goodbye

Scoring. ``speakable``, ``numbers_spoken`` and ``script`` count violating *messages*;
``tool_speech``
counts violating *turns*: none is met (r=1), exactly one is partial (r=0.5), two or more is not met
(r=0). ``goodbye`` looks at one moment of the call, so it is met or not met, never partial. A check
that found nothing to object to is met (a call without tool calls cannot leave the caller in silence
across one) — with one exception: **a candidate that never spoke fails every check**. Silence is not
speakable, not in any script, leaves the caller in silence and says no goodbye; a check that a
silent
agent could pass would reward doing nothing.

A check is ``not_measured`` (r=None, it enters no sum) only when code genuinely cannot decide: the
agent's language has no known script (``script``) or no known goodbye words (``goodbye``), or the
harness itself cut the call (infrastructure failure; ``goodbye`` only).

Evidence is the trace indices of the violating messages (for ``tool_speech``, the tool-call messages
of
the silent turn); when met, the indices that were checked (at most ``MAX_EVIDENCE``).

The rules, and why
------------------
``speakable`` flags markdown (bold, italics, strikethrough, code, headings, links, quotes, rules),
bullets (a line starting with -, *, +, • …, or a bullet character anywhere), numbered lists (two or
more
lines starting "1." / "2)", or one in a multi-line reply), tables (a line with two pipes, or a
``|---|---|`` rule), URLs, bare web domains and email addresses, emoji, and a run of more than
``MAX_UNBROKEN`` (60) characters without a space. A voice reads markup literally ("asterisk
asterisk") or
silently drops the structure it carried, and a caller can neither click a link nor see a table; no
voice says
a 61-character word (a URL or an address has its own finding instead; Chinese, Japanese, Thai, Lao,
Khmer,
Myanmar and Tibetan, written without spaces, are not held to it).

``numbers_spoken`` flags four formats a text-to-speech voice misreads:
  1. a standalone run of 5+ digits ("9825041736", "EMG-40517", "10000"): voices read a digit string
  as
     one cardinal ("nine hundred eighty-two crore …"), and the caller cannot write it down. Four
     digits
     (years, "1912", "SR-0412") read fine. Numbers grouped by spaces or hyphens pass while every
     group has
     at most 5 digits: Indian mobile numbers are said 5+5 ("98250 41736"). Comma-grouped amounts,
     Western
     or Indian ("10,000", "1,00,000"), pass: voices read them as amounts.
  2. all-numeric dates ("14/11/2026", "2026-11-14"): the day/month order is ambiguous and voices
  read
     them as fractions or digit soup; a person says "the fourteenth of November".
  3. currency codes or abbreviations glued to a number ("Rs. 300", "INR 300", "50 USD"): voices
  spell
     the letters; a person says "three hundred rupees". Currency *symbols* ($ £ € ₹) are not
     flagged:
     current voices normalise them.
  4. digits of a script that is neither ASCII nor the agent language's own (Gujarati digits in a
  Hindi
     reply): no voice for the language reads them.
  Whether the number said was *right* is not this check's business (spoken-value checks decide
  that).
  A reply's long numbers are listed up to ``MAX_NUMBER_FINDINGS`` (then "and more"), each cut to 40
  characters.

Time. A candidate controls what it says, so every check takes time linear in the reply, whatever the
reply
(a megabyte without a space is graded in a fraction of a second; benchmarks/bench_grading.py): no
pattern
rescans a long word from each of its characters, and the two that did (URLs, markdown links) are
scans that
find exactly what those patterns found.

``script`` passes a reply when at least 60% of its letters (letters and combining marks, so Indic
vowel
signs count) are in the script of ``scenario.language`` (``LANGUAGE_SCRIPTS``). In non-Latin speech,
all-capital Latin words of 2-5 letters (SMS, OTP, UPI, KYC) are not counted: they are said as
letters in
every Indian language. Hindi written in Latin letters fails: the reply must be in the language's
script.
Replies without letters (only "1912") are skipped; if no reply has letters, the check fails.
Languages sharing a script (Hindi and Marathi) are
told apart only by a language detector, an explicit setting (``language_detector``: "script", the
default, does not tell them apart; "lingua" uses lingua-language-detector, an optional extra, and
fails loudly when it is not installed — scores never depend on what happens to be installed),
restricted to the suite's own languages that share the script, so it runs only when a suite declares
both; a reply of 4+ words is flagged when the detector names another of those languages with
confidence >= 0.6. The ``script`` verdict names the setting whenever it decided anything.

``tool_speech`` groups candidate messages by ``Message.turn`` (the caller turn they follow) and
flags a
turn with tool calls but no candidate speech anywhere in it, before or after the chain (a
call-ending
tool's concluding message counts as speech). A silent hang-up is a silent turn too.

``goodbye`` takes the last candidate speech at or before ``trace.end.after_message`` (whatever ended
the
call: the agent's end tool, the caller hanging up, the turn limit) and looks for a goodbye word with
``callbench.text.find_cue`` (word-start, case-folded, inflections allowed). The words are the
suite's
``defaults.caller_phrases[lang].goodbye`` — exactly what the scripted caller itself takes as the
agent's
goodbye, so grader and simulator agree — plus a small built-in list per language
(``GOODBYE_WORDS``), so a
suite without phrases for a language is still checked. When the call ended through a hand-off tool
(a name with transfer/handoff/escalate/forward/connect_to), announcing the hand-off ("transferring
you", "stay on the
line": ``HANDOFF_WORDS``) is the right close and counts. Thanks alone is not a goodbye (see
``GOODBYE_WORDS``): "धन्यवाद, नमस्ते" passes on its farewell, "આભાર, મેં નોંધી લીધું છે" does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from itertools import islice

from ..call.trace import Message, Trace
from ..spec import CONVERSATION_CHECK_IDS, Scenario, SuiteManifest
from ..text import find_cue, words
from .base import R_OF, CodeGrader, ItemVerdict, Label
from .scripts import (
    ACRONYM,
    DETECT_MIN_CONFIDENCE,
    DETECT_MIN_WORDS,
    LANGUAGE_DETECTORS,
    LANGUAGE_SCRIPTS,
    LINGUA_HINT,
    SCRIPT_SHARE,
    Detector,
    GradingSetupError,
    LanguageDetector,
    char_script,
    language_detector_function,
    lingua_available,
    lingua_detect,
    primary_language,
    script_counts,
    script_share,
)
from .speakable import (
    LONG_RUN,
    MAX_GROUP,
    MAX_NUMBER_FINDINGS,
    MAX_UNBROKEN,
    _snip,
    digit_script,
    is_emoji,
    unspeakable,
    unspoken_numbers,
)

__all__ = [
    "ACRONYM",
    "CHECK_IDS",
    "DETECT_MIN_CONFIDENCE",
    "DETECT_MIN_WORDS",
    "DIAGNOSTIC",
    "GOODBYE_WORDS",
    "HANDOFF_WORDS",
    "LANGUAGE_DETECTORS",
    "LANGUAGE_SCRIPTS",
    "LINGUA_HINT",
    "LONG_RUN",
    "MAX_EVIDENCE",
    "MAX_GROUP",
    "MAX_NUMBER_FINDINGS",
    "MAX_UNBROKEN",
    "SCRIPT_SHARE",
    "ConversationChecks",
    "Detector",
    "GradingSetupError",
    "LanguageDetector",
    "char_script",
    "digit_script",
    "goodbye_words",
    "is_emoji",
    "language_detector_function",
    "lingua_available",
    "lingua_detect",
    "primary_language",
    "script_counts",
    "script_share",
    "unspeakable",
    "unspoken_numbers",
]

MAX_EVIDENCE = 10
"""met verdicts cite at most this many checked indices (the detail gives the full count)"""

CHECK_IDS = CONVERSATION_CHECK_IDS
"""the verdict ids these checks emit, reserved in suites (defined once, in spec)"""

DIAGNOSTIC = {
    "speakable": "speakable_replies",
    "numbers_spoken": "speakable_replies",
    "script": "language_and_script",
    "tool_speech": "speech_around_tools",
    "goodbye": "closing",
}


# --- goodbyes
# ----------------------------------------------------------------------------------------

GOODBYE_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("bye", "goodbye", "take care", "have a good day"),
    "hi": ("नमस्ते", "अलविदा"),
    "gu": ("આવજો",),
}
"""Built in, added to the suite's `defaults.caller_phrases[lang].goodbye` (the words the scripted
caller
itself takes as the agent's goodbye), so a suite without phrases for a language is still checked.
Thanks (धन्यवाद, આભાર, "thank you") are not farewells: agents thank callers all through a call, and
a
do-nothing agent whose filler began "આભાર" earned the check when the caller hung up on it."""

HANDOFF_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("transfer", "connect", "put you through", "stay on the line", "hold the line"),
    "hi": ("ट्रांसफर", "जोड़", "लाइन पर बने"),
    "gu": ("ટ્રાન્સફર", "જોડ", "લાઇન પર રહ"),
}
"""When the call ended by a hand-off tool (a warm transfer), announcing the transfer is the right
close."""

_HANDOFF_TOOL = re.compile(r"transfer|handoff|hand_off|escalat|forward|connect_to", re.IGNORECASE)


def goodbye_words(language: str, suite: SuiteManifest | None) -> list[str]:
    found: list[str] = []
    phrases = suite.defaults.caller_phrases if suite is not None else {}
    for key in dict.fromkeys((language, primary_language(language))):
        if key in phrases:
            found += phrases[key].goodbye
    found += GOODBYE_WORDS.get(primary_language(language), ())
    return list(dict.fromkeys(w for w in found if w.strip()))


# --- the grader
# ----------------------------------------------------------------------------------------


class ConversationChecks(CodeGrader):
    """Deterministic checks of the agent's speech (see the module doc for every rule and why).

    `language_detector` ("script" or "lingua", see LANGUAGE_DETECTORS) decides whether languages
    sharing a script (Hindi and Marathi) are told apart; the `script` verdict's detail names the
    detector that graded it. `detector`, a callable `(text, codes) -> (code, confidence) | None`,
    replaces the named one (tests use a fake); it is recorded as "custom".
    """

    name = "conversation_checks"

    def __init__(
        self, language_detector: LanguageDetector = "script", detector: Detector | None = None
    ):
        chosen = language_detector_function(language_detector)
        self.detector: Detector | None = detector if detector is not None else chosen
        self.language_detector: str = (
            language_detector
            if detector is None or detector is chosen
            else "lingua"
            if detector is lingua_detect
            else "custom"
        )
        """The setting that graded, recorded in the `script` verdict when it decides anything."""

    def grade(
        self, trace: Trace, scenario: Scenario, suite: SuiteManifest | None = None
    ) -> list[ItemVerdict]:
        language = scenario.language
        speech = [m for m in trace.messages if m.role == "candidate" and m.text and m.text.strip()]
        silent = not speech
        out = [
            self._speakable(speech, silent),
            self._numbers(speech, silent, language),
            self._script(speech, silent, language, suite),
            self._tool_speech(trace, silent),
            self._goodbye(trace, speech, silent, language, suite),
        ]
        return out

    # each check -----------------------------------------------------------------------------------

    def _per_message(
        self,
        check: str,
        speech: list[Message],
        silent: bool,
        find: Callable[[str], list[str]],
        what: str,
    ) -> ItemVerdict:
        if silent:
            return self._silent(check)
        bad = [(m.index, found) for m in speech if (found := find(m.text or ""))]
        if not bad:
            return self._met(
                check, [m.index for m in speech], f"{len(speech)} replies checked, {what}"
            )
        detail = "; ".join(f"#{i}: {', '.join(f)}" for i, f in bad)
        return self._counted(
            check, [i for i, _ in bad], f"{len(bad)} of {len(speech)} replies: {detail}"
        )

    def _speakable(self, speech: list[Message], silent: bool) -> ItemVerdict:
        return self._per_message(
            "speakable", speech, silent, unspeakable, "no markdown, bullets, URLs, tables or emoji"
        )

    def _numbers(self, speech: list[Message], silent: bool, language: str) -> ItemVerdict:
        expected = LANGUAGE_SCRIPTS.get(primary_language(language))
        return self._per_message(
            "numbers_spoken",
            speech,
            silent,
            lambda t: unspoken_numbers(t, expected),
            "no digit strings a voice would misread",
        )

    def _script(
        self, speech: list[Message], silent: bool, language: str, suite: SuiteManifest | None
    ) -> ItemVerdict:
        lang = primary_language(language)
        expected = LANGUAGE_SCRIPTS.get(lang)
        if expected is None:
            return self._verdict(
                "script", "not_measured", [], f"no script is known for language '{language}'"
            )
        if silent:
            return self._silent("script")
        checked: list[int] = []
        bad: list[tuple[int, str]] = []
        for m in speech:
            share, counts = script_share(m.text or "", expected)
            if share is None:
                continue
            checked.append(m.index)
            if share < SCRIPT_SHARE:
                mix = ", ".join(
                    f"{s} {n}" for s, n in sorted(counts.items(), key=lambda kv: -kv[1])
                )
                bad.append((m.index, f"{share:.0%} {'/'.join(sorted(expected))} ({mix})"))
        if not checked:
            return self._verdict(
                "script",
                "not_met",
                [m.index for m in speech][:MAX_EVIDENCE],
                "no reply had any letters to check",
            )
        note, wrong_language = self._language_subcheck(
            speech, lang, expected, suite, {i for i, _ in bad}
        )
        bad += wrong_language
        bad.sort()
        if not bad:
            return self._met(
                "script",
                checked,
                f"{len(checked)} replies checked, each at least {SCRIPT_SHARE:.0%} "
                f"{'/'.join(sorted(expected))}{note}",
            )
        detail = "; ".join(f"#{i}: {d}" for i, d in bad)
        return self._counted(
            "script",
            [i for i, _ in bad],
            f"{len(bad)} of {len(checked)} replies not in '{lang}' ({'/'.join(sorted(expected))}): "
            f"{detail}{note}",
        )

    def _language_subcheck(
        self,
        speech: list[Message],
        lang: str,
        expected: frozenset[str],
        suite: SuiteManifest | None,
        already: set[int],
    ) -> tuple[str, list[tuple[int, str]]]:
        """Languages sharing the agent's script (Hindi and Marathi): told apart by the detector,
        among the
        suite's own languages only. Skipped, and said so, when there is no detector or nothing to
        tell apart."""
        siblings = sorted(
            {
                primary_language(c)
                for c in (suite.languages if suite else [])
                if LANGUAGE_SCRIPTS.get(primary_language(c)) == expected
            }
            | {lang}
        )
        if len(siblings) < 2:
            return "", []
        if self.detector is None:
            return (
                f"; {'/'.join(siblings)} not told apart (no language detector: language_detector "
                f"{self.language_detector!r}; 'lingua' tells them apart)",
                [],
            )
        found: list[tuple[int, str]] = []
        for m in speech:
            text = m.text or ""
            if (
                m.index in already
                or next(islice(words(text), DETECT_MIN_WORDS - 1, None), None) is None
            ):
                continue
            result = self.detector(text, siblings)
            if result is None:
                continue
            code, confidence = result
            if code != lang and code in siblings and confidence >= DETECT_MIN_CONFIDENCE:
                found.append(
                    (m.index, f"reads as '{code}', not '{lang}' (confidence {confidence:.2f})")
                )
        return (
            f"; language told apart among {'/'.join(siblings)} "
            f"(language_detector {self.language_detector!r})",
            found,
        )

    def _tool_speech(self, trace: Trace, silent: bool) -> ItemVerdict:
        turns: dict[int, list[Message]] = {}
        for m in trace.messages:
            if m.role == "candidate":
                turns.setdefault(m.turn, []).append(m)
        tool_turns = {t: ms for t, ms in turns.items() if any(m.tool_calls for m in ms)}
        if silent:
            return self._silent(
                "tool_speech", [m.index for ms in tool_turns.values() for m in ms if m.tool_calls]
            )
        silent_turns = {
            t: ms for t, ms in tool_turns.items() if not any(m.text and m.text.strip() for m in ms)
        }
        if not silent_turns:
            checked = [m.index for ms in tool_turns.values() for m in ms if m.tool_calls]
            what = (
                f"{len(tool_turns)} turns with tool calls, each with speech"
                if tool_turns
                else "no tool calls"
            )
            return self._met("tool_speech", checked, what)
        evidence = [m.index for ms in silent_turns.values() for m in ms if m.tool_calls]
        detail = "; ".join(
            f"turn {t}: "
            + ", ".join(
                f"#{m.index} {'+'.join(c.name for c in m.tool_calls)}" for m in ms if m.tool_calls
            )
            for t, ms in sorted(silent_turns.items())
        )
        return self._counted(
            "tool_speech",
            evidence,
            f"{len(silent_turns)} of {len(tool_turns)} turns ran tools with no speech: {detail}",
            violations=len(silent_turns),
        )

    def _goodbye(
        self,
        trace: Trace,
        speech: list[Message],
        silent: bool,
        language: str,
        suite: SuiteManifest | None,
    ) -> ItemVerdict:
        if trace.end is not None and trace.end.reason == "infrastructure":
            return self._verdict(
                "goodbye", "not_measured", [], "the harness cut the call (infrastructure failure)"
            )
        goodbyes = goodbye_words(language, suite)
        if not goodbyes:
            return self._verdict(
                "goodbye",
                "not_measured",
                [],
                f"no goodbye words are known for language '{language}'",
            )
        if silent:
            return self._silent("goodbye")
        end_at = (
            trace.end.after_message
            if trace.end is not None and trace.end.after_message is not None
            else None
        )
        before_end = [m for m in speech if end_at is None or m.index <= end_at]
        if not before_end:
            return self._verdict(
                "goodbye", "not_met", [], "the agent said nothing before the call ended"
            )
        last = before_end[-1]
        ending = next((e for e in reversed(trace.tool_events) if e.ended_call), None)
        handoff = ending is not None and bool(_HANDOFF_TOOL.search(ending.name))
        accepted = goodbyes + (
            list(HANDOFF_WORDS.get(primary_language(language), ())) if handoff else []
        )
        hit = next((w for w in accepted if find_cue(w, last.text or "")), None)
        how = f"call ended by {trace.end.reason}" if trace.end else "call ended"
        if handoff:
            how += f" (hand-off via {ending.name})"  # type: ignore[union-attr]
        if hit:
            return self._met(
                "goodbye", [last.index], f"last reply #{last.index} says {hit!r}; {how}"
            )
        return self._verdict(
            "goodbye",
            "not_met",
            [last.index],
            f"last reply #{last.index} before the end has no goodbye "
            f"({_snip(last.text or '', 60)!r}); "
            f"{how}; accepted: {', '.join(accepted)}",
        )

    # verdict helpers
    # ----------------------------------------------------------------------------------

    def _verdict(
        self, check: str, label: Label, evidence: Iterable[int], detail: str
    ) -> ItemVerdict:
        return ItemVerdict(
            id=check,
            kind="check",
            pillar="conversation",
            weight=1,
            label=label,
            r=R_OF.get(label),
            grader=self.name,
            diagnostic=DIAGNOSTIC[check],
            evidence=list(evidence),
            detail=detail,
        )

    def _met(self, check: str, checked: list[int], detail: str) -> ItemVerdict:
        return self._verdict(check, "met", checked[:MAX_EVIDENCE], detail)

    def _counted(
        self, check: str, violating: list[int], detail: str, violations: int | None = None
    ) -> ItemVerdict:
        n = len(violating) if violations is None else violations
        return self._verdict(check, "partial" if n == 1 else "not_met", violating, detail)

    def _silent(self, check: str, evidence: Iterable[int] = ()) -> ItemVerdict:
        return self._verdict(
            check,
            "not_met",
            evidence,
            "the agent never spoke: silence passes no conversation check",
        )
