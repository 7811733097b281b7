"""Player specs: ``"kind:key=value,w.feature=value"`` strings and their dict form."""

from __future__ import annotations

import json
from typing import Any

from harness.errors import SpecError


def parse(spec: str | dict[str, Any], primary: dict[str, str | None]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Split a spec into (kind, parameters, weights).

    ``primary`` maps each kind to the parameter that a bare value sets
    (``gbot:easy`` sets ``level``), or None.

    The dict form is ``{"kind": "alphabeta", "depth": 4, "weights": {"mobility": 2.5}}``;
    ``"w.mobility": 2.5`` is accepted beside ``weights``.

    Raises:
        SpecError: malformed text, an unknown kind (with the valid kinds), or
            a bare value for a kind that takes none.
    """
    if isinstance(spec, dict):
        data = dict(spec)
        kind = str(data.pop("kind", "") or "")
        table = data.pop("weights", {}) or {}
        if not isinstance(table, dict):
            raise SpecError(f"player spec {spec!r}: weights must be a table of feature = number")
        weights = dict(table)
        params: dict[str, Any] = {}
        for key, value in data.items():
            if key.startswith("w."):
                if key[2:] in weights:
                    raise SpecError(f"player spec {spec!r}: weight {key[2:]} given twice")
                weights[key[2:]] = value
            else:
                params[key] = value
    elif isinstance(spec, str):
        kind, _, rest = spec.strip().partition(":")
        params, weights = {}, {}
        for part in filter(None, (p.strip() for p in split_parts(spec, rest))):
            key, eq, value = part.partition("=")
            key, value = key.strip(), value.strip()
            if not eq:
                bare = primary.get(kind)
                if bare is None:
                    raise SpecError(f"player spec {spec!r}: {part!r} is not key=value")
                key, value = bare, part
            elif not key or not value:
                raise SpecError(f"player spec {spec!r}: {part!r} is not key=value")
            value = unquote(spec, value)
            target = weights if key.startswith("w.") else params
            name = key[2:] if key.startswith("w.") else key
            if name in target:
                raise SpecError(f"player spec {spec!r}: {key} given twice")
            target[name] = value
    else:
        raise SpecError(f"a player spec is a string or a table, not {type(spec).__name__}")
    if kind not in primary:
        raise SpecError(f"unknown player kind {kind!r}; valid kinds: {', '.join(sorted(primary))}")
    return kind, params, weights



def split_parts(spec: str, rest: str) -> list[str]:
    """Split the text after ``kind:`` at commas outside double-quoted values.

    Raises:
        SpecError: a double quote that is never closed.
    """
    parts, current = [], []
    quoted = escaped = False
    for char in rest:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char == ",":
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    if quoted:
        raise SpecError(f"player spec {spec!r}: a double quote is never closed")
    parts.append("".join(current))
    return parts


def unquote(spec: str, value: str) -> str:
    """A value as written: a double-quoted value is read as a JSON string.

    Raises:
        SpecError: a quoted value that is not a valid JSON string.
    """
    if not value.startswith('"'):
        return value
    try:
        text = json.loads(value)
    except json.JSONDecodeError:
        text = None
    if not isinstance(text, str):
        raise SpecError(f"player spec {spec!r}: {value} is not a valid quoted value")
    return text
