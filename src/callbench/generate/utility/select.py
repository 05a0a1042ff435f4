"""Choosing the exam: the hardest admissible calls, by predicted success, under spread limits.

Each single-request case (a request kind on an account) gets a success probability; a call's
predicted success is the product over its requests. With stored runs the probabilities are fitted by
maximum likelihood to the calls' completions (every request of a call must succeed, so a call's
likelihood is the product for a pass and one minus it for a failure); a case no run has seen keeps
the proxy. Without runs the proxy is structural and documented here: every tool call the request
needs, every figure or phrase the agent must say, every consent it must get and a refusal it must
make out loud is a chance to fail.

    proxy = 0.97^tool_calls x 0.93^checks x 0.88^consents x (0.8 if a refusal)

The exam is then filled greedily from the lowest predicted success, with one ordering per set of
requests, at most `per_account` calls per account and `per_request` uses of a request kind (except
the common
balance and paperless questions), and the quota per number of requests, the four-request calls
first, since they need the most room under the limits. Calls that must end in a transfer are left
out: every exam call is
meant to be resolved by the agent (the transfer request stays in the admitted pool).
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from .parts import proxy_of
from .render import Task, play

QUOTA = {2: 6, 3: 30, 4: 64}
PER_ACCOUNT = 5
PER_REQUEST = 25
EXCLUDED_FROM_EXAM = {"transfer"}
COMMON = {"balance", "paperless_check"}

"""Requests nearly every caller can make, exempt from the per-request limit (as in the reference)"""

Case = tuple[str, str]
"""(account, request kind): a single-request case"""


def proxies(tasks: Iterable[Task]) -> dict[Case, float]:
    """The proxy of every case the tasks use, measured on the account as it stands when the
    request comes (a request may be valid only after an earlier one, such as stretching an
    arrangement once its overdue instalment is paid)."""
    out: dict[Case, float] = {}
    for task in tasks:
        if all((task.account, k) in out for k in task.kinds):
            continue
        parts, _ = play(task)
        for kind, part in zip(task.kinds, parts, strict=True):
            out.setdefault((task.account, kind), proxy_of(part))
    return out


def fit(outcomes: Iterable[tuple[Task, bool]], prior: Mapping[Case, float]) -> dict[Case, float]:
    """Maximum-likelihood success probabilities per case from call outcomes (gradient ascent on
    the logits, started at the prior, kept in [0.01, 0.99])."""
    data = list(outcomes)
    cases = sorted({(t.account, k) for t, _ in data for k in t.kinds})
    if not cases:
        return dict(prior)
    index = {c: i for i, c in enumerate(cases)}
    clip = lambda p: min(max(p, 0.01), 0.99)  # noqa: E731
    theta = np.array([math.log(clip(prior[c]) / (1 - clip(prior[c]))) for c in cases])
    incidence = np.zeros((len(data), len(cases)))
    for r, (t, _) in enumerate(data):
        for k in t.kinds:
            incidence[r, index[(t.account, k)]] = 1.0
    passed = np.array([ok for _, ok in data], dtype=bool)
    for _ in range(3000):
        p = 1 / (1 + np.exp(-theta))
        q = np.exp(incidence @ np.log(p))  # each call's predicted success
        # d log L / d theta_i over the calls holding case i: (1 - p_i) for a pass,
        # -q / (1 - q) * (1 - p_i) for a failure
        factor = np.where(passed, 1.0, -q / np.maximum(1 - q, 1e-9))
        grad = (incidence.T @ factor) * (1 - p)
        theta = np.clip(theta + 2.0 * grad / len(data), -4.6, 4.6)
    fitted = dict(prior)
    for c, i in index.items():
        fitted[c] = float(1 / (1 + math.exp(-theta[i])))
    return fitted


def predicted(task: Task, p: Mapping[Case, float]) -> float:
    return math.prod(p[(task.account, k)] for k in task.kinds)


@dataclass
class Exam:
    tasks: list[Task]
    predicted_mean: float
    source: str
    """'proxy' or 'fitted to N calls'"""

    def composition(self) -> dict[str, object]:
        kinds = Counter(k for t in self.tasks for k in t.kinds)
        return {
            "tasks": len(self.tasks),
            "by_requests": dict(sorted(Counter(len(t.kinds) for t in self.tasks).items())),
            "accounts": len({t.account for t in self.tasks}),
            "max_per_account": max(Counter(t.account for t in self.tasks).values()),
            "request_kinds": dict(sorted(kinds.items())),
            "starting_cases": len({(t.account, t.kinds[0]) for t in self.tasks}),
            "predicted_mean_success": round(self.predicted_mean, 3),
            "difficulty_from": self.source,
        }


def select(
    pool: Iterable[Task],
    p: Mapping[Case, float],
    source: str = "proxy",
    quota: Mapping[int, int] = QUOTA,
    per_account: int = PER_ACCOUNT,
    per_request: int = PER_REQUEST,
) -> Exam:
    seen: set[tuple[str, frozenset[str]]] = set()
    candidates = []
    for task in pool:
        if EXCLUDED_FROM_EXAM & set(task.kinds) or len(task.kinds) not in quota:
            continue
        key = (task.account, frozenset(task.kinds))
        if key in seen:
            continue
        seen.add(key)
        # ties (the same requests in another order score the same) fall to a stable hash
        candidates.append((predicted(task, p), zlib.crc32(task.id.encode()), task))
    candidates.sort(key=lambda c: (-len(c[2].kinds), c[0], c[1]))
    need = dict(quota)
    per_acct: Counter[str] = Counter()
    uses: Counter[str] = Counter()
    chosen: list[Task] = []
    for _, _, task in candidates:
        n = len(task.kinds)
        if need.get(n, 0) == 0 or per_acct[task.account] >= per_account:
            continue
        if any(uses[k] >= per_request for k in task.kinds if k not in COMMON):
            continue
        chosen.append(task)
        need[n] -= 1
        per_acct[task.account] += 1
        uses.update(task.kinds)
    if any(need.values()):
        raise ValueError(f"the admitted pool cannot fill the exam's quota; still needed: {need}")
    chosen.sort(key=lambda t: (len(t.kinds), t.id))
    mean = sum(predicted(t, p) for t in chosen) / len(chosen)
    return Exam(chosen, mean, source)
