"""`python -m relay_desktop` runs the relay-desktop command."""

import sys

from relay_desktop.cli import main

sys.exit(main())
