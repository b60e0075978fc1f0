"""Choosing a model file: a recent file picked in the File list is inspected as Open… inspects
one; the input shape's placeholder, a syntax error's wording and the error banner follow the
model now chosen. Real inspections (a worker process each), as the user gets them."""

from __future__ import annotations

from pathlib import Path

from tests.app.conftest import write_model

INSPECTION_MS = 60_000

BREAKY = (
    "import torch.nn as nn\n\n\nclass BreakyNet(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.fc = nn.Linear(10, 1)\n\n"
    "    def forward(self, x):\n        return self.fc(x)\n"
)
WIDE = (
    "import torch.nn as nn\n\n\nclass WideNet(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.fc = nn.Linear(32, 4)\n\n"
    "    def forward(self, x):\n        return self.fc(x)\n"
)
SYNTAX_ERROR = "import torch\n\nclass M(torch.nn.Module:\n    pass\n"


def _inspected(qtbot, picker, name: str) -> None:
    qtbot.waitUntil(
        lambda: not picker.inspecting and name in picker.summary.text(), timeout=INSPECTION_MS
    )


def _pick(picker, path: str) -> None:
    """What a click on an entry of the File list does: the current index moves, then
    `activated` is emitted."""
    index = picker.path.findData(path)
    assert index >= 0, f"{path} is not in the list"
    picker.path.setCurrentIndex(index)
    picker.path.activated.emit(index)


def test_a_recent_file_picked_in_the_file_list_is_inspected_like_open(window, qtbot, tmp_path):
    breaky = write_model(tmp_path, "breaky.py", BREAKY)
    wide = write_model(tmp_path, "wide.py", WIDE)
    picker = window.setup.model
    window.load_model(wide)
    _inspected(qtbot, picker, "WideNet")
    window.load_model(breaky)  # as Open… does
    _inspected(qtbot, picker, "BreakyNet")
    assert picker.candidate.itemText(0) == "automatic (BreakyNet())"
    picker.factory.setText("BreakyNet()")
    picker.factory.editingFinished.emit()
    _inspected(qtbot, picker, "BreakyNet")
    assert [picker.path.itemData(i) for i in range(picker.path.count())] == [breaky, wide]

    _pick(picker, wide)
    assert picker.current_path() == wide
    _inspected(qtbot, picker, "WideNet")
    assert picker.candidate.itemText(0) == "automatic (WideNet())"
    assert picker.summary.text() == "WideNet() · 132 parameters · input (B, 32) float"
    assert picker.factory.text() == "", "the factory was the other file's"
    assert picker.input_shape.placeholderText() == "inferred: (B, 32) float"
    assert window.setup.config().source.path == wide
    assert window.commands.run.isEnabled()
    assert window.prefs.recent_files()[0] == wide, "the file picked is the most recent"
    assert "wide.py" in window.windowTitle()

    _pick(picker, wide)  # the current file picked again: no change, no inspection
    assert not picker.inspecting


def test_the_input_shape_placeholder_and_a_syntax_error_follow_the_model(window, qtbot, tmp_path):
    wide = write_model(tmp_path, "wide.py", WIDE)
    broken = write_model(tmp_path, "broken.py", SYNTAX_ERROR)
    picker = window.setup.model
    window.load_model(wide)
    _inspected(qtbot, picker, "WideNet")
    assert picker.input_shape.placeholderText() == "inferred: (B, 32) float"
    window.load_model(broken)
    assert picker.input_shape.placeholderText() == "inferred", "not the other model's shape"
    qtbot.waitUntil(lambda: "syntax" in picker.summary.text(), timeout=INSPECTION_MS)
    assert picker.input_shape.placeholderText() == "inferred"
    summary = picker.summary.text()
    assert summary.startswith("syntax error in ") and "broken.py, line 3" in summary, summary
    assert "syntax error: syntax error" not in summary
    assert window.setup.error().count("syntax error") == 1, window.setup.error()
    assert window.commands.run.toolTip().count("syntax error") == 1


def test_a_load_error_in_the_banner_goes_once_the_model_loads(window, qtbot, tmp_path):
    path = write_model(tmp_path, "broken.py", SYNTAX_ERROR)
    picker = window.setup.model
    window.load_model(path)
    qtbot.waitUntil(lambda: "syntax" in picker.summary.text(), timeout=INSPECTION_MS)
    names = ["eager", "inductor"]
    window.banner.add({"kind": "load", "arm": 0, "message": "cannot import broken.py"}, names)
    window.banner.add(
        {"kind": "oom", "arm": 1, "batch_size": 64, "message": "out of memory"}, names
    )
    assert window.banner.isVisible()
    with qtbot.waitSignal(picker.reinspected, timeout=INSPECTION_MS):
        Path(path).write_text(BREAKY, encoding="utf-8")  # fixed in an editor
    _inspected(qtbot, picker, "BreakyNet")
    assert window.banner.text() == "inductor at bs 64: oom error: out of memory"
    assert [e.kind for e in window.banner.errors] == ["oom"]
    window.banner.add({"kind": "syntax", "arm": 0, "message": "syntax error in broken.py"}, names)
    assert window.banner.message.toolTip().splitlines() == [
        "inductor at bs 64: oom error: out of memory",
        "eager: syntax error in broken.py",  # the kind said once
    ]
    picker.factory.setText("BreakyNet()")
    picker.factory.editingFinished.emit()  # a factory that builds: the model loads
    _inspected(qtbot, picker, "BreakyNet")
    assert [e.kind for e in window.banner.errors] == ["oom"]
    window.banner.clear()
    window.banner.add({"kind": "load", "arm": 0, "message": "cannot import broken.py"}, names)
    picker.factory.setText("BreakyNet(")
    picker.factory.editingFinished.emit()  # still broken: the banner stays
    qtbot.waitUntil(lambda: not picker.inspecting, timeout=INSPECTION_MS)
    assert window.banner.isVisible() and window.banner.errors[0].kind == "load"
