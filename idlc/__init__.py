"""idlc — compile a small interface definition language into typed Python."""

__version__ = "0.1.0"
