"""Relay Desktop: drive an Android phone with an LLM agent, and watch it work."""

__version__ = "0.1.0"
