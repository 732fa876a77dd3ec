"""The supervisors beside the fast agent: the planning agent (strategy and recovery), its coordination with the
loop, the progress and completion verifiers, and the app describer.
"""
