"""Generating Python packages from IDL while a downstream project is built (see `hatch`)."""
