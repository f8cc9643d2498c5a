"""Text → AST: the Lark grammar, a Transformer that builds `idlc.syntax.ast` nodes while
parsing, error recovery, and the formatter that turns an AST back into canonical text."""
