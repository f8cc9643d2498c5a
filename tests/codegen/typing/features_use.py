"""Typed use of variants, unions, enums and relations of the feature corpus."""

from __future__ import annotations

from typing import Any

from gen_acp_constructs import ElicitationAnswer
from gen_features import (
    Change,
    ChangeCleared,
    ChangeCreated,
    ChangeRenamed,
    DocumentObjectRef,
    DocumentStoreProxy,
    Flavor,
    Shape,
    ShapeCircle,
    ShapeDefault,
    ShapeUnknown,
)


def describe(change: Change) -> str:
    if isinstance(change, ChangeCreated):
        return change.document
    if isinstance(change, ChangeRenamed):
        return change.new_name
    assert isinstance(change, ChangeCleared)
    return "cleared"


def area(shape: Shape) -> float:
    if isinstance(shape, ShapeCircle):
        return 3.14 * shape.radius**2
    if isinstance(shape, ShapeDefault):
        return float(len(shape.points))
    assert isinstance(shape, ShapeUnknown)
    return 0.0


def answer_meta(answer: ElicitationAnswer) -> dict[str, Any] | None:
    # Every case carries the shared fields, the unknown one too: no narrowing needed.
    return answer.meta


def flavor_known(flavor: Flavor) -> bool:
    return flavor.known


async def documents(proxy: DocumentStoreProxy) -> frozenset[DocumentObjectRef]:
    return await proxy.documents()
