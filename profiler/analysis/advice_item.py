"""One piece of advice as session.json saves it (`arms[].advice[]`, docs/session-format.md):
what advice.py and grad_mode.py build and session/document.py writes; a saved session's reader
reads it back typed as model/arm.py's `Advice`."""

from __future__ import annotations

from typing import Any, TypedDict


class SavedAdvice(TypedDict):
    """Its kind, the cause in the user's words, the fix, what it rests on (`evidence`: its own
    keys per kind, counts, examples and places, as written) and the arm option `--apply-advice`
    would try (None: the fix is the user's to make)."""

    kind: str
    message: str
    fix: str
    evidence: dict[str, Any]
    apply: str | None
