"""`python -m tcprof.profiler`: the headless commands; the window opens with `tcprof` or `python -m tcprof.app`."""

import sys

from tcprof.profiler.cli.main import main

sys.exit(main())
