"""The session model and the session file's schema agree: every key protocol/session_schema.py
declares (and so docs/session-format.md's table, checked against the schema by
tests/profiler/protocol) is read by the model when it is built, or listed in model/raw.py as
kept raw, with why. A session made from the schema itself (every key present) is read through
dicts that note each key asked for."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import tcprof.profiler
from tcprof.profiler.model import session as model_session
from tcprof.profiler.model.raw import RAW
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import session_schema
from tcprof.profiler.protocol.shapes import (
    Exactly,
    Fields,
    Flag,
    Integer,
    ListOf,
    MapOf,
    Number,
    OneOf,
    Row,
    Shape,
    Text,
)


class Noting(dict[str, Any]):
    """A dict that notes each key read from it, as `path.key`."""

    def __init__(self, value: dict[str, Any], path: str, seen: set[str]) -> None:
        super().__init__(value)
        self.path, self.seen = path, seen

    def _note(self, key: object) -> None:
        self.seen.add(f"{self.path}.{key}" if self.path else str(key))

    def __getitem__(self, key: str) -> Any:
        self._note(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._note(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return super().__contains__(key)


def made(shape: Shape, path: str, seen: set[str]) -> Any:
    """A value of `shape` holding every key it declares, its objects noting what is read."""
    if isinstance(shape, Fields):
        inner = {k: made(s, f"{path}.{k}" if path else k, seen) for k, s in shape.fields.items()}
        return Noting(inner, path, seen)
    if isinstance(shape, ListOf):
        return [made(shape.item, f"{path}[]", seen) for _ in range(shape.length or 1)]
    if isinstance(shape, Row):
        return [made(s, f"{path}[]", seen) for s in shape.items]
    if isinstance(shape, OneOf):
        return made(shape.shapes[0], path, seen)
    if isinstance(shape, Exactly):
        return shape.value
    if isinstance(shape, MapOf):
        return {}
    if isinstance(shape, Flag):
        return False
    if isinstance(shape, Integer):
        return 1
    if isinstance(shape, Number):
        return 1.5
    if isinstance(shape, Text):
        return "eager" if path.endswith("backend") else path
    return None


def declared(shape: Shape, path: str) -> list[str]:
    """Every key path the schema declares under `path`."""
    if isinstance(shape, Fields):
        keys = []
        for k, s in shape.fields.items():
            where = f"{path}.{k}" if path else k
            keys += [where, *declared(s, where)]
        return keys
    if isinstance(shape, ListOf):
        return declared(shape.item, f"{path}[]")
    if isinstance(shape, OneOf):
        return [k for s in shape.shapes for k in declared(s, path)]
    return []


def kept_raw(key: str) -> bool:
    return any(key == raw or key.startswith((raw + ".", raw + "[]")) for raw in RAW)


@pytest.fixture
def read_keys(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    seen: set[str] = set()
    doc = made(session_schema.SESSION, "", seen)
    monkeypatch.setattr(model_session, "thaw", lambda value: value)  # keep the noting dicts
    model = SessionModel.from_json(doc)
    assert model.arms and model.rows  # the made session was read through
    return seen


def test_every_declared_key_is_read_or_kept_raw(read_keys: set[str]) -> None:
    missing = [
        k for k in declared(session_schema.SESSION, "") if k not in read_keys and not kept_raw(k)
    ]
    assert not missing, f"neither read by the model nor listed in model/raw.py: {missing}"


def test_the_raw_list_names_only_declared_keys() -> None:
    keys = set(declared(session_schema.SESSION, ""))
    assert not [raw for raw in RAW if raw not in keys], "model/raw.py names a key the schema lacks"


def documented_row_keys() -> list[str]:
    """The keys of docs/session-format.md's `arms[i].results[j]` table."""
    root = Path(tcprof.profiler.__file__).resolve().parent.parent
    text = (root / "docs" / "session-format.md").read_text(encoding="utf-8")
    section = text.split("## `arms[i].results[j]`", 1)[1].split("\n## ", 1)[0]
    keys = []
    for line in section.splitlines():
        if line.startswith("| `"):
            keys += re.findall(r"`([a-z0-9_]+)`", line.split("|")[1])
    return keys


def test_every_documented_row_key_is_read_or_kept_raw(read_keys: set[str]) -> None:
    documented = documented_row_keys()
    assert len(documented) > 40
    where = "arms[].results[]."
    missing = [k for k in documented if where + k not in read_keys and not kept_raw(where + k)]
    assert not missing, f"documented, but neither read by the model nor kept raw: {missing}"


def test_a_key_kept_raw_is_not_typed_beneath_it(read_keys: set[str]) -> None:
    """A key listed raw whole has no typed field reading into it (a key typed in part lists
    only its untyped keys), but `config`: kept whole for config/model.py's RunConfig beside
    its one typed reading, SessionModel.options."""
    typed_beneath = {
        raw
        for raw in RAW
        for key in read_keys
        if raw != "config" and key.startswith((raw + ".", raw + "[]."))
    }
    assert not typed_beneath, f"listed raw in model/raw.py, yet read into: {typed_beneath}"
