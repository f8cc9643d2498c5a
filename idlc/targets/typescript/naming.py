"""The TypeScript target's naming rules (docs/typescript-mapping.md, "Names").

Types, references, proxies and inline types are named as in Python (the same derived
names: `AgentDirectoryCreateAgentInput`, `AgentObjectRef`, `ItemDataControl`): a reader
of both packages finds the same class under the same name. Members and fields keep their
IDL names (camelCase on the wire and in TypeScript alike).
"""

from __future__ import annotations

import re

from idlc.targets.python import naming as python

TYPES_MODULE = "_types"
REFS_MODULE = "_refs"
INDEX_MODULE = "index"
ATOMS = "ATOMS"

#: The global names generated declarations would shadow in the modules that use them
#: (`Record<string, T>`, `Promise<T>` of async methods, `Uint8Array`), and the module-level
#: constant every package has. A declared type so named gets a trailing `_`.
RESERVED_NAMES = frozenset({"Record", "Promise", "Uint8Array", ATOMS})

#: Method names a class cannot declare as ordinary methods.
RESERVED_METHODS = frozenset({"constructor"})

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def is_identifier(name: str) -> bool:
    return bool(_IDENTIFIER.match(name))


def declared_name(name: str) -> str:
    """A typedef's or an interface's name: as in Python, the first letter upper-cased and
    leading underscores dropped; a reserved global name gets a trailing `_`."""
    stripped = name.lstrip("_")
    result = stripped[0].upper() + stripped[1:] if stripped and not stripped[0].isdigit() else name
    return result + "_" if result in RESERVED_NAMES else result


def codec_name(type_name: str) -> str:
    """The codec of a named type: `AgentSubmission` → `AgentSubmissionCodec`."""
    return type_name + "Codec"


def ref_name(declaration: str) -> str:
    return python.ref_name(declaration)


def proxy_name(interface: str) -> str:
    return declared_name(interface).rstrip("_") + "Proxy"


def method_name(member: str) -> str:
    """An interface member's method: its IDL name (`createAgent`), `constructor_` for the
    one name a class keeps."""
    return member + "_" if member in RESERVED_METHODS else member


def module_name(interface: str) -> str:
    """The module of an interface: as in Python (`agent_directory`)."""
    return python.interface_module_name(interface)


nested_name = python.nested_name
case_class_name = python.case_class_name
element_name = python.element_name
union_alternative_name = python.union_alternative_name
unknown_case_class_name = python.unknown_case_class_name
unknown_shape_name = python.unknown_shape_name
enum_key = python.enum_attribute_name


def input_name(interface: str, member: str) -> str:
    return nested_name(declared_name(interface), member) + "Input"


def output_name(interface: str, member: str) -> str:
    return nested_name(declared_name(interface), member) + "Output"


def value_name(interface: str, member: str) -> str:
    return nested_name(declared_name(interface), member) + "Value"
