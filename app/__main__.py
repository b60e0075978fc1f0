"""`python -m tcprof.app`: open the Torch Compile Profiler window."""

import sys

from tcprof.app.main import main

sys.exit(main(sys.argv[1:]))
