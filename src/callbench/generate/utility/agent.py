"""The billing line's agent definition: its tools and the policy figures its manual quotes.

The manual (`instructions.md` in the suite) names every policy figure by a `{{placeholder}}`; the
values are written into agent.yaml's `variables` from `backends.utility.policy`, so the manual, the
services and the task generator cannot drift apart.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

from ...backends.utility import policy
from ..utility.parts import say_money
from .render import AGENT_ID, AGENT_NAME, COMPANY


def policy_variables() -> dict[str, str]:
    caps = dict(policy.TERM_CAPS)
    return {
        "company": COMPANY,
        "agent_name": AGENT_NAME,
        "min_arrears": say_money(policy.MIN_ARREARS),
        "min_term_months": str(policy.MIN_TERM_MONTHS),
        "cap_up_to_150": str(caps[150]),
        "cap_151_to_250": str(caps[250]),
        "cap_251_to_300": str(caps[300]),
        "cap_default": str(policy.DEFAULT_TERM_CAP),
        "broken_down_percent": f"{int(policy.BROKEN_DOWN_SHARE * 100)}%",
        "lookback_months": str(policy.LOOKBACK_MONTHS),
        "winter_start": "December 1",
        "winter_end": "March 31",
        "winter_max_percent": f"{policy.WINTER_MAX_FPL}%",
        "extension_min_days": str(policy.EXTENSION_MIN_DAYS),
        "extension_max_days": str(policy.EXTENSION_MAX_DAYS),
        "transfer_min_outstanding": say_money(policy.TRANSFER_MIN_OUTSTANDING),
        "transfer_min_days": str(policy.TRANSFER_MIN_DAYS_PAST_DUE),
        "verify_attempts": str(policy.VERIFY_ATTEMPTS),
    }


def tools() -> list[dict[str, Any]]:
    text = resources.files(__package__).joinpath("tools.yaml").read_text(encoding="utf-8")
    loaded: list[dict[str, Any]] = yaml.safe_load(text)
    return loaded


def agent_definition() -> dict[str, Any]:
    return {
        "id": AGENT_ID,
        "name": f"{COMPANY} residential billing line",
        "language": "en",
        "direction": "inbound",
        "instructions": "instructions.md",
        "variables": policy_variables(),
        "tools": tools(),
    }
