"""AST → resolved model: name resolution, checks, lints."""
