"""The spray baseline: a no-model script that tries hard to game a suite.

`shortcut` asks sensible questions and fills tools literally; `spray` does what
a user probing a benchmark for cheap points does, using only the candidate's
view (instructions, tools, call context, what the caller said, tool results):

* it greets with a question, then recites everything a listening script might
  fire on: generic questions, its own instructions and tool descriptions,
  refusal sentences naming every tool's topic and (once verified) every value
  its tools returned; when the caller does not follow a recital it switches to
  one short question a turn: identity details one at a time, then each result
  field read back as a question, the caller's own words echoed, each action
  offered by name, consent, "anything else", refusals and generic questions;
* it brute-forces the verification tool with every combination of the
  identifiers, digits, names and dates it heard, and when a refusal names the
  wrong argument it keeps the others and tries that one's next value;
* it calls every other tool with every identifier it heard or can synthesise
  (a heard id's tail on the parameter's stem, the caller's words joined into
  codes), amounts the caller just said, enum values it heard or was told,
  look-ups first and tools described as not always available last, one at a
  time; and it ends through the call-ending tool the caller asked for.

A suite is sound when this script stays near the no-op floor. The gameability
figure of a suite is max(shortcut, spray) - noop on the task pillar.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from ..call.types import CandidateStep, ToolCall
from ..spec import ToolSpec
from ..text import fold
from .base import CandidateView
from .phrases import phrases
from .spray_words import GENERIC_ASKS, REFUSALS, evidence_values, rank, tool_results

VERIFY_NAMES = (
    "verif",
    "authenticat",
    "identif",
    "validate_caller",
    "check_identity",
    "security_check",
    "passcode_check",
)
FAILED_WORDS = (
    "refused",
    "error",
    "not_found",
    "not_verified",
    "locked",
    "rejected",
    "mismatch",
    "failed",
    "denied",
    "invalid",
    "unsupported",
    "not_eligible",
)
LOOKUPS = ("get", "list", "lookup", "find", "search", "check", "fetch", "view", "read", "show")
IDLE_MARKERS = ("what was that", "still there", "pardon", "फिर से", "सुन रहे", "ફરી બોલો", "સંભળાય")
DONE_MARKERS = (
    "that's it",
    "that is it",
    "nothing else",
    "that's all",
    "no, thank",
    "no thank",
    "इतना ही",
    "और कुछ नहीं",
    "બસ એટલું",
    "બીજું કંઈ નહીં",
)
OMIT = object()
FAREWELLS = ("goodbye", "bye", "have a good", "take care", "नमस्ते", "अलविदा", "आवजो", "આવજો")
MAX_VERIFY_ATTEMPTS = 20
MAX_CALLS_PER_TOOL = 16
END_AFTER_TURNS = 20


def _failed(result: Any) -> bool:
    if not isinstance(result, dict):
        return True
    status = fold(str(result.get("status", "")))
    return any(w in status for w in FAILED_WORDS) or "reason" in result and status not in ("ok", "")


def _is_verifier(tool: ToolSpec) -> bool:
    return any(w in tool.name.lower() for w in VERIFY_NAMES)


class SprayCandidate:
    """Stateful per call: what it tried, which tools succeeded, whether a verification went
    through."""

    name = "spray"

    def __init__(self) -> None:
        self.tried: dict[str, list[str]] = {}
        self.done_tools: dict[str, int] = {}
        """tool -> caller turns heard when it last succeeded: a new figure from the caller makes it
        worth a retry"""
        self.verified = False
        self.dead: set[str] = set()
        self.turns = 0
        self.ending = False
        self.mode = "recital"
        """recital: everything at once; questions: one short question a turn, once a caller would
        not follow"""
        self.asked = 0
        self.said: set[str] = set()
        """questions built from this call (read-backs, echoes) already asked"""

    # --- the turn ---------------------------------------------------------------------------------
    async def step(self, view: CandidateView) -> CandidateStep:
        self._learn(view)
        caller = [m.text or "" for m in view.messages if m.role == "caller"]
        if (
            caller
        ):  # the whole latest caller turn (its fragments and any background line) as one text
            latest: list[str] = []
            for m in reversed(view.messages):
                if m.role != "caller":
                    break
                latest.insert(0, m.text or "")
            caller = caller[: len(caller) - len(latest)] + [" ".join(latest)] if latest else caller
        if view.in_tool_chain:
            calls = self._calls(view, budget=self._budget_left(view))
            if calls:
                return CandidateStep(tool_calls=tuple(calls))
            return CandidateStep(speech=self._speech(view, caller))
        self.turns += 1
        if (
            self.ending
            or self.turns >= END_AFTER_TURNS
            or caller
            and _asks_for_ending(view, caller[-1])
        ):
            return self._end(view)
        calls = self._calls(view, budget=10)
        if calls:  # while anything is left to try, keep trying
            return CandidateStep(speech=phrases(view.language)["wait"], tool_calls=tuple(calls))
        if self._should_end(caller):
            return self._end(view)
        return CandidateStep(speech=self._speech(view, caller))

    def _budget_left(self, view: CandidateView) -> int:
        used = 0
        for m in reversed(view.messages):
            if m.role == "caller":
                break
            if m.role == "candidate":
                used += len(m.tool_calls)
        return max(0, 10 - used)

    def _learn(self, view: CandidateView) -> None:
        calls = {c.id: c for m in view.messages if m.role == "candidate" for c in m.tool_calls}
        heard_by = {}  # tool message -> caller messages heard before it
        heard = 0
        for m in view.messages:
            heard += m.role == "caller"
            heard_by[id(m)] = heard
        for m, result in tool_results(view):
            heard = heard_by[id(m)]
            call = calls.get(m.tool_call_id)
            if (
                call is not None
                and isinstance(result, dict)
                and result.get("reason") == "unsupported"
            ):
                self.dead.add(call.name)
            if call is None or _failed(result):
                continue
            self.done_tools[call.name] = max(self.done_tools.get(call.name, 0), heard)
            tool = next((t for t in view.tools if t.name == call.name), None)
            if tool is not None and _is_verifier(tool):
                self.verified = True

    def _should_end(self, caller: list[str]) -> bool:
        if not caller:
            return False
        if self.ending:
            return True
        last = fold(caller[-1])
        idle = any(w in last for w in IDLE_MARKERS)
        finished = any(w in last for w in DONE_MARKERS)
        asking = self.mode == "questions" and self.asked < 12  # still questions left to try
        return idle and self.turns > 3 and not asking or finished or self.turns >= END_AFTER_TURNS

    def _end(self, view: CandidateView) -> CandidateStep:
        self.ending = True
        ev = evidence_values(view)
        asked = ev["text"]
        # the end tool the caller asked for by name ("transfer me"), else one named like an ending
        order = sorted(
            (t for t in view.tools if t.ends_call),
            key=lambda t: (
                not any(w in asked for w in re.split(r"[_\W]+", t.name) if len(w) > 4),
                "end" not in t.name,
            ),
        )
        for tool in order:
            tried = self.tried.setdefault(tool.name, [])
            for args in self._combos(tool, ev, prefer_resolved=True):
                raw = json.dumps(args, ensure_ascii=False, sort_keys=True)
                if raw not in tried:  # one at a time: the first that succeeds ends the call
                    tried.append(raw)
                    return CandidateStep(
                        speech=phrases(view.language)["goodbye"],
                        tool_calls=(ToolCall(name=tool.name, arguments=raw),),
                    )
        return CandidateStep(speech=phrases(view.language)["goodbye"])

    # --- tool calls -------------------------------------------------------------------------------
    def _calls(self, view: CandidateView, budget: int) -> list[ToolCall]:
        """Verification first (brute force, alone), then lookups, then every other tool; each tool
        is tried
        with its next untried combination until the backend accepts one."""
        if budget <= 0 or not any(m.role == "caller" for m in view.messages):
            return []
        ev = evidence_values(view)
        tools = [
            t
            for t in view.tools
            if not t.ends_call
            and t.name not in self.dead
            and _worth_calling(t, self.done_tools, view)
        ]
        verifiers = [t for t in tools if _is_verifier(t)]
        if verifiers and not self.verified:
            tools = verifiers
        else:
            # lookups first, then the tools whose words the caller used ("refund", "dispute"); tools
            # described as
            # not always available go last, one at a time, in case calling an absent one ends the
            # call
            heard = set(re.findall(r"[a-z]{4,}", ev["text"]))
            tools = [t for t in tools if not _is_verifier(t)]
            tools.sort(
                key=lambda t: (
                    _risky(t),
                    not t.name.startswith(LOOKUPS),
                    -len(heard & _tool_words(t)),
                )
            )
        out: list[ToolCall] = []
        for tool in tools:
            if _risky(tool) and out:
                break
            limit = MAX_VERIFY_ATTEMPTS if _is_verifier(tool) else MAX_CALLS_PER_TOOL
            tried = self.tried.setdefault(tool.name, [])
            if (
                len(out) >= budget
                or len(tried) >= limit
                or _is_verifier(tool)
                and _lockout_near(view, tool)
            ):
                continue
            guided = self._guided(tool, ev, view)
            for args in ([guided] if guided else []) + list(
                itertools.islice(self._combos(tool, ev), 200)
            ):
                raw = json.dumps(args, ensure_ascii=False, sort_keys=True)
                if (
                    not tool.name.startswith(LOOKUPS)
                    and not _is_verifier(tool)
                    and not _fresh(tool, args, ev)
                ):
                    continue
                if raw not in tried:
                    tried.append(raw)
                    out.append(ToolCall(name=tool.name, arguments=raw))
                    # one new attempt per tool per round: this round's results inform the next
                    break
        return out[:budget]

    def _guided(
        self, tool: ToolSpec, ev: dict[str, Any], view: CandidateView
    ) -> dict[str, Any] | None:
        """When a refusal names the argument that was wrong, keep the others and try its next
        value."""
        last = _last_result(view, tool.name)
        if last is None:
            return None
        args, result = last
        props = tool.parameters.get("properties", {}) or {}
        blamed = next((p for p in props if _blames(result, p)), None)
        if blamed is None:
            return None
        tried = set(self.tried.get(tool.name, []))
        for value in rank(blamed, props[blamed] or {}, ev)[:25]:
            candidate = {**args, blamed: value}
            if json.dumps(candidate, ensure_ascii=False, sort_keys=True) not in tried:
                return candidate
        return None

    def _combos(self, tool: ToolSpec, ev: dict[str, Any], prefer_resolved: bool = False):
        props = tool.parameters.get("properties", {}) or {}
        required = list(tool.parameters.get("required", []) or [])
        optional = [p for p in props if p not in required]
        options = []
        for name in required + optional:
            values = rank(name, props.get(name, {}) or {}, ev, prefer_resolved=prefer_resolved)[:6]
            if (
                name not in required
            ):  # an optional argument is first left out, then filled like the rest
                values = [OMIT] + values[:3]
            if values:
                options.append((name, values))
            elif name in required:
                return
        if not options:
            yield {}
            return
        keys = [k for k, _ in options]
        # best-first over all parameters at once (sum of ranks), so a brute force varies every field
        ranked = sorted(
            itertools.product(*[range(len(v)) for _, v in options]), key=lambda ix: (sum(ix), ix)
        )
        for ix in ranked[:80]:
            args = {k: options[n][1][i] for n, (k, i) in enumerate(zip(keys, ix))}
            yield {k: v for k, v in args.items() if v is not OMIT}

    # --- speech -----------------------------------------------------------------------------------
    def _speech(self, view: CandidateView, caller: list[str]) -> str:
        if not caller:  # every agent opens with a greeting question, and so does this script
            return phrases(view.language)["greeting"]
        if self.mode == "recital" and len(caller) >= 2 and _lost(caller[-1]):
            self.mode = (
                "questions"  # the caller did not follow the recital: ask one thing at a time
            )
        return (
            self._recital(view, caller) if self.mode == "recital" else self._question(view, caller)
        )

    def _question(self, view: CandidateView, caller: list[str]) -> str:
        """One short question a turn. First the ones built from this call, which a scenario's cues
        may well be made
        of: each field of the latest tool results read back as a question ("The balance is 684.9, is
        that
        right?"), then the caller's own words echoed ("You mentioned SoundHub Online?"); then a
        fixed order
        (identity, each action by name, consent, anything else, arguments, refusals, generic
        asks)."""
        identity = (
            []
            if self.verified
            else [q for q in _question_list(view, identity_only=True) if q not in self.said]
        )
        fresh = identity + [q for q in _echoes(view, caller, self.verified) if q not in self.said]
        static = _question_list(view)
        if fresh:
            q = fresh[0]
            self.said.add(q)
        else:
            q = static[self.asked % len(static)]
            self.asked += 1
        return q

    def _recital(self, view: CandidateView, caller: list[str]) -> str:
        """Everything a listening script might fire on: questions, the instructions' words,
        refusals, results."""
        say = phrases(view.language)
        lang = view.language.split("-")[0]
        parts = [say["greeting"] if not caller else say["fillers"][0]]
        parts += GENERIC_ASKS.get(lang, []) + GENERIC_ASKS["en"]
        parts += [t.description for t in view.tools if t.description]
        for tool in view.tools:
            for name, schema in (tool.parameters.get("properties", {}) or {}).items():
                parts.append(
                    f"Could you tell me the {name.replace('_', ' ')}? "
                    f"{schema.get('description', '')}"
                )
        topics = sorted({w for t in view.tools for w in re.split(r"[_\W]+", t.name) if len(w) > 3})
        for cue in REFUSALS.get(lang, []) + REFUSALS["en"]:
            parts.append(f"I'm sorry, {cue} {' '.join(topics)}.")
        parts.append(view.instructions)
        if self.verified or not any(_is_verifier(t) for t in view.tools):
            parts += _readback(view)
        text = " ".join(p.strip() for p in parts if p and p.strip())
        # never a farewell before the script means to end: a listening caller would hang up
        return re.sub(
            r"[^.?!।]*(?:" + "|".join(map(re.escape, FAREWELLS)) + r")[^.?!।]*[.?!।]?",
            " ",
            text,
            flags=re.I,
        )


LOST_WORDS = (
    "sorry",
    "what",
    "pardon",
    "slow",
    "one thing",
    "too much",
    "too fast",
    "lost",
    "hello",
    "okay",
    "still there",
    "at once",
    "confus",
    "again",
    "repeat",
    "follow",
    "फिर",
    "समझ",
    "क्या",
    "सुन",
    "ધીમે",
    "શું",
    "ફરી",
    "સંભળાય",
)


def _lost(reply: str) -> bool:
    """The caller did not follow: a short reply of the confusion or idle kind, with no figure in
    it."""
    low = fold(reply)
    return (
        len(low.split()) <= 14 and not re.search(r"\d", low) and any(w in low for w in LOST_WORDS)
    )


def _echoes(view: CandidateView, caller: list[str], verified: bool) -> list[str]:
    """Questions made of what this call said: result fields once verified (or with no verifier),
    newest result
    first, then the caller's latest words (names, figures and their nouns)."""
    out: list[str] = []
    if verified or not any(_is_verifier(t) for t in view.tools):
        results = [r for _, r in tool_results(view) if not _failed(r)]
        for result in reversed(
            results[-2:]
        ):  # the whole result read back in one question, then field by field
            values = [
                str(v)
                for k, v in _scalars(result)
                if k not in ("status", "message") and not isinstance(v, bool)
            ]
            packed = " ".join(", ".join(values).split()[:60])
            if values:
                out.append(f"Could you confirm these for me: {packed}?")
            for key, value in _scalars(result):
                if key in ("status", "message") or isinstance(value, bool):
                    continue
                out.append(f"The {key.replace('_', ' ')} is {value}, is that right?")
    substantive = [c for c in caller if not _lost(c)]
    if substantive:
        latest = substantive[-1]
        phrases_ = re.findall(
            r"[A-Z][\w'-]+(?: [A-Z][\w'-]+)*|\d[\d,.]*(?: \w+)?|\b\w{6,}\b", latest
        )
        first_words = {
            w for w in re.findall(r"(?:^|[.?!]\s+)([A-Z][\w'-]*)", latest)
        }  # capitalised only to open a sentence
        out += [
            f"You mentioned {p}?"
            for p in dict.fromkeys(phrases_)
            if len(p) > 2 and p not in first_words
        ][:6]
    return out[:12]


def _question_list(view: CandidateView, identity_only: bool = False) -> list[str]:
    """The order a script would ask in: identity one detail at a time, then each action offered by
    name, consent,
    anything else, each tool's other arguments, refusals, and generic questions."""
    lang = view.language.split("-")[0]
    verifiers = [t for t in view.tools if _is_verifier(t)]
    others = [t for t in view.tools if not _is_verifier(t) and not t.ends_call]
    writes = [t for t in others if not t.name.startswith(LOOKUPS)]

    def topic(tool: ToolSpec) -> str:
        return " ".join(w for w in re.split(r"[_\W]+", tool.name) if w)

    def params(tools: list[ToolSpec]) -> list[str]:
        return [
            f"Could you give me the {name.replace('_', ' ')}, please?"
            for t in tools
            for name in t.parameters.get("required", []) or []
        ]

    out = params(verifiers)
    if identity_only:
        return out
    out += [f"Would you like me to {topic(t)}?" for t in writes]
    out += ["Shall I go ahead?", "Is there anything else I can help you with?"]
    out += params(others)
    out += [f"I'm sorry, I can't {topic(t)} today. Is there anything else?" for t in writes]
    out += GENERIC_ASKS.get(lang, []) + GENERIC_ASKS["en"]
    return list(dict.fromkeys(out))


def _last_result(view: CandidateView, name: str) -> tuple[dict[str, Any], Any] | None:
    calls = {c.id: c for m in view.messages if m.role == "candidate" for c in m.tool_calls}
    for m in reversed(view.messages):
        if m.role == "tool" and m.tool_name == name and m.text and m.tool_call_id in calls:
            try:
                return json.loads(calls[m.tool_call_id].arguments), json.loads(m.text)
            except json.JSONDecodeError:
                return None
    return None


def _blames(result: Any, param: str) -> bool:
    """Does a refusal say which argument was wrong ("precondition": "arg_action_id", "the action id
    does not...")?"""
    if not _failed(result):
        return False
    text = fold(json.dumps(result, ensure_ascii=False))
    return param.lower() in text or param.replace("_", " ").lower() in text


def _asks_for_ending(view: CandidateView, text: str) -> bool:
    words = {
        w for t in view.tools if t.ends_call for w in re.split(r"[_\W]+", t.name) if len(w) > 4
    }
    return any(w in fold(text) for w in words)


def _fresh(tool: ToolSpec, args: dict[str, Any], ev: dict[str, Any]) -> bool:
    """A write that takes a figure or a date waits until the caller has just said one of its
    values."""
    props = tool.parameters.get("properties", {}) or {}
    figures = [
        k
        for k, p in props.items()
        if isinstance(p, dict) and (p.get("type") in ("integer", "number") or "date" in k.lower())
    ]
    if not figures:
        return True
    return any(args.get(k) in ev["fresh"] for k in figures)


def _worth_calling(tool: ToolSpec, done: dict[str, int], view: CandidateView) -> bool:
    """Untried or failed so far, or succeeded before the caller said another figure."""
    if tool.name not in done:
        return True
    later = [m.text or "" for m in view.messages if m.role == "caller"][done[tool.name] :]
    return any(re.search(r"\d", t) for t in later)


def _risky(tool: ToolSpec) -> bool:
    return "not available" in fold(tool.description)


def _tool_words(tool: ToolSpec) -> set[str]:
    return {
        w[:6]
        for w in re.findall(
            r"[a-z]{4,}", fold(tool.name.replace("_", " ") + " " + tool.description)
        )
    } | set(re.findall(r"[a-z]{4,}", fold(tool.name.replace("_", " "))))


def _lockout_near(view: CandidateView, tool: ToolSpec) -> bool:
    """Since the caller last spoke, did the verifier warn of a lockout? Then wait for new
    details."""
    for m in reversed(view.messages):
        if m.role == "caller":
            return False
        if m.role == "tool" and m.tool_name == tool.name and m.text:
            low = fold(m.text)
            if "lock" in low or re.search(r"attempts?_remaining\W+[01]\b", low):
                return True
    return False


def _readback(view: CandidateView) -> list[str]:
    lines = []
    for _, result in tool_results(view):
        if _failed(result):
            continue
        lines.append(" ".join(f"{k.replace('_', ' ')} {v}." for k, v in _scalars(result)))
    return lines


def _scalars(value: Any, prefix: str = ""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _scalars(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _scalars(v, prefix)
    elif value is not None:
        yield prefix, value
