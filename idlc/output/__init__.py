"""Where idlc meets the disk as a writer: generated packages switched in whole, and the
atomic file operations under them.

- `package` writes a generated package (`idlc.codegen.GeneratedPackage`, text only) into
  its folder with a manifest of what idlc owns there, or checks that it is up to date;
- `atomic` writes a file so that no reader sees half of it, exchanges two folders in one
  step, and locks a folder against a second `idlc generate`.

Code generation itself (`idlc.codegen`) never writes a file: it returns text.
"""
