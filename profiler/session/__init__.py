"""A session in memory: events folded into per-arm records (`fold`), and the per arm x batch
size rows of `session.json` derived from them (`rows`).

Imports `analysis`, `config` and `protocol`; it never reads or writes files itself (`store`
does).
"""
