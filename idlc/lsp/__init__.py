"""The IDL language server (`idlc lsp`): the compiler's own diagnostics, navigation,
formatting and completion in editors. See docs/editors.md.

Only `server` imports pygls (the `idlc[lsp]` extra); the other modules of this package
know nothing of LSP and are what the server is made of.
"""
