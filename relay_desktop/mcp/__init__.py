"""`relay-desktop mcp`: the phone and the agent as tools of a Model Context Protocol server (the official `mcp`
SDK): the server and its tools (server.py), the phone's tools (phone.py), the routines' tools (routines.py).
"""
