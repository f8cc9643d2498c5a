"""Target languages: what a resolved model (`idlc.semantics.model`) becomes in one language.

Each target is a mapping stage of its own, after the front end and before code generation:
it names everything the generated code will hold and reports what cannot be said in its
language. Python is the target today (`idlc.targets.python`).
"""
