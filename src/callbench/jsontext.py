"""Finding the one JSON object a model was asked for inside whatever it actually wrote.

Models wrap JSON in code fences, prefix it with prose, or emit several
objects; the first object that has one of the expected keys wins.
"""

from __future__ import annotations

import json
import re
from typing import Any

FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def find_json_object(text: str, keys: tuple[str, ...]) -> dict[str, Any] | None:
    for chunk in [m.group(1) for m in FENCE.finditer(text)] + [text]:
        start = chunk.find("{")
        while start != -1:
            try:
                obj, _ = json.JSONDecoder().raw_decode(chunk[start:])
            except json.JSONDecodeError:
                start = chunk.find("{", start + 1)
                continue
            if isinstance(obj, dict) and any(k in obj for k in keys):
                return obj
            start = chunk.find("{", start + 1)
    return None
