"""Everything Qt: the window and its parts. The core packages never import this one."""
