"""A stand-in for `ssh` (through TCPROF_SSH_COMMAND) that runs the remote command on this
machine the way sshd would: in its own session, its stdin being the client's stream, so that
only the stream's end (no signal) can tell the agent that the client went.

    ssh_shim.py MODE [ssh options] -- HOST COMMAND

MODE: `local` relays everything; `banner` prints a greeting first; `unreachable` fails as ssh does for a host that refuses the
connection; `drop:BATCH` relays until the worker announces a phase at batch size BATCH, then
ends as ssh does when the connection breaks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

from tcprof.profiler.remote import frames


def main() -> int:
    mode, args = sys.argv[1], sys.argv[2:]
    host, command = args[args.index("--") + 1 :][:2]
    if mode == "unreachable":
        print(f"ssh: connect to host {host} port 22: Connection refused", file=sys.stderr)
        return 255
    agent = subprocess.Popen(
        ["/bin/sh", "-c", command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    threading.Thread(target=_relay_raw, args=(agent.stdin,), daemon=True).start()
    cut_at = int(mode.split(":")[1]) if mode.startswith("drop:") else None
    out = sys.stdout.buffer
    if mode == "banner":  # a ~/.bashrc that greets every shell, interactive or not
        out.write(f"Welcome to {host}!\n".encode())
    while (frame := frames.read_frame(agent.stdout)) is not None:
        kind, payload = frame
        if cut_at is not None and kind == frames.EVENT:
            event = json.loads(payload)
            if event.get("type") == "phase" and event.get("batch_size") == cut_at:
                print("client_loop: send disconnect: Broken pipe", file=sys.stderr, flush=True)
                os._exit(255)  # the agent's stdin closes with this process
        out.write(frames.HEADER.pack(kind, len(payload)) + payload)
        out.flush()
    return agent.wait()


def _relay_raw(to_agent) -> None:
    try:
        while data := os.read(0, 1 << 16):
            to_agent.write(data)
            to_agent.flush()
        to_agent.close()
    except OSError:
        pass  # the agent has gone


if __name__ == "__main__":
    sys.exit(main())
