"""reproduce.py for a session of a script: the `tcprof run` command that measured it, runnable,
with the script's own command after `--` (the script itself is the user's file, unchanged)."""

from __future__ import annotations

from tcprof.profiler.config import DEFAULT_REMOTE_PYTHON
from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.session import SessionModel

_OPTIONS: tuple[tuple[str, str], ...] = (
    ("warmup", "--warmup"),
    ("steps", "--steps"),
    ("blocks", "--blocks"),
    ("replicates", "--replicates"),
    ("seed", "--seed"),
    ("threads", "--threads"),
)


NO_SCRIPT = ScriptSource(path="")


def _arm_text(arm: Arm) -> str:
    parts = [f"{k}={v}" for k, v in arm.options.items() if v not in (None, False, "default")]
    return arm.backend + (":" + ",".join(parts) if parts else "")


def tcprof_command(model: SessionModel) -> list[str]:
    options = model.options
    script = options.script or NO_SCRIPT
    arms = [a for a in model.arms if not a.name.endswith("control")]
    command = ["tcprof", "run", "--arms", "; ".join(_arm_text(a) for a in arms)]
    for key, option in _OPTIONS:
        if model.config.get(key) is not None:
            command += [option, str(model.config[key])]
    if script.sweep:
        values = ",".join(str(b) for b in options.batch_sizes)
        command += ["--sweep", f"{script.sweep}={values}"]
    if script.step_on == "forward":
        command += ["--step-on", "forward"]
    if options.device not in (None, "cpu"):
        command += ["--device", str(options.device)]
    if options.nproc is not None and options.nproc > 1:
        command += ["--nproc", str(options.nproc)]  # under torchrun, as it ran
    if options.host:
        command += ["--host", options.host]
        if options.remote_python not in (None, DEFAULT_REMOTE_PYTHON):
            command += ["--remote-python", str(options.remote_python)]
    if not options.accuracy:
        command.append("--no-accuracy")
    target = ["-m", script.module] if script.module else [str(script.path)]
    return [*command, "--", script.python or "python", *target, *script.args]


def render(model: SessionModel) -> str:
    cwd = (model.options.script.cwd if model.options.script else None) or "."
    command = tcprof_command(model)
    shown = " ".join(repr(w) if " " in w or ";" in w else w for w in command)
    return (
        '"""Reproduce this session: tcprof ran the training script unchanged, in each arm\'s\n'
        "worker, from this working directory. Run this file, or the command below.\n\n"
        f"    {shown}\n"
        '"""\n\n'
        "import subprocess\nimport sys\n\n"
        f"CWD = {cwd!r}\n"
        f"COMMAND = {[sys_word for sys_word in command[1:]]!r}\n\n"
        'if __name__ == "__main__":\n'
        '    sys.exit(subprocess.call([sys.executable, "-m", "tcprof.profiler", *COMMAND], cwd=CWD))\n'
    )
