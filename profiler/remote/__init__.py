"""Arms run on another machine over ssh (`--host`): the ssh command, the agent that runs there,
the framed channel between them, the files that travel, and the handle the runner drives.

Only `agent.py` runs on the remote machine; everything else runs beside the runner.
"""
