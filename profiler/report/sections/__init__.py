"""The report's sections, one module each (compile list, ladder, regional compile, stragglers,
script, top operators, provenance, source context, and the page's common parts), shared by
report.html and report.md. Imports nothing itself."""
