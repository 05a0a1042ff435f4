"""The OpenVoiceCS oracle's text rules as callbench checks: grounding claims and privacy patterns.

* `grounding.required_claims` (`any_terms`) -> an earned phrase check (`must: say`) in the window
  after the scenario's last expected action, so the claim counts only once the thing it claims was
  done; skipped (and reported as dropped) when a term is printed in the agent's instructions, since
  reading them aloud would earn it;
* `grounding.forbidden_claims` and `privacy.forbidden_disclosures` (`patterns`) -> guards
  (`must: not_say`) over every agent message.

Policy and privacy *events* (identity_verified, pii_minimization, upsell_attempt...) name judgements
the source records out of band; they have no deterministic equivalent and are reported as dropped.
"""

from __future__ import annotations

import re
from typing import Any

from ..text import find_cue

_ESCAPED = re.compile(r"\\(.)")


def _literal(term: str) -> str | None:
    """A regex-escaped phrase ("\\$12") as the words it matches ("$12"); None when it is a real
    pattern."""
    plain = _ESCAPED.sub(r"\1", term)
    return None if re.search(r"[\[\]()*+?{}|^]", _ESCAPED.sub("", term)) else plain.strip() or None


def _pattern_ok(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def text_checks(
    oracle: dict[str, Any],
    instructions: str,
    last_action: str | None,
    converted: list[str],
    dropped: list[str],
) -> list[dict[str, Any]]:
    """The phrase checks for the oracle's grounding and privacy rules, in the source's order; what
    cannot be checked by its words is appended to `dropped`, what can to `converted`."""
    grounding = oracle.get("grounding") or {}
    privacy = oracle.get("privacy") or {}
    checks = _required_claims(grounding, instructions, last_action, converted, dropped)
    checks += _forbidden_patterns(grounding, privacy, converted, dropped)
    _drop_the_rest(grounding, privacy, dropped)
    seen: set[str] = set()
    for c in checks:  # ids must be unique within the scenario
        base, k = c["id"], 2
        while c["id"] in seen:
            c["id"], k = f"{base}_{k}", k + 1
        seen.add(c["id"])
    return checks


def _required_claims(
    grounding: dict[str, Any],
    instructions: str,
    last_action: str | None,
    converted: list[str],
    dropped: list[str],
) -> list[dict[str, Any]]:
    """Each required claim as an earned `say` check after the last expected action, so it counts
    only once the thing it claims was done; a claim whose term the instructions print is dropped,
    since reading them aloud would earn it."""
    checks: list[dict[str, Any]] = []
    for n, claim in enumerate(grounding.get("required_claims") or [], start=1):
        if not isinstance(claim, dict):
            continue
        name = str(claim.get("id") or f"claim{n}")
        terms = [t for t in (_literal(str(x)) for x in claim.get("any_terms") or []) if t]
        printed = [t for t in terms if find_cue(t, instructions)]
        if not terms:
            dropped.append(f"oracle.grounding.required_claims {name}: no literal term to look for")
        elif printed:
            dropped.append(
                f"oracle.grounding.required_claims {name} (any of {terms}): {printed} printed in "
                "the agent's instructions, so a recital would earn it; not graded"
            )
        elif last_action is None:
            dropped.append(
                f"oracle.grounding.required_claims {name}: no expected action to anchor its window "
                "on"
            )
        else:
            checks.append(
                {
                    "id": _slug(f"says_{name}"),
                    "description": f"grounding claim '{name}'",
                    "terms": terms,
                    "must": "say",
                    "after": last_action,
                    "weight": 1,
                }
            )
            converted.append(
                f"oracle.grounding.required_claims {name} -> phrase check (any of {terms}, said "
                f"after '{last_action}' in a turn a caller could follow)"
            )
    return checks


def _forbidden_patterns(
    grounding: dict[str, Any],
    privacy: dict[str, Any],
    converted: list[str],
    dropped: list[str],
) -> list[dict[str, Any]]:
    """Forbidden claims and disclosures as `not_say` guards over every agent message; a pattern
    Python cannot compile is left out rather than guessed at."""
    forbidden = [
        (f"claim {c.get('id')}", c.get("patterns"))
        for c in grounding.get("forbidden_claims") or []
        if isinstance(c, dict)
    ]
    forbidden += [
        (f"disclosure {d.get('id')}", d.get("patterns"))
        for d in privacy.get("forbidden_disclosures") or []
        if isinstance(d, dict)
    ]
    checks: list[dict[str, Any]] = []
    for what, patterns in forbidden:
        usable = [str(p) for p in patterns or [] if isinstance(p, str) and _pattern_ok(p)]
        if not usable:
            dropped.append(f"forbidden {what}: no usable pattern")
            continue
        checks.append(
            {
                "id": _slug(f"never_{what.split()[-1]}"),
                "description": f"forbidden {what}",
                "patterns": usable,
                "must": "not_say",
                "weight": 2,
            }
        )
        converted.append(
            f"forbidden {what} -> a guard: patterns {usable} never in any agent message"
        )
    return checks


def _drop_the_rest(grounding: dict[str, Any], privacy: dict[str, Any], dropped: list[str]) -> None:
    """Hallucination budgets, privacy events and unknown keys: named as dropped, never lost."""
    if "max_hallucinations_per_turn" in grounding:
        dropped.append(
            "oracle.grounding.max_hallucinations_per_turn="
            f"{grounding['max_hallucinations_per_turn']}: "
            f"hallucination needs a judge; not graded"
        )
    for key in sorted(
        set(grounding) - {"required_claims", "forbidden_claims", "max_hallucinations_per_turn"}
    ):
        dropped.append(f"oracle.grounding.{key}: not converted")
    for key in ("required_events", "forbidden_events"):
        if privacy.get(key):
            dropped.append(
                f"oracle.privacy.{key} {privacy[key]}: privacy events have no deterministic "
                "equivalent"
            )
    for key in sorted(
        set(privacy) - {"forbidden_disclosures", "required_events", "forbidden_events"}
    ):
        dropped.append(f"oracle.privacy.{key}: not converted")


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_").lower()
    return slug if slug and slug[0].isalpha() else f"c_{slug}"
