"""What every wing of the window uses: the theme, settings, calls run in the background,
engine terms in the window's words (`field_names`), a notice bar and table text helpers.

The bottom wing: imports only the engine.
"""
