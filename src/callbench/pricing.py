"""Cost from a user-supplied price table (USD per million tokens). No prices are built in: they
change,
and a figure computed from a stale table would be worse than none."""

from __future__ import annotations

from typing import Any


def tokens_cost(
    price: dict[str, float] | None, prompt: int, cached: int, completion: int
) -> float | None:
    if not price:
        return None
    uncached = max(prompt - cached, 0)
    return (
        uncached * price.get("input", 0.0)
        + cached * price.get("cached_input", price.get("input", 0.0))
        + completion * price.get("output", 0.0)
    ) / 1e6


def card_cost(card: Any, prices: dict[str, dict[str, float]] | None) -> float:
    """What one scored call cost across its roles (roles without a price count as zero)."""
    total = 0.0
    for role, u in card.usage.items():
        cost = tokens_cost(
            (prices or {}).get(card.models.get(role) or ""),
            u.prompt_tokens,
            u.cached_tokens,
            u.completion_tokens,
        )
        total += cost or 0.0
    return total
