"""The ssh command that reaches a remote host, and what its failures mean in one line.

The system's OpenSSH client, so the user's ssh config (aliases, ports, keys, jump hosts) applies.
It always runs with BatchMode (a password or host-key question fails at once instead of waiting
on a terminal the window does not have), a connect timeout, and keep-alives that notice a
connection that died silently. `TCPROF_SSH_COMMAND` replaces `ssh` and is run through the shell
with the same arguments appended, as git does with GIT_SSH_COMMAND.
"""

from __future__ import annotations

import importlib.metadata
import os
import re

from tcprof.profiler.config.provenance import tcprof_version

SSH_COMMAND_ENV = "TCPROF_SSH_COMMAND"
CONNECT_TIMEOUT_S = 15
ALIVE_INTERVAL_S = 15  # with ALIVE_COUNT: a silent connection is dropped within a minute
ALIVE_COUNT = 4
AGENT_MODULE = "tcprof.profiler.remote.agent"
NOT_INSTALLED = re.compile(r"No module named '?tcprof\b")
NOT_FOUND_CODE = 127  # the remote shell found no such interpreter


def ssh_argv(host: str, remote_command: str) -> list[str]:
    options = [
        "-T",
        "-o",
        "BatchMode=yes",
        "-o",
        f"ConnectTimeout={CONNECT_TIMEOUT_S}",
        "-o",
        f"ServerAliveInterval={ALIVE_INTERVAL_S}",
        "-o",
        f"ServerAliveCountMax={ALIVE_COUNT}",
        "--",
        host,
        remote_command,
    ]
    custom = os.environ.get(SSH_COMMAND_ENV, "").strip()
    if custom:
        return ["/bin/sh", "-c", f'{custom} "$@"', custom, *options]
    return ["ssh", *options]


def agent_command(remote_python: str) -> str:
    """What the remote shell runs: the interpreter as the user wrote it (so `~/venv/bin/python`
    expands there), replaced by the agent."""
    return f"exec {remote_python} -m {AGENT_MODULE}"


def torch_version() -> str | None:
    """The torch installed beside this interpreter (read from its metadata: never imported)."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def install_hint() -> str:
    """'pip install tcprof==0.1.0 (and torch==2.13.0)': this side's versions, read from their
    metadata (a CUDA build's local suffix is left to the remote host's own index)."""
    local_torch = torch_version()
    torch = f" (and torch=={local_torch.split('+')[0]})" if local_torch else " (and torch)"
    return f"pip install tcprof=={tcprof_version()}{torch}"


def connect_failure(host: str, python: str, code: int | None, ssh_lines: list[str]) -> str:
    """Why the agent never said hello: not installed, no interpreter, or ssh's own reason."""
    text = "\n".join(ssh_lines)
    if NOT_INSTALLED.search(text):
        return f"tcprof is not installed for {python} on {host}: {install_hint()}"
    last = last_line(ssh_lines)
    if code == NOT_FOUND_CODE:
        return f"{host} has no {python} (--remote-python): {last or 'command not found'}"
    return f"cannot reach {host}: {last or f'ssh exited with code {code}'}"


def lost_connection(host: str, where: str | None, code: int | None, ssh_lines: list[str]) -> str:
    during = f" during {where}" if where else ""
    last = last_line(ssh_lines) or f"ssh exited with code {code}"
    return f"lost the connection to {host}{during}: {last}"


def last_line(lines: list[str]) -> str:
    return next((line.strip() for line in reversed(lines) if line.strip()), "")
