"""report.html: self-contained (no external URL), everything from a model or log escaped."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from tcprof.profiler.config import ArmSpec
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.data import script_json
from tcprof.profiler.report.html import render_html
from tests.support.synthetic import synthetic_session

EVIL = "<script>alert(1)</script>"


class Collector(HTMLParser):
    """Every tag with its attributes, and the text of each <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in_script: dict[str, str | None] | None = None
        self._buf: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script, self._buf = dict(attrs), []

    def handle_data(self, data):
        if self._in_script is not None:
            self._buf.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._in_script is not None:
            self.scripts.append((self._in_script, "".join(self._buf)))
            self._in_script = None


def parse(html: str) -> Collector:
    c = Collector()
    c.feed(html)
    c.close()
    return c


def assert_self_contained(html: str) -> None:
    c = parse(html)
    for tag, attrs in c.tags:
        for name in ("src", "href", "srcset", "data", "action", "poster"):
            value = attrs.get(name)
            if value is None:
                continue
            assert value.startswith("#") or value.startswith("data:"), (tag, name, value)
        if tag == "link":
            raise AssertionError(f"<link> in a self-contained report: {attrs}")
    # No stylesheet import or url() that could fetch anything.
    for style in re.findall(r"<style>(.*?)</style>", html, flags=re.S):
        assert "@import" not in style
        assert not re.search(r"url\(\s*['\"]?(?!data:)", style), "url() in CSS"
    assert "Content-Security-Policy" in html and "default-src 'none'" in html


def test_real_report_is_self_contained(real_run):
    data, _ = real_run
    html = render_html(SessionModel.read(data))
    assert_self_contained(html)
    c = parse(html)
    # uPlot and the charts are inlined, with the data as JSON.
    assert len(c.scripts) == 3
    (data_attrs, data_text), lib, app = c.scripts
    assert data_attrs == {"type": "application/json", "id": "tcprof-data"}
    chart = json.loads(data_text)
    assert [a["name"] for a in chart["arms"]] == ["eager", "aot_eager"]
    assert chart["batch_sizes"] == [8, 16]
    assert "uPlot" in lib[1] and "tcprof-data" in app[1]
    for section in ("summary", "charts", "insight", "errors", "configuration", "environment"):
        assert f'id="{section}"' in html
    assert "speedup [95% CI]" in html and "aot_eager" in html


def test_script_json_cannot_end_the_element():
    value = {"a": "</script><script>alert(1)</script>", "b": "<!-- x -->", "c": "\u2028\u2029&"}
    text = script_json(value)
    assert not re.search(r"[<>&\u2028\u2029]", text)
    assert json.loads(text) == value
    assert json.loads(script_json({"x": float("nan")})) == {"x": None}


def test_hostile_strings_from_a_synthetic_session_are_escaped():
    data = synthetic_session(
        path=f"/tmp/{EVIL}/model.py",
        arms=(ArmSpec("eager"), ArmSpec("aot_eager", label=f"arm {EVIL}")),
        reason=f"reason {EVIL} \" ' &",
        log_text=f"printed {EVIL}",
        error={
            "kind": "runtime",
            "message": f"boom {EVIL}",
            "traceback": f'Traceback:\n  File "{EVIL}", line 1\n',
            "file": f"/tmp/{EVIL}/model.py",
            "line": 3,
            "batch_size": 8,
            "fatal": True,
        },
    )
    html = render_html(SessionModel.read(data))
    assert EVIL not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    c = parse(html)
    assert len(c.scripts) == 3  # nothing injected
    assert [t for t, _ in c.tags if t in ("img", "iframe", "object", "embed")] == []
    assert "<details><summary>traceback</summary>" in html
    assert_self_contained(html)


MODEL = """
import torch.nn as nn

print("</script><script>alert(2)</script> printed while building")


class EvilNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 1e9:  # a graph break, reported with this file's path
            h = h * 2
        return h
"""


@pytest.fixture(scope="module")
def evil_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("evil")
    folder = root / EVIL
    folder.mkdir(parents=True)  # the "/" makes it two folders; the path still reads EVIL
    model = folder / "model.py"
    model.write_text(MODEL)
    out = root / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "tcprof.profiler", "run", str(model), "--arms", "eager,aot_eager",
         "--batch-sizes", "4", "--warmup", "1", "--steps", "3", "--blocks", "1",
         "--replicates", "1", "--min-block-ms", "0", "--no-accuracy",
         "--out", str(out), "--quiet"],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert (out / "session.json").exists(), proc.stderr
    return json.loads((out / "session.json").read_text()), model


def test_model_path_with_script_tag_is_escaped(evil_run):
    data, model = evil_run
    assert EVIL in data["config"]["source"]["path"]
    assert any(EVIL in (gb.get("file") or "") for a in data["arms"] for gb in a["graph_breaks"])
    assert any("alert(2)" in (line.get("text") or "") for line in data["logs"])
    html = render_html(SessionModel.read(data))
    assert EVIL not in html
    assert "alert(2)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert len(parse(html).scripts) == 3
    assert_self_contained(html)


def test_reproducer_for_a_hostile_path_is_valid_python(evil_run):
    from tcprof.profiler.report.reproduce import render_reproducer

    data, model = evil_run
    code = render_reproducer(SessionModel.read(data), "aot_eager")
    namespace: dict = {}
    compile(code, "reproduce.py", "exec")
    line = next(x for x in code.splitlines() if x.startswith("MODEL_FILE = "))
    exec(line, namespace)
    assert namespace["MODEL_FILE"] == str(model)


def test_sparse_sessions_still_render():
    from tcprof.profiler.report.markdown import render_markdown
    from tcprof.profiler.report.reproduce import render_reproducer
    from tcprof.profiler.session.fold import SessionFold

    s = SessionFold()
    cfg = synthetic_session()["config"]
    s.apply({"type": "run_start", "config": cfg, "wall_time": 1.0})
    s.apply({"type": "error", "arm": 1, "kind": "usage", "message": "unknown backend <x>",
             "traceback": None, "file": None, "line": None, "batch_size": None, "fatal": True})  # fmt: skip
    s.apply({"type": "run_end", "status": "failed", "wall_time": 2.0})
    for data in (s.to_dict(), s.to_dict(include_samples=False), {"arms": []}):
        html = render_html(SessionModel.read(data))
        assert_self_contained(html)
        render_markdown(SessionModel.read(data))
    html = render_html(SessionModel.read(s.to_dict()))
    assert "unknown backend &lt;x&gt;" in html
    assert "INPUT = None" in render_reproducer(SessionModel.read(s.to_dict()))
