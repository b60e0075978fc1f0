"""A saved session as typed, read-only records, declared once (issue 40, item 3): `SessionModel`
(session.py) with its arms (arm.py) and rows (row.py), built from session.json's dict by one
reader, `SessionModel.from_json`; json_values.py reads a JSON value as a typed one.

The floor sits above `analysis` and below `session`: a row's verdict word, a speedup's settled
interval and a memory change are analysis's rules applied once when the model is built, so the
model imports analysis and analysis (pure functions over numbers and raw rows, also used on the
live fold's rows) does not import the model. Every floor above (folders, run, report, trackers,
recording, cli, api) and the window may read it. No Qt, no torch.
"""
