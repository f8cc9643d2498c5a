"""The peer and its message handling: what one connection does with the lines it reads
and the calls it makes (docs/wire.md, "The path of one request")."""
