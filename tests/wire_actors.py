"""Fake-provider responders that behave sensibly: the oracle and the scripted caller, spoken over
HTTP.

They let end-to-end tests drive the real LLM candidate and LLM caller code
paths (prompt building, JSON parsing, validation, usage) through the real
OpenAI client, with known-good behaviour on the other side.
"""

import json
import re

from callbench.spec import make_scope, resolve
from callbench.text import find_cue


def oracle_responder(scenario):
    scope = make_scope(scenario.caller.knows, scenario.backend.hidden)
    entries = scenario.reference

    def respond(body):
        msgs = body["messages"]
        position = sum(1 for m in msgs if m["role"] == "assistant")
        in_chain = msgs[-1]["role"] == "tool"
        if position >= len(entries) or entries[position].same_turn != in_chain:
            return {"text": ""}
        e = entries[position]
        return {
            "text": resolve(e.say, scope) if e.say else None,
            "tool_calls": [{"name": c.tool, "arguments": resolve(c.args, scope)} for c in e.calls],
        }

    return respond


def caller_responder(scenario, phrases):
    plan = {s.id: s for s in scenario.caller.plan}
    scope = make_scope(scenario.caller.knows, {})

    def respond(body):
        system = body["messages"][0]["content"]
        heard = body["messages"][-1]["content"]
        m = re.search(r"The next step you may express: ([^\s]+)\.", system)
        if m:
            step = plan[m.group(1)]
            opening = (
                not step.cue and step is scenario.caller.plan[0]
            )  # answers the greeting question
            if opening or any(find_cue(c, heard) for c in step.cue):
                return json.dumps(
                    {"say": resolve(step.say, scope), "step": step.id, "done": False},
                    ensure_ascii=False,
                )
        elif any(find_cue(c, heard) for c in phrases.goodbye):
            return json.dumps(
                {"say": phrases.closing, "step": None, "done": True}, ensure_ascii=False
            )
        return json.dumps({"say": phrases.idle[0], "step": None, "done": False}, ensure_ascii=False)

    return respond
