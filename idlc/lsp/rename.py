"""Renaming a declared name everywhere it is written, or saying why not.

A rename is refused when the new name is not an identifier, is a built-in type keyword for
a typedef (E0124), or would clash: with any atom, typedef or interface of the unit (one
namespace), or with another member of the same interface, in IDL or in Python (E0113).
"""

from __future__ import annotations

import re

from idlc.lsp.index import TYPEDEF, Index, Key, Occurrence
from idlc.semantics.scope import TYPE_KEYWORDS
from idlc.targets.python.naming import member_name

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class RenameRefused(Exception):
    """Why a rename cannot be done, in words for the editor to show."""


def rename_edits(index: Index, key: Key, new_name: str) -> list[Occurrence]:
    """Every place to rewrite to `new_name`; raises RenameRefused when it must not be done."""
    decls = index.declared(key)
    if not decls:
        raise RenameRefused(f"`{key[-1]}` is declared nowhere in this compilation")
    old = decls[0].name
    if not _NAME.fullmatch(new_name):
        raise RenameRefused(
            f"`{new_name}` is not a name: use letters, digits and `_`, not starting with a digit"
        )
    if new_name == old:
        return []
    if key[0] == "name":
        if decls[0].kind == TYPEDEF and new_name in TYPE_KEYWORDS:
            raise RenameRefused(
                f"a type alias cannot be named `{new_name}`: it is a built-in type keyword"
            )
        existing = index.declared(("name", new_name))
        if existing:
            other = existing[0]
            raise RenameRefused(
                f"`{new_name}` is already declared, as {_article(other.kind)} {other.kind} in "
                f"{other.span.file}:{other.span.line}"
            )
    else:
        interface = key[1]
        for member in index.members(interface):
            if member.key == key:
                continue
            if member.name == new_name or member_name(member.name) == member_name(new_name):
                raise RenameRefused(
                    f"interface `{interface}` already has a member `{member.name}`"
                    + (
                        ""
                        if member.name == new_name
                        else f", which becomes the same Python method `{member_name(new_name)}`"
                    )
                )
    return list(index.occurrences.get(key, []))


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"
