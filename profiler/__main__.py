"""`python -m profiler`: the headless commands; the window opens with `tcprof` or `python -m app`."""

import sys

from profiler.cli import main

sys.exit(main())
