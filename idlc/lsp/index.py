"""Where every name of a unit is declared and used, built from the syntax trees.

The resolved model keeps what names mean, not where each use is written; navigation needs
both, so this walks the trees once. Atoms, typedefs and interfaces share one namespace
(docs/language.md, "Meaning and checks"): a top-level name's key is ("name", NAME). Members
are keyed by their interface: ("member", INTERFACE, MEMBER).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from idlc.source import Span
from idlc.syntax import ast

Key = tuple[str, ...]

ATOM = "atom"
TYPEDEF = "typedef"
INTERFACE = "interface"
IMPORTED = "imported interface"
VALUE = "queryable value"
RELATION = "queryable relation"
OPERATION = "operation"

_MEMBER_KINDS = {
    ast.ValueMember: VALUE,
    ast.RelationMember: RELATION,
    ast.OperationMember: OPERATION,
}


@dataclass(frozen=True, slots=True)
class Declaration:
    key: Key
    name: str
    kind: str
    #: The name as written in the declaration.
    span: Span
    node: ast.Decl | ast.Member
    #: The interface that holds a member.
    container: str | None = None


@dataclass(frozen=True, slots=True)
class Occurrence:
    """A name written somewhere: a declaration's own name or a use of one."""

    key: Key
    span: Span
    declaration: bool
    #: What kind of name the place takes: "type", "atom", "interface", or a kind above.
    expects: str


@dataclass(slots=True)
class Index:
    declarations: dict[Key, list[Declaration]] = field(default_factory=dict)
    occurrences: dict[Key, list[Occurrence]] = field(default_factory=dict)
    by_file: dict[str, list[Occurrence]] = field(default_factory=dict)
    _starts: dict[str, list[int]] = field(default_factory=dict)
    #: interface name → its members' declarations, in order
    by_interface: dict[str, list[Declaration]] = field(default_factory=dict)
    #: Top-level names of files that do not parse now, from their last good parse: still
    #: offered for completion while the file is being edited.
    remembered: dict[str, Declaration] = field(default_factory=dict)

    def at(self, file: str, offset: int) -> Occurrence | None:
        """The name written at `offset` (its end included, where a cursor after it sits)."""
        items = self.by_file.get(file, [])
        starts = self._starts.get(file, [])
        index = bisect.bisect_right(starts, offset) - 1
        while index >= 0:
            item = items[index]
            if item.span.start <= offset <= item.span.end:
                return item
            if item.span.end < offset:
                return None
            index -= 1
        return None

    def declared(self, key: Key) -> list[Declaration]:
        return self.declarations.get(key, [])

    def top_level(self) -> Iterator[Declaration]:
        """The first declaration of each top-level name, then remembered ones."""
        seen: set[str] = set()
        for key, decls in self.declarations.items():
            if key[0] == "name" and decls:
                seen.add(decls[0].name)
                yield decls[0]
        for name, decl in self.remembered.items():
            if name not in seen:
                yield decl

    def members(self, interface: str) -> list[Declaration]:
        """The members of interface `interface` (of every declaration of that name)."""
        return self.by_interface.get(interface, [])


@dataclass(frozen=True, slots=True)
class FilePart:
    """What one file declares and uses, imports aside: it depends on that file alone, so
    it is made once per parse and reused while the file is unchanged."""

    declarations: tuple[Declaration, ...]
    #: Every name written in the file, declarations' own included, in text order.
    occurrences: tuple[Occurrence, ...]


class _FileWalker:
    def __init__(self) -> None:
        self.declarations: list[Declaration] = []
        self.occurrences: list[Occurrence] = []

    def declare(self, decl: Declaration) -> None:
        self.declarations.append(decl)
        self.occurrences.append(Occurrence(decl.key, decl.span, True, decl.kind))

    def occur(self, occurrence: Occurrence) -> None:
        self.occurrences.append(occurrence)

    def file(self, file: ast.File) -> FilePart:
        for decl in file.decls:
            name = decl.name
            key: Key = ("name", name.value)
            if isinstance(decl, ast.AtomDecl):
                self.declare(Declaration(key, name.value, ATOM, name.span, decl))
            elif isinstance(decl, ast.TypeDecl):
                self.declare(Declaration(key, name.value, TYPEDEF, name.span, decl))
                self.type(decl.type)
            elif isinstance(decl, ast.InterfaceDecl):
                self.declare(Declaration(key, name.value, INTERFACE, name.span, decl))
                for member in decl.members:
                    self.member(decl, member)
            # imports depend on the other files: `build_index` settles them
        self.occurrences.sort(key=lambda item: item.span.start)
        return FilePart(tuple(self.declarations), tuple(self.occurrences))

    def member(self, interface: ast.InterfaceDecl, member: ast.Member) -> None:
        key: Key = ("member", interface.name.value, member.name.value)
        kind = _MEMBER_KINDS[type(member)]
        self.declare(
            Declaration(
                key, member.name.value, kind, member.name.span, member, interface.name.value
            )
        )
        if isinstance(member, ast.ValueMember):
            self.type(member.type)
        elif isinstance(member, ast.RelationMember):
            target = member.target
            expects = ATOM if target.kind is ast.TargetKind.ATOM else INTERFACE
            self.occur(Occurrence(("name", target.name.value), target.name.span, False, expects))
        else:
            self.type(member.input)
            self.type(member.output)

    def type(self, node: ast.TypeExpr) -> None:
        pending = [node]
        while pending:
            node = pending.pop()
            # Only these name something; every other kind of type is walked through
            # (`ast.type_children`, which lists what a new kind holds).
            if isinstance(node, ast.NamedType):
                span = node.name.span
                self.occur(Occurrence(("name", node.name.value), span, False, "type"))
            elif isinstance(node, ast.AtomRefType):
                self.occur(Occurrence(("name", node.atom.value), node.atom.span, False, ATOM))
            elif isinstance(node, ast.InterfaceRefType):
                name = node.interface
                self.occur(Occurrence(("name", name.value), name.span, False, INTERFACE))
            else:
                pending.extend(ast.type_children(node))


def file_part(file: ast.File) -> FilePart:
    return _FileWalker().file(file)


def build_index(
    files: list[ast.File],
    names_only: Iterable[ast.File] = (),
    part_of: Callable[[ast.File], FilePart] = file_part,
) -> Index:
    """The index of a unit's files (`part_of` may give remembered parts of unchanged
    files); `names_only` are files that do not parse now, by their last good parse."""
    index = Index()
    declarations = index.declarations
    occurrences = index.occurrences
    for file in files:
        part = part_of(file)
        for decl in part.declarations:
            declarations.setdefault(decl.key, []).append(decl)
            if decl.container is not None:
                index.by_interface.setdefault(decl.container, []).append(decl)
        for occurrence in part.occurrences:
            occurrences.setdefault(occurrence.key, []).append(occurrence)
        index.by_file[file.path] = list(part.occurrences)
    _settle_imports(index, files)
    for path, items in index.by_file.items():
        index._starts[path] = [item.span.start for item in items]
    for file in names_only:
        for written in file.decls:
            if isinstance(written, ast.ImportDecl):
                continue
            kind = (
                ATOM
                if isinstance(written, ast.AtomDecl)
                else TYPEDEF if isinstance(written, ast.TypeDecl) else INTERFACE
            )
            name = written.name
            index.remembered.setdefault(
                name.value, Declaration(("name", name.value), name.value, kind, name.span, written)
            )
    return index


def _settle_imports(index: Index, files: Iterable[ast.File]) -> None:
    """An import names an interface declared in the unit, or is the declaration of an
    opaque one (docs/language.md, `import interface`)."""
    for file in files:
        added: list[Occurrence] = []
        for decl in file.decls:
            if not isinstance(decl, ast.ImportDecl):
                continue
            key: Key = ("name", decl.name.value)
            declared = index.declarations.get(key)
            if declared and declared[0].kind != IMPORTED:
                occurrence = Occurrence(key, decl.name.span, False, INTERFACE)
            else:
                declaration = Declaration(key, decl.name.value, IMPORTED, decl.name.span, decl)
                index.declarations.setdefault(key, []).append(declaration)
                occurrence = Occurrence(key, decl.name.span, True, IMPORTED)
            index.occurrences.setdefault(key, []).append(occurrence)
            added.append(occurrence)
        if added:
            items = index.by_file.setdefault(file.path, [])
            items.extend(added)
            items.sort(key=lambda item: item.span.start)
