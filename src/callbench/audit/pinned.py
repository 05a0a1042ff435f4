"""Every argument value an expected action pins must reach the agent somehow.

A value pinned with `eq` is either said by the caller (a fact it knows, a line or meaning of its
plan, or words of its turns in the reference run), returned by a tool in the reference run
before the reference first sends it, handed
over in `call_context`, or given to the agent by its own definition (instructions, tool
descriptions, parameter enums: a fixed code such as a template name). A value from none of these
can only be guessed: no agent can be expected to pass the scenario.

The reference run is the oracle's, played once per scenario as `reference_check` plays it: the
scripted caller (or one that only acknowledges), no channel damage.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..call import Message, Trace
from ..candidates import OracleCandidate
from ..grading.spoken import Window
from ..grading.spoken_stated import stated
from ..play import Attempt, play_once
from ..reference_check import caller_for, quiet_suite
from ..spec import Scenario, Suite, make_scope, resolve
from ..spec.matchers import Eq
from ..spec.templates import TemplateError
from ..text import find_cue
from .matching import Haystack, leaves, value_text
from .scenario_checks import Add, brief_texts


def oracle_traces(suite: Suite, scenario_ids: list[str]) -> dict[str, Trace]:
    """The oracle's call on each scenario, undamaged (synchronous, like validation; inside a
    running event loop it runs on a helper thread)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_play_all(suite, scenario_ids))
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _play_all(suite, scenario_ids)).result()


async def _play_all(suite: Suite, scenario_ids: list[str]) -> dict[str, Trace]:
    quiet = quiet_suite(suite)
    out = {}
    for sid in scenario_ids:
        scenario = quiet.scenarios[sid]
        out[sid] = await play_once(
            quiet,
            Attempt("oracle", sid, 0),
            0,
            OracleCandidate(scenario),
            caller_for(quiet, scenario),
        )
    return out


def pinned_arguments(suite: Suite, sid: str, trace: Trace, add: Add) -> int:
    """Report each pinned argument value no source gives; returns how many pinned values were
    looked at."""
    sc = suite.scenarios[sid]
    spoken = [value_text(v) or "" for _, v in leaves(sc.caller.knows)]
    spoken += [text for _, text in brief_texts(sc)]
    spoken += [m.text or "" for m in trace.messages if m.role == "caller"]
    caller = Haystack(spoken)
    context = Haystack(value_text(v) or "" for _, v in leaves(sc.call_context))
    agent = suite.agents[sc.agent].definition
    given = Haystack([suite.agents[sc.agent].instructions])
    for tool in agent.tools:
        given.add([tool.description])
        for _, v in leaves(tool.parameters):
            given.add([value_text(v) or ""])
    fixed = (caller, context, given)
    scope = make_scope(sc.caller.knows, sc.backend.hidden)
    looked = 0
    for i, action in enumerate(sc.expected_actions):
        if action.count.forbids:
            continue  # what must never be sent need not be reachable
        for name, matcher in action.args.items():
            if not isinstance(matcher, Eq):
                continue  # `any: [absent, eq]` and the like leave the value optional
            try:
                value = resolve(matcher.eq, scope)
            except TemplateError:
                continue  # validate's finding
            sources = fixed + (_returned_before(trace, action.tool, name, value),)
            for path, leaf in leaves(value):
                if value_text(leaf) is None:
                    continue  # a yes/no or a null is a decision, not a value someone says
                looked += 1
                if not _reaches(name, leaf, sources, spoken, sc):
                    shown = name + "".join(f"[{p!r}]" for p in path)
                    add(
                        ("expected_actions", i, "args", name),
                        f"action '{action.id}' pins {action.tool}.{shown} = {leaf!r}, which the "
                        "caller never says, no tool returns before it in the reference run, and "
                        "neither the call context nor the agent's definition holds: no agent can "
                        "be expected to produce it",
                    )
    return looked


def _returned_before(trace: Trace, tool: str, name: str, value: Any) -> Haystack:
    """What tools returned in the reference run before it first sent `value` as `name` to `tool`
    (everything, when it never did): a value returned only afterwards came too late. A record's id
    is often its key (`lines: {L2: {...}}`), so keys count as returned too."""
    first = next(
        (
            e.index
            for e in trace.tool_events
            if e.name == tool and isinstance(e.arguments, dict) and e.arguments.get(name) == value
        ),
        None,
    )
    events = [e for e in trace.tool_events if first is None or e.index < first]
    found = Haystack(str(k) for e in events for p, _ in leaves(e.result) for k in p)
    found.add(value_text(v) or "" for e in events for _, v in leaves(e.result))
    return found


def _reaches(
    name: str, value: Any, sources: tuple[Haystack, ...], spoken: list[str], sc: Scenario
) -> bool:
    """Does `value` reach the agent from some source? An amount in cents (`amount_cents`) reaches it
    when its whole units are said ("a 248 dollar charge" gives 24800): converting is the agent's
    job."""
    forms = [value]
    if name.endswith("cents") and isinstance(value, int) and not isinstance(value, bool):
        forms.append(value / 100)
    return any(any(s.says(form) for s in sources) or _said_as(form, spoken, sc) for form in forms)


ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _said_as(value: Any, texts: list[str], sc: Scenario) -> bool:
    """Is `value` said in words in `texts`, the way a spoken check reads them: a date as "the
    twenty-first of November, 1965", a number as "four hundred"?"""
    if isinstance(value, str) and ISO_DATE.match(value):
        if _weekday_said(dt.date.fromisoformat(value), texts, sc):
            return True
        kinds = ["date"]
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        kinds = ["number", "amount"]
    else:
        return False
    page = Trace.model_construct(
        messages=[Message(index=i, role="caller", turn=i, text=t) for i, t in enumerate(texts) if t]
    )
    call_day = sc.caller.datetime.date()
    # a date said without its year ("the first of May") is read as its next occurrence: reading it
    # again from the value's own day finds it whatever year it is in
    todays = [call_day] + ([dt.date.fromisoformat(value)] if kinds == ["date"] else [])
    for kind in kinds:
        for today in todays:
            try:
                found = stated(
                    page,
                    value,
                    kind,
                    window=Window(speaker="caller"),
                    language=sc.language,
                    today=today,
                )
            except ValueError:
                continue
            if found.found:
                return True
    return False


WEEKDAYS: dict[str, tuple[tuple[str, ...], ...]] = {
    "en": (
        ("monday",),
        ("tuesday",),
        ("wednesday",),
        ("thursday",),
        ("friday",),
        ("saturday",),
        ("sunday",),
    ),
    "hi": (
        ("सोमवार",),
        ("मंगलवार",),
        ("बुधवार",),
        ("गुरुवार", "बृहस्पतिवार"),
        ("शुक्रवार",),
        ("शनिवार",),
        ("रविवार", "इतवार"),
    ),
    "mr": (("सोमवार",), ("मंगळवार",), ("बुधवार",), ("गुरुवार",), ("शुक्रवार",), ("शनिवार",), ("रविवार",)),
    "gu": (("સોમવાર",), ("મંગળવાર",), ("બુધવાર",), ("ગુરુવાર",), ("શુક્રવાર",), ("શનિવાર",), ("રવિવાર",)),
    "bn": (
        ("সোমবার",),
        ("মঙ্গলবার",),
        ("বুধবার",),
        ("বৃহস্পতিবার",),
        ("শুক্রবার",),
        ("শনিবার",),
        ("রবিবার",),
    ),
    "ta": (
        ("திங்கள்", "திங்கட்கிழமை", "திங்கக்கிழமை"),
        ("செவ்வாய்", "செவ்வாய்க்கிழமை"),
        ("புதன்", "புதன்கிழமை"),
        ("வியாழன்", "வியாழக்கிழமை"),
        ("வெள்ளி", "வெள்ளிக்கிழமை"),
        ("சனி", "சனிக்கிழமை"),
        ("ஞாயிறு", "ஞாயிற்றுக்கிழமை", "ஞாயித்துக்கிழமை"),
    ),
}
"""Weekday names the date reader does not resolve ("इस शनिवार", "this Saturday"): a weekday said
within the week after the call names one date, which an agent works out from the call's date."""


def _weekday_said(day: dt.date, texts: list[str], sc: Scenario) -> bool:
    ahead = (day - sc.caller.datetime.date()).days
    if not 0 <= ahead <= 7:
        return False
    names = WEEKDAYS.get(sc.language, ()) or ()
    options = names[day.weekday()] if names else ()
    options += WEEKDAYS["en"][day.weekday()]
    return any(find_cue(name, text) for name in options for text in texts)


__all__ = ["oracle_traces", "pinned_arguments"]
