"""The desktop window (PySide6 + pyqtgraph). Never imports torch: models run in worker
processes the engine starts.

Wings, top to bottom (each imports only the wings below it; `pyproject.toml` holds the
contracts): `window` (the main window that connects the parts, menus, layout, Diagnose and
Apply and re-run), `sessions` (saved sessions: list, open, compare, export) and `setup` (the
form: model, arms, options), `run` (one run at a time, on a thread; estimates, status),
`results` (the tabs) and `plots` (the live plots), `common` (theme, settings, background calls,
shared widgets).
`launcher` and `main` are the entry points above them all.
"""
