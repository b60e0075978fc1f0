"""freeze and thaw round-trip session.json's values, the flat lists (step times) copied whole
as the nested ones are copied item by item."""

from __future__ import annotations

from types import MappingProxyType

from tcprof.profiler.model.json_values import freeze, thaw


def test_freeze_and_thaw_round_trip() -> None:
    doc = {
        "samples": [[1.0, 2.5, None], [3, "x", True]],
        "arms": [{"name": "eager", "results": [{"batch_size": 8, "ms": [1.0, 2.0]}]}],
        "flat": [1, 2.0, "three", None, False],
        "empty": [],
    }
    frozen = freeze(doc)
    assert isinstance(frozen, MappingProxyType)
    assert frozen["flat"] == (1, 2.0, "three", None, False)
    assert isinstance(frozen["arms"][0], MappingProxyType)
    assert frozen["samples"] == ((1.0, 2.5, None), (3, "x", True))
    assert thaw(frozen) == doc
    plain = thaw(frozen)
    plain["flat"].append(6)  # a copy the caller owns
    assert frozen["flat"] == (1, 2.0, "three", None, False)
