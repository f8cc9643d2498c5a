"""The module path generated code and docs/python-mapping.md name (`from idlc_runtime
import hooks`): the definitions live in `idlc_runtime.codec.hooks`, re-exported here as
they are (the same objects)."""

from idlc_runtime.codec.hooks import *  # noqa: F403
from idlc_runtime.codec.hooks import __all__ as __all__
