"""The TypeScript target's mapping stage: the model → the TypeScript `Plan`
(docs/typescript-mapping.md). `plan.py` holds the plan's classes, `naming.py` the naming
rules, `mapping.py` the stage itself, with its own clash diagnostics (E0201, E0202 said of
TypeScript names). Code generation (`idlc/codegen/typescript/`) reads the plan and asks the
model nothing."""
