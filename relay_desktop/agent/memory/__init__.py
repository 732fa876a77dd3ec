"""What the agent keeps across steps: facts it chose to remember, each with the screen text that backs it.
"""
