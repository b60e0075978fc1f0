"""Reports made from a session dict (session.json's form): HTML, Markdown, CSV, JSON and a
standalone reproducer script. Torch-free and Qt-free, so the CLI, the GUI and tests share them.

Import from the modules (`tcprof.profiler.report.html`, `.markdown`, `.reproduce`, `.export`): the
package itself imports nothing, so loading one report module never loads the others first."""
