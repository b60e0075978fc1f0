"""The step an arm runs for its loop kind, chosen once when the arm loads.

train: forward and loss (inside torch.autocast with --amp), backward (through a
torch.amp.GradScaler for fp16 training), the optimizer step (with --compile-optimizer, compiled
in a compiled arm the way PyTorch's compiled-optimizer recipe does), zero_grad.

inference: forward only, under torch.inference_mode() (and autocast), on a model in eval mode.
The first step runs in that mode too, so a compiled arm compiles and warms the graphs a server
would run. An inference step has no loss; the loss of its output, computed untimed, stands in
as the check value (`first_step.loss`, `bs_done.last_loss`) that agrees across arms.
"""

from __future__ import annotations

import contextlib
import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch

from tcprof.profiler.config import ArmSpec, RunConfig
from tcprof.profiler.worker.errors import usage_error

AUTOCAST_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
_NO_CONTEXT = contextlib.nullcontext()  # reusable: the fp32 step pays no context of its own


def check_autocast(device_type: str, amp: str) -> torch.dtype:
    """The autocast dtype, or a usage error when this torch build cannot autocast to it on
    this device (autocast then warns and runs in float32, which would measure the wrong loop)."""
    dtype = AUTOCAST_DTYPES[amp]
    if not torch.amp.is_autocast_available(device_type):
        raise usage_error(f"--amp {amp}: this torch build has no autocast for {device_type!r}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.autocast(device_type=device_type, dtype=dtype):
                enabled = torch.is_autocast_enabled(device_type)
        except Exception as exc:  # e.g. a CUDA device without bfloat16
            caught.append(warnings.WarningMessage(str(exc), RuntimeWarning, "", 0))
            enabled = False
    if not enabled:
        why = "; ".join(str(w.message).splitlines()[0] for w in caught) or "it stayed disabled"
        raise usage_error(
            f"--amp {amp}: torch.autocast(device_type={device_type!r}, dtype={dtype}) is not "
            f"supported by this torch build: {why}"
        )
    return dtype


def model_to_channels_last(model: torch.nn.Module) -> int:
    """Convert in place; the number of 4-D parameters now in channels_last (0: nothing to
    convert, e.g. a model without convolutions)."""
    model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]  # stubs omit it
    return sum(
        1
        for p in model.parameters()
        if p.dim() == 4 and p.is_contiguous(memory_format=torch.channels_last)
    )


class StepLoop:
    """One arm's step (`step`), its staged first step, and what ran (`describe`)."""

    def __init__(
        self,
        cfg: RunConfig,
        arm: ArmSpec,
        model: torch.nn.Module,
        runner: Callable[..., Any],
        optimizer: torch.optim.Optimizer,
        loss_of: Callable[[Any, Any], torch.Tensor],
        device: torch.device,
        channels_last_params: int | None = None,
    ) -> None:
        self.model, self.runner, self.optimizer, self.loss_of = model, runner, optimizer, loss_of
        self.inference = cfg.loop == "inference"
        self.device_type = device.type
        self.amp = cfg.amp
        self.amp_dtype = check_autocast(device.type, cfg.amp) if cfg.amp else None
        self.scaler = None
        if cfg.amp == "fp16" and not self.inference:
            try:
                self.scaler = torch.amp.GradScaler(device.type)
            except Exception as exc:
                raise usage_error(
                    f"--amp fp16 trains with torch.amp.GradScaler({device.type!r}), which this "
                    f"torch build does not offer: {exc}"
                ) from exc
        self.channels_last_params = channels_last_params
        self.optimizer_compiled = bool(
            cfg.compile_optimizer and arm.compiled and not self.inference
        )
        self._optimizer_step = (
            self._compile_optimizer_step(arm.torch_backend)
            if self.optimizer_compiled
            else self._eager_optimizer_step
        )
        self.step: Callable[[Any], Any] = self._inference_step
        if not self.inference:
            plain = self.amp_dtype is None and not self.optimizer_compiled
            self.step = self._plain_train_step if plain else self._train_step
        self.stage = "forward"  # the first step's stage, read when it raises

    # -- what ran ---------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """The `loaded` event's `loop`: the facts of this arm's loop, as the worker set it up."""
        optimizer = "compiled" if self.optimizer_compiled else "eager"
        return {
            "kind": "inference" if self.inference else "train",
            "model_mode": "train" if self.model.training else "eval",
            "inference_mode": self.inference,
            "amp": self.amp,
            "autocast_dtype": str(self.amp_dtype) if self.amp_dtype is not None else None,
            "grad_scaler": self.scaler is not None,
            "channels_last": self.channels_last_params is not None,
            "channels_last_params": self.channels_last_params,
            "optimizer": None if self.inference else optimizer,
        }

    def forward_mode(self) -> contextlib.ExitStack:
        """The mode the forward runs in (inference_mode, autocast), for untimed passes."""
        stack = contextlib.ExitStack()
        if self.inference:
            stack.enter_context(torch.inference_mode())
        stack.enter_context(self._autocast())
        return stack

    # -- the steps --------------------------------------------------------------------------
    def _autocast(self) -> contextlib.AbstractContextManager[Any]:
        if self.amp_dtype is None:
            return _NO_CONTEXT
        return torch.autocast(device_type=self.device_type, dtype=self.amp_dtype)

    def _plain_train_step(self, batch: Any) -> torch.Tensor:
        """fp32 training with an eager optimizer: the seed's loop, with nothing in between."""
        out = self.runner(*batch.args, **batch.kwargs)
        loss = self.loss_of(out, batch)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss

    def _train_step(self, batch: Any) -> torch.Tensor:
        with self._autocast():
            out = self.runner(*batch.args, **batch.kwargs)
            loss = self.loss_of(out, batch)
        self._backward(loss)
        self._optimizer_step()
        self.optimizer.zero_grad()
        return loss

    def _inference_step(self, batch: Any) -> Any:
        with torch.inference_mode(), self._autocast():
            return self.runner(*batch.args, **batch.kwargs)

    def _backward(self, loss: torch.Tensor) -> None:
        (loss if self.scaler is None else self.scaler.scale(loss)).backward()

    def _eager_optimizer_step(self) -> None:
        if self.scaler is None:
            self.optimizer.step()
        else:
            self.scaler.step(self.optimizer)
            self.scaler.update()

    def _compile_optimizer_step(self, backend: str) -> Callable[[], None]:
        """PyTorch's recipe, `@torch.compile(fullgraph=False) def opt_step(): opt.step()`, with
        the arm's backend; with a GradScaler, its `scaler.step(opt)` is what is compiled (the
        inf check inside breaks the graph, which fullgraph=False allows)."""
        optimizer, scaler = self.optimizer, self.scaler
        if scaler is None:

            def opt_step() -> None:
                optimizer.step()

            return torch.compile(opt_step, backend=backend, fullgraph=False)

        def scaled_opt_step() -> None:
            scaler.step(optimizer)

        compiled = torch.compile(scaled_opt_step, backend=backend, fullgraph=False)

        def step_and_update() -> None:
            compiled()
            scaler.update()

        return step_and_update

    def first_step(
        self, batch: Any, sync: Callable[[], None]
    ) -> tuple[float, float | None, float | None, Any]:
        """(ms, loss, grad norm, the step's result), timed in stages so an error names its
        stage (`self.stage`) and the loss and gradient norm are read outside the timing."""
        clock = time.perf_counter_ns
        sync()
        t0 = clock()
        self.stage = "forward"
        if self.inference:
            result = self._inference_step(batch)
            sync()
            ms = (clock() - t0) / 1e6
            self.stage = "loss"
            return ms, self.loss_value(result, batch), None, result
        with self._autocast():
            out = self.runner(*batch.args, **batch.kwargs)
            self.stage = "loss"
            loss = self.loss_of(out, batch)
        self.stage = "backward"
        self._backward(loss)
        sync()
        t1 = clock()
        grad_norm = self._grad_norm()
        loss_value = _as_float(loss)
        t2 = clock()
        self.stage = "optimizer"
        self._optimizer_step()
        self.optimizer.zero_grad()
        sync()
        t3 = clock()
        return ((t1 - t0) + (t3 - t2)) / 1e6, loss_value, grad_norm, loss

    def loss_value(self, result: Any, batch: Any) -> float | None:
        """A step's loss as a number: a training step returns its loss; for an inference step
        the loss of its output is computed here, untimed, in the step's own mode."""
        if result is None:
            return None
        if not self.inference:
            return _as_float(result)
        with self.forward_mode():
            return _as_float(self.loss_of(result, batch))

    def _grad_norm(self) -> float | None:
        grads = [
            _local(p.grad).float().norm() for p in self.model.parameters() if p.grad is not None
        ]
        if not grads:
            return None
        value = float(torch.stack(grads).norm().item())
        if self.scaler is not None:
            value /= self.scaler.get_scale()  # the gradients are scaled until the step
        return value if math.isfinite(value) else None


def _local(grad: torch.Tensor) -> torch.Tensor:
    """A gradient as a plain tensor: an FSDP2 shard (a DTensor) is gathered whole (a collective
    every rank makes at the same step)."""
    grad = grad.detach()
    full = getattr(grad, "full_tensor", None)
    return full() if callable(full) else grad


def _as_float(t: torch.Tensor | None) -> float | None:
    if t is None:
        return None
    value = float(t.detach().float().item())
    return value if math.isfinite(value) else None
