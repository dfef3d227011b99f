"""`python -m kubelite` runs the command line."""

import sys

from kubelite.cli import main

sys.exit(main())
