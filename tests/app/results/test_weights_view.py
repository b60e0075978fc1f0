"""The Weights tab lists each arm's saved state_dict from the session's typed artifacts."""

from __future__ import annotations

from tcprof.app.results.weights_view import EMPTY, WeightsView
from tcprof.profiler.model.session import SessionModel


def test_weights_rows_from_a_session(qtbot) -> None:
    view = WeightsView()
    qtbot.addWidget(view)
    assert view.note.text() == EMPTY and view.table.rowCount() == 0
    view.show_session(SessionModel.from_json({"arms": [
        {"name": "eager", "backend": "eager", "results": [], "artifacts": [
            {"kind": "weights", "path": "/s/weights/eager.safetensors", "tensors": 4,
             "verified": True},
            {"kind": "trace", "path": "/s/trace.json"}]},
        {"name": "inductor", "backend": "inductor", "results": [], "artifacts": [
            {"kind": "weights", "path": "/s/weights/inductor.pt", "format": "pt"}]},
    ]}))  # fmt: skip
    cells = [
        [view.table.item(r, c).text() for c in range(view.table.columnCount())]
        for r in range(view.table.rowCount())
    ]
    assert cells == [
        ["eager", "/s/weights/eager.safetensors", "safetensors", "4", "verified by strict load"],
        ["inductor", "/s/weights/inductor.pt", "pt", "-", "NOT verified"],
    ]
    assert view.note.text().startswith("2 state_dict file(s)")
    assert view._folder == "/s", "Open folder opens the session folder"
