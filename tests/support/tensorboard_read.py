"""Reading TensorBoard runs back with TensorBoard's own reader (every event kept)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.plugins.hparams import metadata as hparams_metadata
from tensorboard.util import tensor_util


def accumulator(run: Path) -> ea.EventAccumulator:
    acc = ea.EventAccumulator(str(run), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    return acc


def series(acc: ea.EventAccumulator, tag: str) -> dict[int, Any]:
    """step -> value of a scalar or text tag (text decoded)."""
    out = {}
    for event in acc.Tensors(tag):
        value = tensor_util.make_ndarray(event.tensor_proto).item()
        out[event.step] = value.decode() if isinstance(value, bytes) else value
    return out


def hparams(acc: ea.EventAccumulator) -> dict[str, Any]:
    content = acc.PluginTagToContent(hparams_metadata.PLUGIN_NAME)
    info = hparams_metadata.parse_session_start_info_plugin_data(
        content[hparams_metadata.SESSION_START_INFO_TAG]
    )
    out = {}
    for name, value in info.hparams.items():
        kind = value.WhichOneof("kind")
        out[name] = getattr(value, kind)
    return out


def tags(acc: ea.EventAccumulator) -> list[str]:
    return acc.Tags()["tensors"]
