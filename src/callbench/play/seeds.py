"""Every random choice derives from the run seed, the scenario id, the repeat index and the
component.

Hashing (rather than seeding one generator and drawing in order) keeps each
episode's randomness independent of which other episodes ran, in what order or
on which machine.
"""

from __future__ import annotations

import hashlib


def derive_seed(run_seed: int, *parts: object) -> int:
    text = ":".join([str(run_seed), *(str(p) for p in parts)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1
