"""Text → AST: the Lark grammar, an LALR driver over Lark's tables whose builder makes
`idlc.syntax.ast` nodes while parsing, error recovery, and the formatter that turns an AST
back into canonical text."""
