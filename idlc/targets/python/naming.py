"""Every Python name idlc gives to something from an IDL file is decided here.

Keeping the rules in one place means the resolver can report two IDL names that would
become the same Python name (`fooBar` and `foo_bar`) before any code is generated, with
exactly the names the generator will use.
"""

from __future__ import annotations

import functools
import keyword
import re
from collections.abc import Iterable

# The names generated modules take for themselves, as their runtime lists them (`Unsupported`,
# `typing.TYPE_CHECKING`, the skeleton's `INTERFACE_ID` and `REVISION`, the package's
# `ATOMS`, the imported modules): a declared name equal to one gets a trailing `_`.
from idlc_runtime.contract import RESERVED_NAMES

_WORD_BOUNDARY_1 = re.compile(r"([A-Z]+)([A-Z][a-z])")
_WORD_BOUNDARY_2 = re.compile(r"([a-z0-9])([A-Z])")
_NOT_IDENTIFIER = re.compile(r"[^0-9A-Za-z_]+")


def _escape(name: str) -> str:
    if not name:
        return "_"
    if name[0].isdigit():
        name = "_" + name
    if keyword.iskeyword(name) or keyword.issoftkeyword(name) and name == "_":
        name += "_"
    return name


# The name functions are pure and asked again and again for the same few names (every
# record has a `name` field, every field's type names a class): the ones asked per field
# or per type are remembered for the life of the process.
@functools.cache
def snake_case(name: str) -> str:
    """`createAgent` → `create_agent`, `HTTPServer` → `http_server`, `class` → `class_`."""
    name = _NOT_IDENTIFIER.sub("_", name)
    name = _WORD_BOUNDARY_1.sub(r"\1_\2", name)
    name = _WORD_BOUNDARY_2.sub(r"\1_\2", name)
    return _escape(name.lower())


@functools.cache
def pascal_case(name: str) -> str:
    """`agent_message_chunk` → `AgentMessageChunk`, `createAgent` → `CreateAgent`."""
    parts = [part for part in _NOT_IDENTIFIER.sub("_", snake_case(name)).split("_") if part]
    result = "".join(part[:1].upper() + part[1:] for part in parts)
    return _escape(result)


@functools.cache
def member_name(name: str) -> str:
    """The Python method for an interface member: snake_case, leading underscores dropped
    (as for fields), and a trailing `_` where the name would shadow, inside the skeleton and
    proxy classes, a name their bodies use (`list` → `list_`, `abc` → `abc_`)."""
    result = field_name(name)
    return result + "_" if result in METHOD_BODY_NAMES else result


@functools.cache
def field_name(name: str) -> str:
    """The Python attribute (and keyword argument) for a record field.

    Leading underscores are dropped (`_meta` → `meta`): in Python they would mark the
    attribute private, which a field of a message is not; the wire name keeps them.
    """
    return snake_case(name.lstrip("_") or name)


def enum_member_name(value: str) -> str:
    """The Python enum member for a string enum value: `end_turn` → `END_TURN`."""
    return _escape(snake_case(value).rstrip("_").upper() if value else "EMPTY")


# -- generated classes and modules ----------------------------------------------------------
#
# Declared names (typedefs, interfaces, atoms) are kept as written: they are already
# identifiers and usually PascalCase. Everything idlc has to invent is built from the names
# around it, so a reader can find the IDL text a class came from.

#: The lower-case names that generated record class bodies use: the builtins of annotations
#: and defaults, the modules whose attributes they name (`msgspec.field`), and `self`. A
#: record attribute with one of these names would shadow it inside the class body (msgspec
#: and mypy resolve annotations there; defaults are evaluated there), so such names get a
#: trailing `_` like keywords do. Class names never need this: they always start with a
#: capital letter (`declared_name`). A test checks every generated module against these sets.
CLASS_BODY_NAMES = frozenset(
    {"bool", "bytes", "dict", "float", "frozenset", "int", "list", "str", "self"}
    | {"msgspec", "typing"}
)
#: The same for the skeleton and proxy classes of an interface, whose bodies also use
#: `@abc.abstractmethod`: the names their methods must not take.
METHOD_BODY_NAMES = CLASS_BODY_NAMES | {"abc"}

#: The modules every package has: the typedefs (and the inline types inside them), and
#: the reference types of atoms and interfaces. Each interface has a module of its own
#: (`interface_module_name`).
TYPES_MODULE = "_types"
REFS_MODULE = "_refs"

#: The package's map of atoms, IDL name → atom id (in `_refs`, exported by the package).
ATOMS = "ATOMS"


@functools.cache
def declared_name(name: str) -> str:
    """The Python class (or alias) for a typedef or an interface: the IDL name, made a class
    name that no generated code can mistake for anything else (docs/python-mapping.md).

    Leading underscores are dropped (names starting with `_` are the generated modules'
    own: `_Int8`, `_ShapeBase`) and the first letter is upper-cased: `float` → `Float`,
    `__init__` → `Init__`. So no class can shadow a builtin, a module or an attribute, all of
    which are lower-case. Keywords and the names in `RESERVED_NAMES` get a trailing `_`
    (`none` → `None_`, `Unsupported` → `Unsupported_`). A name with no letter before its
    first digit (`_`, `_1`) keeps its underscores: the Python mapping rejects it (E0202).
    """
    result = _class_stem(name)
    if keyword.iskeyword(result) or result in RESERVED_NAMES:
        result += "_"
    return result


def _class_stem(name: str) -> str:
    """`declared_name` before a keyword gets its `_`: what derived names start with
    (`None` → `NoneRef`, not `None_Ref`)."""
    stripped = name.lstrip("_")
    if not stripped or stripped[0].isdigit():
        return _escape(name)
    return stripped[0].upper() + stripped[1:]


@functools.cache
def attribute_name(name: str) -> str:
    """The attribute of a generated record class for field `name` (also its keyword argument).

    `field_name`, plus a trailing `_` where the name would shadow a name the class body
    needs (`str` → `str_`, see `CLASS_BODY_NAMES`).
    """
    result = field_name(name)
    return result + "_" if result in CLASS_BODY_NAMES else result


def nested_name(owner: str, part: str) -> str:
    """An inline type named from where it stands: (`ItemData`, `control`) → `ItemDataControl`."""
    return owner + pascal_case(part).rstrip("_")


def input_class_name(interface: str, member: str) -> str:
    """`AgentDirectory`, `createAgent` → `AgentDirectoryCreateAgentInput`."""
    return nested_name(declared_name(interface), member) + "Input"


def output_class_name(interface: str, member: str) -> str:
    """`AgentRequest`, `claim` → `AgentRequestClaimOutput`."""
    return nested_name(declared_name(interface), member) + "Output"


def value_class_name(interface: str, member: str) -> str:
    """The inline type of a queryable value: `AgentRequest`, `spawned` → `AgentRequestSpawnedValue`."""
    return nested_name(declared_name(interface), member) + "Value"


def params_class_name(interface: str, member: str) -> str:
    """The `{"input": …}` wrapper of a non-record input: `AgentDirectoryNotificationSentParams`."""
    return nested_name(declared_name(interface), member) + "Params"


@functools.cache
def ref_name(declaration: str) -> str:
    """The reference class of an atom or interface: `AgentObject` → `AgentObjectRef`."""
    return _class_stem(declaration) + "Ref"


def proxy_name(interface: str) -> str:
    """The caller-side class of an interface: `AgentDirectory` → `AgentDirectoryProxy`."""
    return _class_stem(interface) + "Proxy"


def case_suffix(tag: str | None) -> str:
    """What a variant case adds to the variant's name for its class: `http` → `Http`.

    The `default:` case (tag None) is `Default`; a tag with no letter or digit is `Case`.
    The resolver reports two cases of one variant with the same suffix.
    """
    if tag is None:
        return "Default"
    return pascal_case(tag).rstrip("_") or "Case"


def case_class_name(variant: str, tag: str | None) -> str:
    """The class of a variant case: (`McpServer`, `http`) → `McpServerHttp`."""
    return variant + case_suffix(tag)


#: The suffix of the class keeping an unknown tag of an `open variant`.
UNKNOWN_CASE_SUFFIX = "Unknown"


def unknown_case_class_name(variant: str, tags: Iterable[str | None]) -> str:
    """The class keeping an unknown tag of an `open variant` whose cases have `tags`:
    `McpServerUnknown`, or `StateUpdateUnknown_` when a case (tagged `"unknown"`) is
    `StateUpdateUnknown` already (docs/language.md, "Variants").

    A taken name gets a trailing `_`, as keywords and the generated modules' own names do
    (`declared_name`). No case can take that one: a case suffix never ends with `_`
    (`case_suffix` strips it), so the rule holds whatever the tags are.
    """
    taken = any(case_suffix(tag) == UNKNOWN_CASE_SUFFIX for tag in tags)
    return variant + UNKNOWN_CASE_SUFFIX + ("_" if taken else "")


def shared_fields_class_name(variant: str) -> str:
    """The struct of the shared fields (`fields { … }`) the unknown case of an `open variant`
    carries: `Request` → `_RequestFields`."""
    return f"_{variant}Fields"


#: The attribute of an `open record`'s class holding the members it does not declare
#: (`idlc_runtime.hooks.OpenRecord`; docs/language.md, "Open records").
OPEN_RECORD_EXTRA = "extra"


def unknown_shape_name(unknown_class: str) -> str:
    """An inline type written as a variant's `unknown: T;`, named after the class of its
    unknown tags: `CreateElicitationRequestUnknown` → `CreateElicitationRequestUnknownShape`."""
    return unknown_class + "Shape"


def open_record_fields_class_name(record: str) -> str:
    """The struct of the declared fields of an `open record`, which its class wraps:
    `McpError` → `_McpErrorFields`."""
    return f"_{record}Fields"


def choice_base_name(choice: str) -> str:
    """The marker base class every case of a hooked variant, or every alternative of a union
    msgspec cannot decode natively, derives from: `Shape` → `_ShapeBase`."""
    return f"_{choice}Base"


def invoke_function_name(member: str) -> str:
    """The dispatch table's adapter of a member's Python method: `create_agent` →
    `_invoke_create_agent` (module level, beside the skeleton)."""
    return f"_invoke_{member}"


def integer_alias_name(kind: str) -> str:
    """The module-level bounded-integer alias of an IDL integer type: `uint8` → `_UInt8`."""
    unsigned = kind.startswith("u")
    return ("_UInt" if unsigned else "_Int") + kind.removeprefix("u").removeprefix("int")


def element_name(alias: str, container: str) -> str:
    """An inline type inside a typedef that is itself a list, map or optional: the alias keeps
    the declared name, so the inline type gets one of its own.

    (`Entries`, `list`) → `EntriesItem`; (`Table`, `map`) → `TableValue`; (`Maybe`,
    `optional`) → `MaybeValue`.
    """
    return alias + ("Item" if container == "list" else "Value")


def union_alternative_name(union: str, index: int) -> str:
    """An inline record inside a union: (`Resource`, 0) → `ResourceOption1`."""
    return f"{union}Option{index + 1}"


def interface_module_name(interface: str) -> str:
    """The module of the generated package holding an interface: `agent_directory`."""
    return snake_case(interface.lstrip("_") or interface)


@functools.cache
def enum_attribute_name(value: str) -> str:
    """The member of a generated enum: `enum_member_name`, made a usable `enum.Enum` member.

    Leading underscores are dropped (`_x_`-style names are reserved by `enum`), and a value
    with no ASCII letter or digit left becomes `VALUE`; collisions are reported.
    """
    name = enum_member_name(value).lstrip("_")
    if not name or not name.strip("_"):
        return "VALUE"
    if name[0].isdigit():
        name = "V" + name
    return name if not keyword.iskeyword(name) else name + "_"
