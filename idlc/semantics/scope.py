"""The one namespace of a compilation: atoms, typedefs, interfaces and imported interfaces.

Built in two passes so that the order of files and declarations never matters: first every
definition (atoms, typedefs, interfaces), then every `import interface`, which either names
an interface defined somewhere in the compilation or makes an opaque one.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from idlc.diagnostics import Diagnostics, Related, codes
from idlc.nodes import field, node
from idlc.source import Span
from idlc.suggest import NameIndex
from idlc.syntax import ast


class Kind(enum.Enum):
    ATOM = "atom"
    TYPEDEF = "typedef"
    INTERFACE = "interface"
    OPAQUE = "opaque interface"  # imported, defined in no file of the compilation

    @property
    def article(self) -> str:
        return "an" if self.value[0] in "aeiou" else "a"

    def described(self) -> str:
        if self is Kind.OPAQUE:
            return "an imported interface that is defined in no file of the compilation"
        return f"{self.article} {self.value}"


@node(frozen=False)
class Entry:
    kind: Kind
    name: str
    span: Span  # the name in its first declaration
    #: Every declaration: atoms may be declared in several files, opaque interfaces
    #: imported by several.
    decls: list[ast.AtomDecl | ast.TypeDecl | ast.InterfaceDecl | ast.ImportDecl] = field(
        default_factory=list
    )


class Scope:
    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self._indexes: dict[tuple[tuple[Kind, ...], tuple[str, ...], int], NameIndex] = {}

    def get(self, name: str) -> Entry | None:
        return self.entries.get(name)

    def names(self, *kinds: Kind, first: tuple[str, ...] = ()) -> NameIndex:
        """The names of these kinds in declaration order, after `first`, indexed for
        did-you-mean. Built once per compilation: every unknown name of a kind asks the
        same index, and its comparison budget is shared (see `suggest`)."""
        # Entries are only ever added, so their number tells whether an index is current.
        key = (kinds, first, len(self.entries))
        index = self._indexes.get(key)
        if index is None:
            index = self._indexes[key] = NameIndex(
                [*first, *(name for name, entry in self.entries.items() if entry.kind in kinds)]
            )
        return index


#: Words that begin a type: where a type is written they are read as keywords, so a type
#: alias with one of these names could never be used.
TYPE_KEYWORDS = frozenset(
    {kind.value for kind in ast.PrimitiveKind}
    | {"optional", "list", "map", "record", "open", "enum", "variant", "union"}
)


def build_scope(files: Sequence[ast.File], diagnostics: Diagnostics) -> Scope:
    scope = Scope()
    entries = scope.entries
    for file in files:
        for decl in file.decls:
            if isinstance(decl, ast.ImportDecl):
                continue
            name = decl.name
            if isinstance(decl, ast.TypeDecl) and name.value in TYPE_KEYWORDS:
                diagnostics.add(
                    codes.TYPE_NAMED_LIKE_KEYWORD,
                    f"a type alias cannot be named `{name.value}`",
                    name.span,
                    label="a keyword where a type is written",
                    help=f"wherever a type is written, `{name.value}` is the built-in keyword, "
                    "so this alias could never be used; give it another name",
                )
            kind = (
                Kind.ATOM
                if isinstance(decl, ast.AtomDecl)
                else Kind.TYPEDEF if isinstance(decl, ast.TypeDecl) else Kind.INTERFACE
            )
            existing = entries.get(name.value)
            if existing is None:
                entries[name.value] = Entry(kind, name.value, name.span, [decl])
                continue
            if kind is Kind.ATOM and existing.kind is Kind.ATOM:
                assert isinstance(decl, ast.AtomDecl)
                first = existing.decls[0]
                assert isinstance(first, ast.AtomDecl)
                if first.id.value == decl.id.value:
                    existing.decls.append(decl)  # the same atom, declared again
                else:
                    diagnostics.add(
                        codes.ATOM_ID_MISMATCH,
                        f"atom `{name.value}` is redeclared with another id",
                        decl.id.span,
                        label=f"this declaration says {decl.id.raw}",
                        help=f"every declaration of `{name.value}` must use the id "
                        f"{first.id.raw}, or give this atom another name",
                        related=[
                            Related(f"first declared here with id {first.id.raw}", first.id.span)
                        ],
                    )
                continue
            what = kind.described()
            diagnostics.add(
                codes.DUPLICATE_DECLARATION,
                f"the name `{name.value}` is declared twice",
                name.span,
                label=f"{what} named `{name.value}` again",
                help="every atom, typedef and interface of a compilation needs its own name",
                related=[
                    Related(f"first declared here as {existing.kind.described()}", existing.span)
                ],
            )
    for file in files:
        for decl in file.decls:
            if not isinstance(decl, ast.ImportDecl):
                continue
            name = decl.name
            existing = entries.get(name.value)
            if existing is None:
                entries[name.value] = Entry(Kind.OPAQUE, name.value, name.span, [decl])
            elif existing.kind is Kind.OPAQUE:
                existing.decls.append(decl)
            elif existing.kind is not Kind.INTERFACE:
                diagnostics.add(
                    codes.WRONG_KIND,
                    f"`{name.value}` is {existing.kind.described()}, not an interface",
                    name.span,
                    label="imported as an interface",
                    help=f"remove this import; `{name.value}` is declared in this compilation",
                    related=[Related(f"`{name.value}` is declared here", existing.span)],
                )
    return scope
