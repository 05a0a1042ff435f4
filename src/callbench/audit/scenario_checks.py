"""Audits of one scenario read from its file alone: action dependencies, caller isolation, scripted
caller lines and excerpt hashes.

`callbench validate` already refuses an `after` that names nothing, an action after itself and a
cycle; here an `after` must also be reachable (no action can follow a forbidden action, which never
happens), and the caller's brief must not carry what only the backend should know.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from ..spec import Scenario, Suite, make_scope, normalize_space, resolve
from ..spec.templates import TemplateError
from ..spec.yamlio import YamlDocument, dotted
from ..text import word_count
from .findings import Finding
from .matching import Haystack, compact, leaves, says, value_text

LINE_WORDS = 15
"""A scripted caller line longer than this reads like a prepared statement, not a caller's turn:
real callers give one thing at a time and wait to be asked."""

SECRET_KEY = re.compile(
    r"(^|_)(pin|passcode|password|passphrase|otp|cvv|cvc|secret|token|security_answer|"
    r"security_code)(_|$)",
    re.IGNORECASE,
)
"""Keys of backend records whose values are secrets the caller has only if the brief says so."""

MIN_SECRET_CHARS = 3
"""Hidden values shorter than this (a "2", a "no") say nothing on their own in a brief."""

Add = Callable[..., None]


def adder(out: list[Finding], check: str, label: str, doc: YamlDocument | None) -> Add:
    def add(loc: tuple[str | int, ...], message: str, level: str = "error") -> None:
        line = doc.line_of(loc) if doc else None
        out.append(Finding(check, level, label, dotted(loc), message, line))

    return add


def dependencies(sc: Scenario, add: Add) -> int:
    """Every `after` must be reachable: an action after a forbidden action (count 0), or after an
    action that is itself unreachable, can never be met by a correct call. Returns how many
    `after` entries were looked at."""
    actions = {a.id: a for a in sc.expected_actions}
    steps = {s.id for s in sc.caller.plan}
    memo: dict[str, str | None] = {}

    def blocked(action_id: str, seen: frozenset[str]) -> str | None:
        """Why `action_id` can never happen (a chain ending at a forbidden action), or None."""
        if action_id in memo:
            return memo[action_id]
        action = actions[action_id]
        if action.count.forbids:
            return f"'{action_id}' is forbidden (count {action.count})"
        why = None
        for dep in action.after:
            if dep in actions and dep not in seen:  # cycles are validate's finding
                inner = blocked(dep, seen | {dep})
                if inner is not None:
                    why = f"'{dep}' cannot happen: {inner}" if dep != inner else inner
                    break
        memo[action_id] = why
        return why

    looked = 0
    for i, action in enumerate(sc.expected_actions):
        for k, dep in enumerate(action.after):
            looked += 1
            if dep in steps or dep not in actions or action.count.forbids:
                continue  # a plan step always comes; unknown names are validate's finding
            why = blocked(dep, frozenset({action.id, dep}))
            if why is not None:
                add(
                    ("expected_actions", i, "after", k),
                    f"action '{action.id}' waits for {why}: it can never be met",
                )
    return looked


def brief_texts(sc: Scenario) -> list[tuple[tuple[str | int, ...], str]]:
    """Every free text of the caller's brief (what an LLM caller is shown), templates resolved,
    with its field path."""
    c = sc.caller
    raw: list[tuple[tuple[str | int, ...], str]] = [
        (("caller", "context"), c.context),
        (("caller", "reason"), c.reason),
        (("caller", "persona", "notes"), c.persona.notes),
    ]
    raw += [(("caller", "does_not_know", i), t) for i, t in enumerate(c.does_not_know)]
    for i, step in enumerate(c.plan):
        raw += [
            (("caller", "plan", i, "trigger"), step.trigger),
            (("caller", "plan", i, "meaning"), step.meaning),
        ]
        if step.say:
            raw.append((("caller", "plan", i, "say"), step.say))
    scope = make_scope(c.knows, sc.backend.hidden)
    out = []
    for loc, text in raw:
        try:
            out.append((loc, str(resolve(text, scope))))
        except TemplateError:
            out.append((loc, text))  # an unresolvable reference is validate's finding
    return out


def secrets(sc: Scenario) -> list[tuple[str, Any]]:
    """(where, value) for every value only the backend should know: `backend.hidden`, and the
    secret-named fields (PINs, passcodes, security answers) of its records and options."""
    backend = sc.backend
    found = [("backend.hidden." + dotted(p), v) for p, v in leaves(backend.hidden)]
    for name in ("initial", "options", "queues", "defaults"):
        records = getattr(backend, name, None)
        if not records:
            continue
        records = records if isinstance(records, dict) else {}
        for p, v in leaves(_plain(records)):
            if any(isinstance(k, str) and SECRET_KEY.search(k) for k in p):
                found.append((f"backend.{name}." + dotted(p), v))
    return found


def _plain(value: Any) -> Any:
    """Pydantic models inside backend records (queue entries) as plain data."""
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def isolation(sc: Scenario, add: Add) -> int:
    """No hidden backend value in the caller's brief unless the caller knows it (`caller.knows`):
    a caller told a value the agent should find out can hand it over and make a lookup or a
    verification step pointless. Returns how many secret values were looked at (known ones
    included)."""
    knows = Haystack(value_text(v) or "" for _, v in leaves(sc.caller.knows))
    texts = brief_texts(sc)
    looked = 0
    for where, value in secrets(sc):
        text = value_text(value)
        if text is None or len(compact(text)) < MIN_SECRET_CHARS:
            continue
        looked += 1
        if knows.says(value):
            continue
        for loc, brief in texts:
            if says(brief, value):
                add(
                    loc,
                    f"the caller's brief contains {text!r} ({where}), which is not among the "
                    "facts the caller knows: the agent must find it out, or add it to "
                    "caller.knows",
                )
                break
    return looked


def caller_lines(scenario: Scenario, add: Add) -> int:
    """Scripted caller lines (`say`) over LINE_WORDS words: warnings."""
    scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
    for i, step in enumerate(scenario.caller.plan):
        if not step.say:
            continue
        try:
            text = str(resolve(step.say, scope))
        except TemplateError:
            text = step.say
        n = word_count(text)
        if n > LINE_WORDS:
            add(
                ("caller", "plan", i, "say"),
                f"the scripted line of step '{step.id}' has {n} words (over {LINE_WORDS}): a "
                "caller gives one thing at a time; split it into steps or shorten it",
                "warning",
            )
    return sum(1 for s in scenario.caller.plan if s.say)


def excerpt_hashes(suite: Suite, sid: str, label: str) -> list[dict[str, Any]]:
    """sha256 of every criterion excerpt (space-normalised, UTF-8), and whether it is verbatim in
    the agent's instructions: the record a reviewer and CI compare across versions."""
    sc = suite.scenarios[sid]
    rendered = (
        normalize_space(suite.agents[sc.agent].instructions) if sc.agent in suite.agents else ""
    )
    rows = []
    for i, crit in enumerate(sc.criteria):
        for k, excerpt in enumerate(crit.excerpts):
            text = normalize_space(excerpt)
            rows.append(
                {
                    "file": label,
                    "path": dotted(("criteria", i, "excerpts", k)),
                    "criterion": crit.id,
                    "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                    "verbatim": bool(rendered) and text in rendered,
                }
            )
    return rows
