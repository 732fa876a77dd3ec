"""The agent loop: each step captures the screen, asks the fast agent for a plan, runs it through the safety
gates and reviews what it did (guards, step results), until the task is done.
"""
