"""Persistent preferences (QSettings): last model, arms, batch sizes, recent files, each
training script's arguments and working directory, the tracker last logged to, the window's
geometry and layout (splitter states, whether the setup panel shows).

One module owns the keys so the window and the tests agree on them. The INI format in the user
scope is used on purpose: tests can redirect it to a temporary folder with `QSettings.setPath`.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

ORGANIZATION = "tcprof"
APPLICATION = "Torch Compile Profiler"
MAX_RECENT = 8
MAX_SCRIPTS = 50  # scripts whose arguments and working directory are remembered


@dataclass(frozen=True)
class TrackerChoice:
    """The tracker a session was last logged to (Export > Log to a tracker): its kind
    (tensorboard, mlflow, wandb; '' never chosen) and what was typed for each."""

    kind: str = ""
    tensorboard_dir: str = ""
    mlflow_uri: str = ""
    mlflow_experiment: str = ""
    wandb_project: str = ""


@dataclass(frozen=True)
class PlotChoices:
    """The live plots' choices as last saved, each None where none of its type was: the x
    axis, the smoothing weight, the log step-time axis, the middle plot's for a script's run
    and for a model file's (plots/plot_choices.py judges the values)."""

    x_axis: str | None = None
    smoothing: float | None = None
    log_y: bool | None = None
    middle_script: str | None = None
    middle_model: str | None = None

    @classmethod
    def of(cls, raw: object) -> PlotChoices:
        """The raw edge: the saved JSON, each value taken only with its declared type."""
        if not isinstance(raw, dict):
            return cls()
        fields = dataclasses.fields(cls)
        return cls(**{f.name: raw[f.name] for f in fields if _fits(raw.get(f.name), f.type)})


# a declared type (as `from __future__ import annotations` spells it) and what may fill it
_KINDS: dict[object, tuple[type, ...]] = {
    "str | None": (str,),
    "float | None": (int, float),
    "bool | None": (bool,),
}


def _fits(value: object, declared: object) -> bool:
    """Whether a saved value has the declared type (a bool is no number)."""
    kinds = _KINDS[declared]
    return isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))


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

    # -- each training script's own options (its arguments, working directory, ...) ----------
    def script_options(self, path: str) -> dict[str, Any]:
        """What the script at `path` was last run with ({} for a script never opened)."""
        for entry in self._scripts():
            if entry.get("path") == path:
                return entry
        return {}

    def remember_script(self, options: dict[str, Any]) -> None:
        """Keep a script's options (`options["path"]` names it), the newest first."""
        path = options.get("path")
        if not isinstance(path, str) or not path:
            return
        kept = [e for e in self._scripts() if e.get("path") != path]
        self._s.setValue("scripts", json.dumps([dict(options), *kept][:MAX_SCRIPTS]))

    def _scripts(self) -> list[dict[str, Any]]:
        value = self._get_json("scripts", [])
        return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []

    # -- the Summary's hidden columns -----------------------------------------------------------
    def hidden_columns(self, default: list[str]) -> list[str]:
        value = self._get_json("summary_hidden_columns", default)
        return [c for c in value if isinstance(c, str)] if isinstance(value, list) else default

    def set_hidden_columns(self, columns: list[str]) -> None:
        self._s.setValue("summary_hidden_columns", json.dumps(columns))

    # -- the plots' choices (x axis, smoothing, log y) -----------------------------------------
    def plot_choices(self) -> PlotChoices:
        return PlotChoices.of(self._get_json("plot_choices", {}))

    def set_plot_choices(self, choices: PlotChoices) -> None:
        """Only the choices made: one never made is read back as never made."""
        kept = {k: v for k, v in dataclasses.asdict(choices).items() if v is not None}
        self._s.setValue("plot_choices", json.dumps(kept))

    # -- recent hosts (--host) -------------------------------------------------------------------
    def recent_hosts(self) -> list[str]:
        value = self._get_json("recent_hosts", [])
        return [h for h in value if isinstance(h, str) and h] if isinstance(value, list) else []

    def add_recent_host(self, host: str) -> list[str]:
        recent = [host, *(h for h in self.recent_hosts() if h != host)][:MAX_RECENT]
        self._s.setValue("recent_hosts", json.dumps(recent))
        return recent

    # -- the tracker a session was last logged to (Export > Log to a tracker) --------------------
    def tracker(self) -> TrackerChoice:
        """What was given last time (all empty the first time)."""
        value = self._get_json("tracker", {})
        if not isinstance(value, dict):
            return TrackerChoice()
        texts = {k: v for k, v in value.items() if isinstance(v, str)}
        known = {f.name for f in dataclasses.fields(TrackerChoice)}
        return TrackerChoice(**{k: v for k, v in texts.items() if k in known})

    def set_tracker(self, choice: TrackerChoice) -> None:
        self._s.setValue("tracker", json.dumps(dataclasses.asdict(choice)))

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

    def layout(self, version: int) -> tuple[dict[str, QByteArray], bool] | None:
        """The splitters' saved states by name and whether the setup panel was shown; None
        if nothing was saved by this layout version."""
        if str(self._s.value("window/layout_version")) != str(version):
            return None
        self._s.beginGroup("window/splitters")
        states = {key: self._s.value(key) for key in self._s.childKeys()}
        self._s.endGroup()
        if not states or not all(isinstance(v, QByteArray) for v in states.values()):
            return None
        visible = str(self._s.value("window/setup_visible", "true")).lower() != "false"
        return states, visible

    def set_layout(self, version: int, states: dict[str, QByteArray], setup_visible: bool) -> None:
        self._s.setValue("window/layout_version", version)
        self._s.remove("window/splitters")
        for name, state in states.items():
            self._s.setValue(f"window/splitters/{name}", state)
        self._s.setValue("window/setup_visible", "true" if setup_visible else "false")

    def sync(self) -> None:
        self._s.sync()
