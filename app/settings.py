"""Persistent preferences (QSettings): last model, arms, batch sizes, recent files, geometry.

One module owns the keys so the window and the tests agree on them. The INI format in the user
scope is used on purpose: tests can redirect it to a temporary folder with `QSettings.setPath`.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

ORGANIZATION = "tcprof"
APPLICATION = "Torch Compile Profiler"
MAX_RECENT = 8


def qsettings() -> QSettings:
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION
    )


class Preferences:
    """Typed access to the few values that survive a restart."""

    def __init__(self) -> None:
        self._s = qsettings()

    def _get_json(self, key: str, default: Any) -> Any:
        raw = self._s.value(key)
        if not isinstance(raw, str):
            return default
        try:
            return json.loads(raw)
        except ValueError:
            return default

    # -- setup ----------------------------------------------------------------------------------
    def setup(self) -> dict[str, Any]:
        """The last setup panel state (model, arms, batch sizes, ...); {} on first launch."""
        value = self._get_json("setup", {})
        return value if isinstance(value, dict) else {}

    def set_setup(self, state: dict[str, Any]) -> None:
        self._s.setValue("setup", json.dumps(state))

    # -- recent hosts (--host) -------------------------------------------------------------------
    def recent_hosts(self) -> list[str]:
        value = self._get_json("recent_hosts", [])
        return [h for h in value if isinstance(h, str) and h] if isinstance(value, list) else []

    def add_recent_host(self, host: str) -> list[str]:
        recent = [host, *(h for h in self.recent_hosts() if h != host)][:MAX_RECENT]
        self._s.setValue("recent_hosts", json.dumps(recent))
        return recent

    # -- recent files ---------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self._get_json("recent_files", [])
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    def add_recent_file(self, path: str) -> list[str]:
        recent = [p for p in self.recent_files() if p != path]
        recent.insert(0, path)
        recent = recent[:MAX_RECENT]
        self._s.setValue("recent_files", json.dumps(recent))
        return recent

    # -- window ---------------------------------------------------------------------------------
    def geometry(self) -> QByteArray | None:
        value = self._s.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    def set_geometry(self, geometry: QByteArray) -> None:
        self._s.setValue("window/geometry", geometry)

    def sync(self) -> None:
        self._s.sync()
