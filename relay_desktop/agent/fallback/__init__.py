"""The rule-based planner: plans from the screen alone when no model can be used.
"""
