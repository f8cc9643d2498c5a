"""The resolved model as JSON (`idlc dump --json`): deterministic, readable, spans included.

Declarations are objects keyed by name, in declaration order; members, fields, enum values
and cases are lists, in source order. Types are rendered structurally:
`{"kind": "optional", "inner": {"kind": "primitive", "name": "string"}}`. An item marked
`@unstable(feature = name)` (a declaration, member, field, enum value or case: docs/language.md,
"Stability") has `"unstable": {"feature": name}`; a stable item has no such key.
"""

from __future__ import annotations

from typing import Any, assert_never

from idlc.semantics import model

JSON = dict[str, Any]

#: Bumped when the shape of the dump changes incompatibly.
FORMAT_VERSION = 1


def model_to_json(resolved: model.Model, *, spans: bool = True) -> JSON:
    """`resolved` as plain JSON values. `spans=False` leaves out every source position."""
    return _Dumper(spans).whole(resolved)


def type_to_json(type: model.Type, *, spans: bool = True) -> JSON:
    return _Dumper(spans).type_(type)


class _Dumper:
    def __init__(self, spans: bool) -> None:
        self.spans = spans

    def _with_span(self, data: JSON, span: Any) -> JSON:
        if self.spans:
            data["span"] = span.to_json()
        return data

    def _marked(self, data: JSON, unstable: model.Unstable | None) -> JSON:
        """`data` with the item's `@unstable(feature = …)`, when it has one."""
        if unstable is not None:
            data["unstable"] = self._with_span({"feature": unstable.feature}, unstable.span)
        return data

    def whole(self, resolved: model.Model) -> JSON:
        return {
            "formatVersion": FORMAT_VERSION,
            "sources": [{"path": info.path, "sha256": info.sha256} for info in resolved.sources],
            "atoms": {name: self.atom(atom) for name, atom in resolved.atoms.items()},
            "typedefs": {
                name: self.typedef(typedef) for name, typedef in resolved.typedefs.items()
            },
            "interfaces": {
                name: self.interface(interface) for name, interface in resolved.interfaces.items()
            },
            "opaqueInterfaces": {
                name: self.opaque(opaque) for name, opaque in resolved.opaque_interfaces.items()
            },
        }

    def atom(self, atom: model.Atom) -> JSON:
        data: JSON = {"name": atom.name, "id": atom.id, "doc": atom.doc}
        self._marked(data, atom.unstable)
        if self.spans:
            data["spans"] = [span.to_json() for span in atom.spans]
        return data

    def opaque(self, opaque: model.OpaqueInterface) -> JSON:
        data: JSON = {"name": opaque.name}
        if self.spans:
            data["spans"] = [span.to_json() for span in opaque.spans]
        return data

    def typedef(self, typedef: model.Typedef) -> JSON:
        data: JSON = {"name": typedef.name, "doc": typedef.doc, "type": self.type_(typedef.type)}
        return self._with_span(self._marked(data, typedef.unstable), typedef.span)

    def interface(self, interface: model.Interface) -> JSON:
        data: JSON = {
            "name": interface.name,
            "id": interface.id,
            "revision": interface.revision,
            "doc": interface.doc,
            "members": [self.member(member) for member in interface.members],
        }
        return self._with_span(self._marked(data, interface.unstable), interface.span)

    def member(self, member: model.Member) -> JSON:
        data: JSON
        match member:
            case model.Value():
                data = {
                    "kind": "value",
                    "name": member.name,
                    "id": member.id,
                    "required": member.required,
                    "doc": member.doc,
                    "type": self.type_(member.type),
                }
            case model.Relation():
                target = member.target
                data = {
                    "kind": "relation",
                    "name": member.name,
                    "id": member.id,
                    "required": member.required,
                    "doc": member.doc,
                    "cardinality": member.cardinality.value,
                    "target": (
                        {"kind": "atom", "name": target.atom}
                        if isinstance(target, model.AtomTarget)
                        else {"kind": "interface", "name": target.interface}
                    ),
                }
            case model.Operation():
                data = {
                    "kind": "operation",
                    "name": member.name,
                    "id": member.id,
                    "required": member.required,
                    "doc": member.doc,
                    "input": self.type_(member.input),
                    "output": self.type_(member.output),
                }
            case _:
                assert_never(member)
        binding = member.binding
        data["binding"] = self._with_span(
            {
                "verb": binding.verb.value,
                "id": binding.id,
                "execution": binding.execution.value if binding.execution is not None else None,
            },
            binding.span,
        )
        return self._with_span(self._marked(data, member.unstable), member.span)

    def type_(self, type: model.Type) -> JSON:
        match type:
            case model.Primitive():
                return {"kind": "primitive", "name": type.kind.value}
            case model.TypeRef():
                return {"kind": "typeRef", "name": type.name}
            case model.Optional():
                kind = "nullable" if type.nullable else "optional"
                return {"kind": kind, "inner": self.type_(type.inner)}
            case model.List():
                return {"kind": "list", "inner": self.type_(type.inner)}
            case model.Map():
                return {"kind": "map", "key": "string", "value": self.type_(type.value)}
            case model.AtomRef():
                return {"kind": "atomRef", "atom": type.atom}
            case model.InterfaceRef():
                return {"kind": "interfaceRef", "interface": type.interface}
            case model.Record():
                return {
                    "kind": "record",
                    **({"open": True} if type.open else {}),
                    "fields": [self.field(field) for field in type.fields],
                }
            case model.Enum():
                return {
                    "kind": "enum",
                    "open": type.open,
                    "values": [
                        self._with_span(
                            self._marked({"value": value.value, "doc": value.doc}, value.unstable),
                            value.span,
                        )
                        for value in type.values
                    ],
                }
            case model.Variant():
                return {
                    "kind": "variant",
                    "open": type.open,
                    "tagField": type.tag_field,
                    **(
                        {"fields": [self.field(item) for item in type.shared.fields]}
                        if type.shared is not None
                        else {}
                    ),
                    "cases": [
                        self._with_span(
                            self._marked(
                                {"tag": case.tag, "doc": case.doc, "type": self.type_(case.type)},
                                case.unstable,
                            ),
                            case.span,
                        )
                        for case in type.cases
                    ],
                    **(
                        {
                            "unknown": self._with_span(
                                {"doc": type.unknown.doc, "type": self.type_(type.unknown.type)},
                                type.unknown.span,
                            )
                        }
                        if type.unknown is not None
                        else {}
                    ),
                }
            case model.Union_():
                return {
                    "kind": "union",
                    "alternatives": [self.type_(alt) for alt in type.alternatives],
                }
            case _:
                assert_never(type)

    def field(self, field: model.Field) -> JSON:
        data: JSON = {"name": field.name, "doc": field.doc, "type": self.type_(field.type)}
        if field.default is not None:
            value = field.default.value
            shown: Any = [] if value == () else {} if value is model.EMPTY_OBJECT else value
            data["default"] = {"value": shown, "raw": field.default.raw}
        if field.lenient is not None:
            data["lenient"] = True
        if field.skip_invalid is not None:
            data["skipInvalid"] = True
        if field.null_default is not None:
            data["nullDefault"] = True
        return self._with_span(self._marked(data, field.unstable), field.span)
