"""Saved sessions: open, export, list, compare, recover (`actions`, signals and no window),
the Sessions dialog, rename / trash / reveal, and reading a session folder for the list.

Imports `run`, `results`, `plots` and `common`.
"""
