"""`python -m app`: open the Torch Compile Profiler window."""

import sys

from app.main import main

sys.exit(main(sys.argv[1:]))
