"""Agreement between two raters on the same items, corrected for chance (Cohen's kappa).

Raw agreement flatters raters who both say "met" almost always; kappa asks how
much better than chance they agree, given how often each uses each label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any


def cohens_kappa(a: list[Hashable], b: list[Hashable]) -> float | None:
    """None when undefined (no items, or both raters used one identical label throughout)."""
    if len(a) != len(b):
        raise ValueError("both raters must label the same items")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    if expected == 1.0:
        return None
    return (observed - expected) / (1 - expected)


@dataclass
class Agreement:
    items: int
    agree: int
    rate: float | None
    kappa: float | None
    disagreements: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "agree": self.agree,
            "rate": None if self.rate is None else round(self.rate, 4),
            "kappa": None if self.kappa is None else round(self.kappa, 4),
            "disagreements": self.disagreements,
        }


def agreement(pairs: list[tuple[dict[str, Any], Hashable, Hashable]]) -> Agreement:
    """`pairs`: (what the item is, label from rater A, label from rater B)."""
    a = [p[1] for p in pairs]
    b = [p[2] for p in pairs]
    agree = sum(x == y for x, y in zip(a, b))
    return Agreement(
        items=len(pairs),
        agree=agree,
        rate=agree / len(pairs) if pairs else None,
        kappa=cohens_kappa(a, b),
        disagreements=[{**meta, "a": x, "b": y} for meta, x, y in pairs if x != y],
    )
