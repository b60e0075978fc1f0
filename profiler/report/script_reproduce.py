"""reproduce.py for a session of a script: the `tcprof run` command that measured it, runnable,
with the script's own command after `--` (the script itself is the user's file, unchanged)."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.config import DEFAULT_REMOTE_PYTHON

_OPTIONS: tuple[tuple[str, str], ...] = (
    ("warmup", "--warmup"),
    ("steps", "--steps"),
    ("blocks", "--blocks"),
    ("replicates", "--replicates"),
    ("seed", "--seed"),
    ("threads", "--threads"),
)


def _arm_text(arm: dict[str, Any]) -> str:
    options = arm.get("options") or {}
    parts = [f"{k}={v}" for k, v in options.items() if v not in (None, False, "default")]
    backend = str(arm.get("backend") or "eager")
    return backend + (":" + ",".join(parts) if parts else "")


def tcprof_command(session_dict: dict[str, Any]) -> list[str]:
    config = session_dict.get("config") or {}
    script = config.get("script") or {}
    arms = [a for a in session_dict.get("arms") or [] if not str(a.get("name")).endswith("control")]
    command = ["tcprof", "run", "--arms", "; ".join(_arm_text(a) for a in arms)]
    for key, option in _OPTIONS:
        if config.get(key) is not None:
            command += [option, str(config[key])]
    if script.get("sweep"):
        values = ",".join(str(b) for b in config.get("batch_sizes") or [])
        command += ["--sweep", f"{script['sweep']}={values}"]
    if script.get("step_on") == "forward":
        command += ["--step-on", "forward"]
    if config.get("device") not in (None, "cpu"):
        command += ["--device", str(config["device"])]
    if isinstance(config.get("nproc"), int) and config["nproc"] > 1:
        command += ["--nproc", str(config["nproc"])]  # under torchrun, as it ran
    if config.get("host"):
        command += ["--host", str(config["host"])]
        if config.get("remote_python") not in (None, DEFAULT_REMOTE_PYTHON):
            command += ["--remote-python", str(config["remote_python"])]
    if not config.get("accuracy", True):
        command.append("--no-accuracy")
    target = (
        ["-m", str(script.get("module"))] if script.get("module") else [str(script.get("path"))]
    )
    return [*command, "--", str(script.get("python") or "python"), *target, *script.get("args", [])]


def render(session_dict: dict[str, Any]) -> str:
    script = (session_dict.get("config") or {}).get("script") or {}
    command = tcprof_command(session_dict)
    shown = " ".join(repr(w) if " " in w or ";" in w else w for w in command)
    return (
        '"""Reproduce this session: tcprof ran the training script unchanged, in each arm\'s\n'
        "worker, from this working directory. Run this file, or the command below.\n\n"
        f"    {shown}\n"
        '"""\n\n'
        "import subprocess\nimport sys\n\n"
        f"CWD = {str(script.get('cwd') or '.')!r}\n"
        f"COMMAND = {[sys_word for sys_word in command[1:]]!r}\n\n"
        'if __name__ == "__main__":\n'
        '    sys.exit(subprocess.call([sys.executable, "-m", "tcprof.profiler", *COMMAND], cwd=CWD))\n'
    )
