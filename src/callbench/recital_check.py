"""Validation against recital: what a script could earn by saying back its own instructions.

A candidate is given its instructions and tool descriptions, so anything printed there is free to
say:
* a spoken check whose value is printed there (a worked example that uses the caller's own bill
  total) is
  met by reading the example aloud: an error;
* a phrase check whose term is printed there: an error;
* plan steps each with a cue printed in the instructions let a script walk the caller's plan by
  asking
  about each of their sentences: a warning naming the steps a recital reaches;
* a cue that answers for two steps makes a natural question confuse the scripted caller: a warning.

Separate from `spec.validation` because it needs the spoken-value parser and the text helpers.
"""

from __future__ import annotations

from typing import Any

from .call import Message, Trace
from .callers.hearing import Heard, cue_finder
from .errors import Problem
from .grading.spoken import Window
from .grading.spoken_stated import stated
from .spec import Suite, make_scope, resolve
from .spec.scenario import Scenario, SpokenCheck
from .spec.templates import TemplateError
from .spec.yamlio import YamlDocument, dotted
from .text import find_cue


def recital_problems(suite: Suite, docs: dict[str, YamlDocument]) -> list[Problem]:
    out: list[Problem] = []
    heard: dict[tuple[str, str], Heard] = {}
    for sid, sc in suite.scenarios.items():
        label = suite.scenario_files[sid]
        doc = docs.get(label)
        loaded = suite.agents.get(sc.agent)
        if loaded is None:
            continue
        agent = loaded.definition
        tool_text = " ".join(
            [t.description for t in agent.tools]
            + [
                str(p.get("description", ""))
                for t in agent.tools
                for p in (t.parameters.get("properties") or {}).values()
                if isinstance(p, dict)
            ]
        )
        printed = loaded.instructions + "\n" + tool_text

        def add(
            loc: tuple[str | int, ...],
            message: str,
            level: str = "error",
            label: str = label,
            doc: YamlDocument | None = doc,
        ) -> None:
            out.append(
                Problem(label, dotted(loc), message, doc.line_of(loc) if doc else None, level)
            )

        scope = make_scope(sc.caller.knows, sc.backend.hidden)
        for i, check in enumerate(sc.spoken_checks):
            if check.must != "state":
                continue
            try:
                value = resolve(check.value, scope)
            except TemplateError:
                continue  # reported by validation
            where = _printed_value(printed, value, check, sc)
            if where:
                add(
                    ("spoken_checks", i, "value"),
                    f"the value of spoken check '{check.id}' ({value}) is printed in the agent's "
                    "instructions or tool "
                    f"descriptions ({where!r}): reading them aloud would earn it; change the "
                    "example or the figure",
                )
        for i, phrase in enumerate(sc.phrase_checks):
            if phrase.must != "say":
                continue
            for k, term in enumerate(phrase.terms):
                if find_cue(term, printed):
                    add(
                        ("phrase_checks", i, "terms", k),
                        f"the phrase {term!r} is printed in the agent's instructions "
                        f"or tool descriptions: reading them aloud would earn it",
                    )
        walkable = []
        key = (sc.agent, sc.language)
        if key not in heard:  # the manual as the caller would hear it read, once per agent
            heard[key] = Heard.of(printed, sc.language)
        for step in sc.caller.plan[1:]:
            # one printed cue is enough to fire the step, found as the scripted caller finds it
            if not cue_finder(step.cue, sc.language)(heard[key]):
                break
            walkable.append(step.id)
        if len(walkable) >= 3 or (walkable and len(walkable) == len(sc.caller.plan) - 1):
            add(
                ("caller", "plan"),
                f"steps {walkable} can be walked by asking about words of the instructions "
                f"(each has a cue printed there): give a step only cues a real answer to this "
                f"caller would use",
                "warning",
            )
        for i, step in enumerate(sc.caller.plan):
            for k, cue in enumerate(step.cue):
                for other in sc.caller.plan[i + 1 :]:
                    if sorted(other.cue) != sorted(step.cue) and any(
                        find_cue(cue, o) or find_cue(o, cue) for o in other.cue
                    ):
                        add(
                            ("caller", "plan", i, "cue", k),
                            f"cue {cue!r} of step '{step.id}' also answers for step "
                            f"'{other.id}': asking for one would confuse the scripted "
                            f"caller",
                            "warning",
                        )
    return out


def _printed_value(printed: str, value: Any, check: SpokenCheck, sc: Scenario) -> str | None:
    """The words in `printed` that state `value` as the check would read them, or None."""
    # the printed text as one candidate message: `stated` reads only a trace's messages
    message = Message(index=0, role="candidate", turn=0, text=printed)
    page = Trace.model_construct(messages=[message])
    try:
        finding = stated(
            page,
            value,
            check.kind,
            tolerance=check.tolerance,
            unit=check.unit,
            window=Window(),
            language=sc.language,
            today=sc.caller.datetime.date(),
        )
    except ValueError:
        return None
    if not finding.found:
        return None
    return finding.value.text if finding.value is not None else str(value)
