"""Each event's fields are declared once, by its TypedDict (profiler/protocol/events.py); the
runtime shapes that check events as they are read (event_schema.py) take their keys from there,
and a check of a field the TypedDict lacks fails, naming it."""

from __future__ import annotations

import pytest

from tcprof.profiler.protocol import event_schema
from tcprof.profiler.protocol.events import (
    EVENT_FIELDS,
    CacheLoadedEvent,
    EventType,
    Relayed,
    field_names,
)
from tcprof.profiler.protocol.shapes import Integer


def _disagreement(kind: str) -> list[str]:
    declared = set(field_names(EVENT_FIELDS[EventType(kind)]))
    shaped = set(event_schema.EVENTS[kind].fields)
    return [f"{kind}.{name}: only in the TypedDict" for name in sorted(declared - shaped)] + [
        f"{kind}.{name}: only in event_schema" for name in sorted(shaped - declared)
    ]


def test_every_runtime_shape_has_its_typeddicts_fields_and_no_other():
    assert set(event_schema.EVENTS) <= {t.value for t in EVENT_FIELDS}, "a TypedDict per shape"
    assert [d for kind in event_schema.EVENTS for d in _disagreement(kind)] == []


def test_the_relayed_fields_are_relayeds():
    assert set(event_schema.RELAYED.fields) == set(field_names(Relayed))


def test_field_names_are_every_key_a_typeddict_declares():
    for declared in EVENT_FIELDS.values():
        keys = declared.__required_keys__ | declared.__optional_keys__
        assert set(field_names(declared)) == keys, declared.__name__


def test_checking_a_field_the_typeddict_lacks_fails_naming_it():
    with pytest.raises(TypeError, match=r"CacheLoadedEvent declares no bytes"):
        event_schema._event(CacheLoadedEvent, loaded=Integer(), bytes=Integer())


def test_a_field_no_reader_relies_on_is_declared_but_unchecked():
    shape = event_schema.EVENTS["compile"]
    assert shape.fields["guards"] is event_schema.UNCHECKED
    event = {"type": "compile", "batch_size": 8, "step": 0, "guards": "many"}
    assert event_schema.event_problem(event) is None
    assert event_schema.event_problem({**event, "step": "0"}) == (
        "compile event: step is a string, expected an integer"
    )


def test_a_cache_event_is_checked_as_the_session_keeps_it():
    """Session.fold keeps cache events whole in session.json, which checks every cache key."""
    saved = {"type": "cache_saved", "saved": True, "path": "/a", "bytes": 3}
    assert event_schema.event_problem(saved) is None
    assert event_schema.event_problem({**saved, "loaded": "yes"}) == (
        "cache_saved event: loaded is a string, expected true or false"
    )
