"""A tool call's arguments as Reasonix's tools read them: a JSON object (spec §7).

Both agent tools (``remember``, ``memory``) take their arguments either decoded or as JSON
text; :func:`json_object` turns either into the mapping their type checks read, with
Reasonix's ``invalid arguments: …`` messages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["json_object"]


def json_object(raw: Mapping[str, Any] | str | bytes, error: type[Exception]) -> Mapping[str, Any]:
    """``raw`` as a JSON object (JSON text is decoded); anything else raises ``error``
    with an ``invalid arguments: …`` message."""
    data: Any = raw
    if isinstance(raw, (str, bytes)):
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise error(f"invalid arguments: {exc}") from None
    if not isinstance(data, Mapping):
        raise error("invalid arguments: expected a JSON object")
    return data
