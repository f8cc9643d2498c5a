"""Decoding and encoding of values: the hooks generated code registers its types with
(`hooks`, also importable as `idlc_runtime.hooks`), the typed decoders (`decoders`), the
forward-compatible slow path (`lenient`) and the id of a line that does not decode
(`unreadable`)."""
