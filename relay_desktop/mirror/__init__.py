"""The phone's screen, live, over the scrcpy protocol (server 3.3.4): provisioning, stream, decoding, control.

Plain Python and asyncio (PyAV for decoding); the window reaches it through a frame sink, never the reverse.
"""
