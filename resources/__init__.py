"""Files the program reads at run time: example models (examples/) and the report's styles,
scripts and templates (report/).

A package rather than a plain folder so that the wheel and the sdist carry it and the program
finds it through `importlib.resources` (see `tcprof.profiler.config.resources.resource_path`), the same way from a
checkout, an editable install and a regular `pip install .`.
"""
