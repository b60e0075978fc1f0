"""The results tabs: Summary and its verdict, Compile insight, Logs, Environment, Code,
Profile, Weights, Ranks, and a comparison of two sessions.

Imports `common` only.
"""
