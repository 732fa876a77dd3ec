"""Split screen: two apps side by side, one agent loop per half, coordinated to do one task.
"""
