"""The view models: what the templates of `templates/` write, as data.

Every decision is here — names, flags, type expressions (`TypeExpr`), literal values
already written as Python literals, docs as text — and none of the shape: the templates
spell out every statement (`class …(msgspec.Struct, …)`, `async def …`, the `MethodSpec`
table). Nothing here is generated code. Built by `idlc.codegen.build`.
"""

from __future__ import annotations

from typing import Literal

from idlc.codegen.typeexpr import TypeExpr
from idlc.nodes import field, node
from idlc.source import Span
from idlc.targets.python.mapping import InputStyle


@node
class Doc:
    """A doc comment (as written in the IDL) and idlc's own sentence added after it; the
    `docstring` filter writes it for the indentation the template puts it at."""

    text: str | None
    note: str | None = None


def doc_of(text: str | None) -> Doc | None:
    return None if text is None else Doc(text)


# -- type definitions -----------------------------------------------------------------------


@node(frozen=False)
class FieldView:
    """A field of a record class (also a keyword argument of a proxy method)."""

    attribute: str
    annotation: TypeExpr
    #: The wire name (the IDL name); `renamed` when the attribute is spelled otherwise.
    wire: str
    renamed: bool
    #: The default as a Python literal (`None`, `0`, `"x"`, `Mode.FAST`; never empty), or
    #: None: required.
    default: str | None
    #: `list`, `dict` or a record class when the default is a new value each time (`[]`,
    #: `{}`).
    factory: str | None
    doc: Doc | None

    @property
    def argument_default(self) -> str | None:
        """The default of the keyword argument (a factory's default has none: required)."""
        return None if self.factory is not None else self.default


@node(frozen=False)
class EnumMemberView:
    name: str
    value: str  # the Python literal of the wire value
    doc: Doc | None


ClassKind = Literal["struct", "enum", "marker", "unknown", "open"]
#: What a marker class marks: a hooked variant's cases (`_hooks.VariantBase`) or a union's
#: alternatives (`_hooks.UnionBase`).
MarkerKind = Literal["variant", "union"]


@node(frozen=False)
class ClassView:
    """A generated class. Its bases are facts (`parent`, `choices`, `open`, `marks`,
    `of_lists`); the template writes each kind's class statement.

    `struct`: a record or variant case (`msgspec.Struct`, or the record class `parent` it
    extends; keyword-only, defaults omitted);
    `enum`: an enum (`open`: one that keeps unknown values);
    `marker`: the empty base of a variant's cases or a union's alternatives (`marks`);
    `unknown`: the case of an open variant keeping an unknown tag (its `fields` are the
    variant's shared fields, read-only properties over the struct `shared`);
    `open`: an `open record` (`hooks.OpenRecord`) wrapping the struct `fields_class` of its
    declared fields, whose `fields` it lists as a struct's, then `extra`.
    """

    name: str
    kind: ClassKind
    doc: Doc | None = None
    fields: list[FieldView] = field(default_factory=list)
    members: list[EnumMemberView] = field(default_factory=list)
    #: A tagged variant case: the tag's field and value, as Python literals.
    tag_field: str | None = None
    tag: str | None = None
    #: Names of classes of the same module this one derives from or whose `{}` default
    #: it builds (emitted first).
    after: tuple[str, ...] = ()
    #: An unknown case's struct of shared fields.
    shared: str | None = None
    #: `open`: the struct of the declared fields.
    fields_class: str | None = None
    #: `unknown`: the type of the variant's `unknown: T;`, whose value the class carries,
    #: and the fields of it the class exposes (read-only properties).
    typed: TypeExpr | None = None
    typed_fields: list[FieldView] = field(default_factory=list)
    #: `struct`: the record class it extends (a case of a named record); None: it is a
    #: `msgspec.Struct` of its own.
    parent: str | None = None
    #: `struct`, `unknown`, `open`: the marker classes it derives from after its first
    #: base, in order — its variant's, a union's it is an alternative of, its case's.
    choices: list[str] = field(default_factory=list)
    #: `enum`: whether it is open (`_hooks.OpenEnum`).
    open: bool = False
    #: `marker`: what it marks, and whether the union's values are lists (the marker is a
    #: list then: the hook returns an instance of it).
    marks: MarkerKind = "variant"
    of_lists: bool = False
    #: `marker` of a union: its last alternative is `json` (`_hooks.CatchAllUnionBase`).
    catch_all: bool = False


@node(frozen=False)
class AliasView:
    """`name: typing.TypeAlias = A | B`; for a hooked choice, what mypy sees is that union
    while at run time `name` is the marker base class `runtime` (`if typing.TYPE_CHECKING`)."""

    name: str
    alternatives: list[TypeExpr]
    runtime: str | None
    doc: Doc | None
    depends: frozenset[str]
    span: Span | None = None


@node(frozen=False)
class IntegerAliasView:
    """A bounded integer (`_UInt8`): `typing.Annotated[int, msgspec.Meta(ge=…, le=…)]`, or
    for `uint64`, beyond what msgspec bounds, a class of the hooks that checks it."""

    name: str
    low: int
    high: int
    checked_by_hooks: bool


@node(frozen=False)
class CaseView:
    tag: str  # Python literal
    class_name: str


@node(frozen=False)
class VariantInfoView:
    """How a hooked variant decodes: `<base>.__idlc_variant__ = _hooks.VariantInfo(…)`."""

    base: str
    tag_field: str  # Python literal
    cases: list[CaseView]
    default: str | None
    unknown: str | None
    #: The struct of the shared fields an unknown case carries.
    fields: str | None = None
    #: The variant's `unknown: T;`, if written.
    unknown_type: str | None = None
    kind: Literal["variant"] = "variant"


@node(frozen=False)
class UnionInfoView:
    """How a union of records decodes: `<base>.__idlc_union__ = _hooks.UnionInfo(…)`."""

    base: str
    alternatives: list[TypeExpr]
    kind: Literal["union"] = "union"


@node(frozen=False)
class ForwardCompatibleView:
    """The forward-compatible fields of a record class (docs/language.md, "Forward-compatible
    fields"): `_hooks.forward_compatible(<class>, lenient=(…), …)`; each list holds the
    attributes' names as Python literals and may be empty (then it is left out)."""

    class_name: str
    lenient: list[str]
    skip_invalid: list[str]
    null_default: list[str]
    kind: Literal["forward_compatible"] = "forward_compatible"


@node(frozen=False)
class RefView:
    """A reference type of `_refs`: `typing.NewType(name, str)`."""

    name: str
    doc: Doc


# -- interfaces -----------------------------------------------------------------------------

_SHAPES = {"none": "UNIT", "fields": "RECORD", "object": "RECORD", "wrapped": "WRAPPED"}


@node(frozen=False)
class MethodView:
    name: str
    #: The member's method id on the wire, as a Python literal.
    wire: str
    doc: Doc | None
    required: bool
    notify: bool
    input_style: InputStyle
    #: `fields`: the keyword arguments (the inline record's fields).
    params: list[FieldView]
    #: `object` and `wrapped`: the annotation of the argument `input`.
    input: TypeExpr | None
    #: The class the params decode to (`None` for a unit input).
    params_type: TypeExpr
    #: What the method returns, and the type the result decodes to (a set of relation
    #: targets returns a `frozenset` but decodes as `_hooks.UniqueSet`).
    returns: TypeExpr
    result_type: TypeExpr
    #: The dispatch table's adapter function.
    invoke: str
    #: `SNAPSHOT`, `TRANSACTION` (a member of `_rt.Execution`), or None.
    execution: str | None
    #: Whether `result_type` is a union for mypy (`X | None`, a union's alias): no class,
    #: so the caller's `request` returns it untyped and the proxy casts it to `returns`
    #: (`idlc_runtime.Caller`). Decided once every alias of the package is known.
    result_is_union: bool = False

    @property
    def shape(self) -> str:
        """The member of `_rt.InputShape` (docs/wire.md §4), from `input_style`."""
        return _SHAPES[self.input_style]

    @property
    def returns_value(self) -> bool:
        """Whether the method returns something (not `None`)."""
        return not self.returns.is_none

    @property
    def casts_result(self) -> bool:
        """Whether the proxy casts what its caller's `request` returns: a union result,
        which comes back untyped (`idlc_runtime.Caller`)."""
        return self.result_is_union and self.returns_value and not self.notify


@node(frozen=False)
class InterfaceView:
    name: str
    idl_name: str
    proxy: str
    doc: Doc | None
    id: str
    revision: str
    methods: list[MethodView]


# -- modules --------------------------------------------------------------------------------


@node(frozen=False)
class ImportView:
    """`from .<module> import <names>`, or from another package (a dotted `module`: the
    stable package a package of unstable features borrows from)."""

    module: str
    names: list[str]

    @property
    def source(self) -> str:
        return self.module if "." in self.module else "." + self.module


@node
class Uses:
    """The modules a generated module imports: `_rt` (`runtime`, with `Unsupported`) and
    `_hooks` (`hooks`) of the runtime, and the standard ones and msgspec by their names."""

    abc: bool = False
    enum: bool = False
    typing: bool = False
    msgspec: bool = False
    runtime: bool = False
    hooks: bool = False


@node(frozen=False)
class ModuleView:
    """One generated Python module."""

    name: str  # without `.py`
    doc: str
    #: In the order they are written (`idlc.codegen.order`) once the module is built.
    classes: list[ClassView] = field(default_factory=list)
    aliases: list[AliasView] = field(default_factory=list)
    registrations: list[VariantInfoView | UnionInfoView | ForwardCompatibleView] = field(
        default_factory=list
    )
    interface: InterfaceView | None = None
    # name → module it comes from
    imports: dict[str, str] = field(default_factory=dict)
    #: What the header imports, read from the rest once the module is built
    #: (`idlc.codegen.uses`).
    uses: Uses = Uses()
    integer_aliases: dict[str, IntegerAliasView] = field(default_factory=dict)
    public: list[str] = field(default_factory=list)
    #: `_refs` only: the reference types, and (IDL name, id) of every atom in declaration
    #: order (the `ATOMS` map).
    refs: list[RefView] = field(default_factory=list)
    atoms: list[tuple[str, str]] = field(default_factory=list)

    @property
    def import_groups(self) -> list[ImportView]:
        by_module: dict[str, list[str]] = {}
        for name, module in self.imports.items():
            if module != self.name:
                by_module.setdefault(module, []).append(name)
        # Another package's modules (dotted) first, as isort orders absolute before relative.
        ordered = sorted(by_module, key=lambda module: ("." not in module, module))
        return [ImportView(module, sorted(by_module[module])) for module in ordered]

    @property
    def sorted_integer_aliases(self) -> list[IntegerAliasView]:
        return [self.integer_aliases[name] for name in sorted(self.integer_aliases)]


@node(frozen=False)
class PackageView:
    modules: list[ModuleView]
    #: What `__init__` imports from each module, and the sorted `__all__`.
    exports: list[ImportView]
    all_names: list[str]
    #: The runtime API the package requires at import (`idlc_runtime.require_api`).
    runtime_api: int
