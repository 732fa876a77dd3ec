"""`python -m relay_desktop.cli`: the same command as `relay-desktop`."""

import sys

from relay_desktop.cli.main import main

sys.exit(main())
