"""Stability (docs/language.md, "Stability"): `@unstable(feature = name)` and the views it makes.

A file with unstable items describes several models: the stable one (no feature), the
whole one (every feature), and one per set of features a package is generated with.
`select` makes the syntax trees of one view by dropping what belongs to a feature the view
leaves out, so every later stage runs on a view unchanged; `unstable_of` reads the
attributes of one item for the resolver, and `check_references` makes sure that no item
of a view uses what that view may have dropped (E0133), which is what lets every view
resolve.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar, assert_never

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.nodes import fields_of, is_node, replace
from idlc.semantics import model
from idlc.source import Span
from idlc.syntax import ast

#: The features of a view: a set of names, or None for every feature (the whole model).
Features = frozenset[str] | None

#: The view of the stable items only.
STABLE: Features = frozenset()
#: The view of everything written (what `idlc check` checks).
EVERY_FEATURE: Features = None

_ATTRIBUTE = "unstable"
_KEY = "feature"

_Item = TypeVar("_Item")


def unstable_of(
    attributes: tuple[ast.Attribute, ...], diagnostics: Diagnostics
) -> model.Unstable | None:
    """The `@unstable(feature = …)` among `attributes`, reporting any other (E0132)."""
    found: model.Unstable | None = None
    first: ast.Attribute | None = None
    for attribute in attributes:
        if attribute.name.value != _ATTRIBUTE:
            diagnostics.add(
                codes.UNKNOWN_ATTRIBUTE,
                f"unknown attribute `@{attribute.name.value}`",
                attribute.name.span,
                label="not an attribute of the language",
                help="the one attribute is `@unstable(feature = name)`",
            )
        elif attribute.key.value != _KEY:
            diagnostics.add(
                codes.UNKNOWN_ATTRIBUTE,
                f"`@unstable` takes `feature = name`, not `{attribute.key.value}`",
                attribute.key.span,
                label="expected `feature`",
                help="write `@unstable(feature = name)`",
            )
        elif first is not None:
            diagnostics.add(
                codes.UNKNOWN_ATTRIBUTE,
                "`@unstable` is written twice",
                attribute.span,
                label="second `@unstable`",
                help="an item belongs to one feature: keep one `@unstable(feature = …)`",
                related=[Related("first `@unstable`", first.span)],
            )
        else:
            first = attribute
            found = model.Unstable(attribute.value.value, attribute.value.span)
    return found


# -- views ---------------------------------------------------------------------------------


def keeps(attributes: tuple[ast.Attribute, ...], features: Features) -> bool:
    """Whether the view of `features` keeps an item with `attributes`."""
    if features is None:
        return True
    for attribute in attributes:
        if attribute.name.value == _ATTRIBUTE and attribute.value.value not in features:
            return False
    return True


def written_features(files: Iterable[ast.File]) -> set[str]:
    """Every feature some `@unstable(feature = …)` of `files` names."""
    found: set[str] = set()
    pending: list[object] = [file for file in files if file.has_attributes]
    while pending:
        item = pending.pop()
        if isinstance(item, ast.Attribute):
            if item.name.value == _ATTRIBUTE:
                found.add(item.value.value)
        elif isinstance(item, tuple):
            pending.extend(item)
        elif is_node(item) and not isinstance(item, _LEAVES):
            pending.extend(getattr(item, name) for name in fields_of(item))
    return found


#: Nodes with no attribute inside them.
_LEAVES = (ast.Name, ast.StringLiteral, ast.Comment, ast.Doc, ast.Binding, ast.Literal)


def check_features(files: Iterable[ast.File], features: Features, diagnostics: Diagnostics) -> None:
    """Report each feature asked for that no item of `files` is marked with (E0134): a
    misspelt name would otherwise give the stable package without a word."""
    if not features:
        return
    written = written_features(files)
    for name in sorted(features - written):
        known = ", ".join(f"`{item}`" for item in sorted(written)) or "none"
        diagnostics.add(
            codes.UNKNOWN_FEATURE,
            f"feature `{name}` is asked for, but no item of the sources is marked with it",
            None,
            help=f"the features the sources mark: {known}",
        )


def has_attributes(files: Iterable[ast.File]) -> bool:
    return any(file.has_attributes for file in files)


def select(files: list[ast.File], features: Features) -> list[ast.File]:
    """The syntax trees of the view of `features`: every item of a feature left out dropped.
    What is kept is the same object, so two views share every node they both have."""
    if features is None or not has_attributes(files):
        return files
    return [_file(file, features) for file in files]


def _file(file: ast.File, features: frozenset[str]) -> ast.File:
    if not file.has_attributes:
        return file
    decls: list[ast.Decl] = []
    for decl in file.decls:
        match decl:
            case ast.ImportDecl():
                decls.append(decl)
            case ast.AtomDecl():
                if keeps(decl.attributes, features):
                    decls.append(decl)
            case ast.TypeDecl():
                if keeps(decl.attributes, features):
                    decls.append(_same_or(decl, type=_type(decl.type, features)))
            case ast.InterfaceDecl():
                if keeps(decl.attributes, features):
                    members = tuple(_members(decl.members, features))
                    decls.append(_same_or(decl, members=members))
            case _:
                assert_never(decl)
    return replace(file, decls=tuple(decls))


def _members(members: tuple[ast.Member, ...], features: frozenset[str]) -> Iterator[ast.Member]:
    for member in members:
        if not keeps(member.attributes, features):
            continue
        match member:
            case ast.ValueMember():
                yield _same_or(member, type=_type(member.type, features))
            case ast.RelationMember():
                yield member
            case ast.OperationMember():
                yield _same_or(
                    member,
                    input=_type(member.input, features),
                    output=_type(member.output, features),
                )
            case _:
                assert_never(member)


def _type(node: ast.TypeExpr, features: frozenset[str]) -> ast.TypeExpr:
    match node:
        case ast.PrimitiveType() | ast.AtomRefType() | ast.InterfaceRefType() | ast.NamedType():
            return node
        case ast.OptionalType() | ast.ListType():
            return _same_or(node, inner=_type(node.inner, features))
        case ast.MapType():
            return _same_or(node, value=_type(node.value, features))
        case ast.RecordType():
            return _same_or(node, fields=_fields(node.fields, features))
        case ast.EnumType():
            values = tuple(v for v in node.values if keeps(v.attributes, features))
            return _same_or(node, values=values)
        case ast.VariantType():
            cases = tuple(
                _same_or(case, type=_type(case.type, features))
                for case in node.cases
                if keeps(case.attributes, features)
            )
            shared = node.shared
            if shared is not None:
                shared = _same_or(shared, fields=_fields(shared.fields, features))
            return _same_or(node, cases=cases, shared=shared)
        case ast.UnionType():
            alternatives = tuple(_type(item, features) for item in node.alternatives)
            return _same_or(node, alternatives=alternatives)
        case _:
            assert_never(node)


def _fields(fields: tuple[ast.Field, ...], features: frozenset[str]) -> tuple[ast.Field, ...]:
    return tuple(
        _same_or(field, type=_type(field.type, features))
        for field in fields
        if keeps(field.attributes, features)
    )


def _same_or(node: _Item, **parts: object) -> _Item:
    """`node` itself when every part is the one it has (so views share it), else a copy
    with the new parts."""
    if all(_same(getattr(node, name), part) for name, part in parts.items()):
        return node
    return replace(node, **parts)


def _same(old: object, new: object) -> bool:
    if isinstance(old, tuple) and isinstance(new, tuple):
        return len(old) == len(new) and all(a is b for a, b in zip(old, new, strict=True))
    return old is new


# -- E0133: what a view keeps uses only what it keeps ------------------------------------


def check_references(resolved: model.Model, diagnostics: Diagnostics) -> None:
    """Report every use of an unstable typedef, atom or interface from an item that a view
    without its feature keeps: a stable field of an unstable type, a member of another
    feature using it, … (E0133)."""
    checker = _References(resolved, diagnostics)
    for typedef in resolved.typedefs.values():
        checker.type(typedef.type, _features_of(frozenset(), typedef.unstable), typedef.name)
    for interface in resolved.interfaces.values():
        outer = _features_of(frozenset(), interface.unstable)
        for member in interface.members:
            context = _features_of(outer, member.unstable)
            where = f"{interface.name}.{member.name}"
            match member:
                case model.Value():
                    checker.type(member.type, context, where)
                case model.Relation():
                    target = member.target
                    if isinstance(target, model.AtomTarget):
                        checker.atom(target.atom, target.span, context, where)
                    else:
                        checker.interface(target.interface, target.span, context, where)
                case model.Operation():
                    checker.type(member.input, context, where)
                    checker.type(member.output, context, where)
                case _:
                    assert_never(member)


def _features_of(outer: frozenset[str], unstable: model.Unstable | None) -> frozenset[str]:
    return outer if unstable is None else outer | {unstable.feature}


class _References:
    def __init__(self, resolved: model.Model, diagnostics: Diagnostics) -> None:
        self.model = resolved
        self.diagnostics = diagnostics

    def type(self, type_: model.Type, context: frozenset[str], where: str) -> None:
        match type_:
            case model.Primitive():
                pass
            case model.Optional() | model.List():
                self.type(type_.inner, context, where)
            case model.Map():
                self.type(type_.value, context, where)
            case model.AtomRef():
                self.atom(type_.atom, type_.span, context, where)
            case model.InterfaceRef():
                self.interface(type_.interface, type_.span, context, where)
            case model.TypeRef():
                typedef = self.model.typedefs.get(type_.name)
                if typedef is not None:
                    self.use("type", typedef.name, typedef.unstable, type_.span, context, where)
            case model.Record():
                for field in type_.fields:
                    inner = _features_of(context, field.unstable)
                    self.type(field.type, inner, f"{where}.{field.name}")
            case model.Enum():
                pass
            case model.Variant():
                for case in type_.cases:
                    self.type(case.type, _features_of(context, case.unstable), where)
                if type_.unknown is not None:
                    self.type(type_.unknown.type, context, where)
                if type_.shared is not None:
                    self.type(type_.shared, context, where)
            case model.Union_():
                for alternative in type_.alternatives:
                    self.type(alternative, context, where)
            case _:
                assert_never(type_)

    def atom(self, name: str, span: Span, context: frozenset[str], where: str) -> None:
        atom = self.model.atoms.get(name)
        if atom is not None:
            self.use("atom", name, atom.unstable, span, context, where)

    def interface(self, name: str, span: Span, context: frozenset[str], where: str) -> None:
        interface = self.model.interfaces.get(name)
        if interface is not None:
            self.use("interface", name, interface.unstable, span, context, where)

    def use(
        self,
        kind: str,
        name: str,
        unstable: model.Unstable | None,
        span: Span,
        context: frozenset[str],
        where: str,
    ) -> None:
        if unstable is None or unstable.feature in context:
            return
        feature = unstable.feature
        if context:
            shown = ", ".join(f"`{item}`" for item in sorted(context))
            user = f"`{where}` (of {shown})"
        else:
            user = f"stable `{where}`"
        self.diagnostics.add(
            codes.STABLE_USES_UNSTABLE,
            f"{user} uses {kind} `{name}`, which is unstable (feature `{feature}`)",
            span,
            label=f"unstable `{name}`",
            help=f"mark what uses it `@unstable(feature = {feature})` too, or make `{name}` "
            "stable: a view without the feature would not have it",
            related=[Related(f"`{name}` is marked unstable here", unstable.span)],
        )
