"""The Python target: the mapping of a resolved model onto Python names and classes.

- `naming`: every generated name, from the IDL's names (pure functions);
- `names`: two IDL names of one scope that would be one Python name (E0113), checked on any
  model, also one with other errors;
- `mapping`: the package's plan, every class's name and module and every union's bases,
  the facts code generation reads instead of asking the model, and what Python cannot hold (E0201–E0205), on a model without errors;
- `decoding`: which types msgspec decodes natively and which through the runtime's hooks;
- `hints`: how a type's Python form is written (a field's default, `None` types), kept in
  the plan as facts.

`map_model` runs the stage; `idlc check` and `idlc generate` both run it (through
`idlc.pipeline.compile_files`), so `check` rejects all that `generate` would. See
docs/python-mapping.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from idlc.diagnostics import Diagnostics

if TYPE_CHECKING:
    from idlc.semantics.model import Model
    from idlc.targets.python.mapping import Plan


def map_model(
    model: Model, diagnostics: Diagnostics, *, complete: bool = True, facts: bool = True
) -> Plan | None:
    """Check `model`'s Python names and, when it is `complete` (the front end found no
    error), plan its package, with the facts code generation reads when `facts`
    (`mapping.plan`); every problem is added to `diagnostics`. None when the model is not
    complete or cannot be mapped."""
    from idlc.targets.python import mapping, names

    found = Diagnostics()
    names.check_names(model, found)
    planned = None
    if complete and not found.has_errors:
        planned = mapping.plan(model, found, facts=facts)
    diagnostics.extend(found)
    return None if found.has_errors else planned
