"""The main window, which connects the wings: its actions and menus, layout, title, the Help
menu, the error banner, the question before closing mid-run, and Diagnose / Apply and re-run
(runs of the current setup through the window's own Run).

The top wing: imports every wing below it.
"""
