"""The prompts of `callbench generate scenarios`, and their hashes for the manifest.

Three templates: the system prompt (what a scenario is and the rules the checks enforce), the
request for one scenario (the agent's whole definition, the targets of this draft), and the repair
note (the exact problems the checks found). Their sha256 goes into the manifest, so a suite says
which wording wrote it; changing a word here changes the hash.
"""

from __future__ import annotations

import hashlib

from .source import AgentSource

SYSTEM = """\
You write test scenarios for a phone-agent benchmark (callbench). A scenario is one simulated \
phone call between a caller and the agent whose operating documents you are given. It is read \
by different parts of the harness: the caller reads only `caller`; the agent under test reads \
its own instructions and `call_context`; the tool backend reads `backend`; graders read \
`expected_actions`, `spoken_checks`, `criteria`; an oracle plays `reference` to prove the \
scenario solvable.

Reply with ONE JSON object, no prose, with these keys:
- id (lowercase-hyphenated, new), agent, title, language, difficulty (easy|medium|hard), tags
- call_context: what the deployment knows when the call starts (e.g. caller_phone, current_time)
- caller: {context, reason, knows: {fact: value}, does_not_know: [...], persona: {patience: \
low|medium|high, verbosity: terse|normal|chatty, mood: calm|angry|anxious|confused, notes}, \
datetime (ISO 8601 with offset), plan: [{id, trigger, meaning, say, cue: [words]}]}
- backend: {kind: "queue", hidden: {...}, queues: {tool: [{expect: {arg: matcher}, respond: \
{...}, mismatch: {...}}]}, defaults: {tool: response}} -- or {kind: "state", ...} when the \
agent has state_tools. Give every agent tool a default response.
- channel: {seeded_first_turn: bool, events: [{step, kind: substitute|drop|double|split, ...}]} \
where speech damage is apt
- expected_actions: [{id, tool, description, args: {arg: matcher}, count: {exactly|min|max}, \
after: [action or plan step ids], weight: 1-3, guard: bool}]
- spoken_checks: [{id, kind: amount|number|date|identifier, value, topic: [words], after, \
before, must: state|not_state, weight}] (optional)
- criteria: [{id, pillar: task, weight, statement, anchors: {met, partial, not_met}, \
excerpts: [sentences copied VERBATIM from the instructions]}]
- reference: [{say, calls: [{tool, args}], same_turn: bool}]: one entry per agent message

Matchers: {eq: v}, {one_of: [...]}, {regex: "..."}, {range: {min, max}}, {present: true}, \
{contains: [...]}, {subset: {...}}. Values may reference ${caller.knows.x} and ${hidden.x}.

Rules the checks enforce:
- Write everything in the agent's language from the start (the caller's lines, the reference, \
the criteria); never write in another language and translate.
- The scripted caller fires plan step N only when the agent's turn ENDS with a question or \
request containing one of step N's cue words; the first step may have no cues (it answers the \
greeting). Each `say` line is at most 15 words where possible and states only that step's facts.
- The reference must walk the whole plan: every agent turn at most 80 words, ending with the \
question that fires the next step, and the call must end with a successful call-ending tool.
- Every expected action must be met by the reference calls (same arguments); every value an \
action pins must be said by the caller, returned by a tool, or in call_context.
- A `must: state` spoken check needs `after` or `before`, and its value must not be printed in \
the instructions or tool descriptions.
- Criteria excerpts must occur word for word in the instructions.
- Never put a hidden backend value in the caller's brief unless the caller really knows it.
"""

REQUEST = """\
Write scenario {number} of {count} for the agent below.

Targets for this scenario: difficulty `{difficulty}`{track_line}. Language: `{language}` (the \
agent's language; write in it from the start). Agent id: `{agent}`.
Scenario ids already taken (write a different situation): {taken}.

=== agent.yaml (tools with their parameter schemas{state_note}) ===
{agent_yaml}
=== instructions (whole, as the agent reads them) ===
{instructions}
=== end of instructions ===
{example}
Reply with the scenario as one JSON object.
"""

EXAMPLE = """
=== an existing scenario of this agent, for the format only (YAML; write a DIFFERENT call) ===
{text}
=== end of example ===
"""

REPAIR = """\
That draft did not pass the checks. The problems, exactly as the checks report them:
{reason}
Fix every one of them and reply with the whole corrected scenario as one JSON object."""

TEMPLATES = {"system": SYSTEM, "request": REQUEST, "example": EXAMPLE, "repair": REPAIR}


def prompt_hashes() -> dict[str, str]:
    """Template name -> sha256 of its text, for the manifest."""
    return {name: hashlib.sha256(text.encode()).hexdigest() for name, text in TEMPLATES.items()}


def example_for(agent: AgentSource) -> tuple[str, str] | None:
    """The shortest existing scenario of the agent (file name, text), shown for the format."""
    if not agent.examples:
        return None
    name = min(agent.examples, key=lambda n: (len(agent.examples[n]), n))
    return name, agent.examples[name]


def request_text(
    agent: AgentSource,
    *,
    number: int,
    count: int,
    difficulty: str,
    track: str | None,
    taken: list[str],
    example: str | None,
) -> str:
    return REQUEST.format(
        number=number,
        count=count,
        difficulty=difficulty,
        track_line=(f", track `{track}` (add the tag `track:{track}`)" if track else ""),
        language=agent.language,
        agent=agent.id,
        taken=", ".join(taken) if taken else "none",
        state_note=", and state_tools" if agent.definition.state_tools else "",
        agent_yaml=agent.agent_yaml.rstrip(),
        instructions=agent.instructions.rstrip(),
        example=EXAMPLE.format(text=example.rstrip()) if example else "",
    )


__all__ = ["REPAIR", "REQUEST", "SYSTEM", "TEMPLATES", "example_for", "prompt_hashes"]
