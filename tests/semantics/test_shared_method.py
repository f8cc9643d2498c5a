"""One JSON-RPC method as a request and a notification, of one interface or of two
(docs/language.md, "Bindings"; ACP's `mcp/message` and `proxy/successor`): the only reuse of
a binding id E0111 allows."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import codes
from idlc.pipeline import compile_files


def _compile(text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "shared.idl"
        source.write_text(text, encoding="utf-8")
        compilation = compile_files([source])
    return [d.code.id for d in compilation.diagnostics if d.code.id.startswith("E")]


def _idl(uses: list[tuple[int, bool]]) -> str:
    """Interfaces I0 … with one member per use of the method `m/message`: a notification or
    a call, in the interface of that index."""
    members: dict[int, list[str]] = {}
    for number, (interface, notify) in enumerate(uses):
        binding = (
            'notify id "m/message";' if notify else 'call id "m/message" execution transaction;'
        )
        members.setdefault(interface, []).append(
            f'  operation op{number} id "m:{number}" : unit -> unit {{ {binding} }}'
        )
    return "".join(
        f'interface I{index} id "i{index}" revision "i{index}@1" {{\n' + "\n".join(body) + "\n}\n"
        for index, body in members.items()
    )


def test_a_request_and_a_notification_of_two_interfaces_share_a_method() -> None:
    assert _compile(_idl([(0, False), (1, True)])) == []


def test_one_interface_may_have_both() -> None:
    assert _compile(_idl([(0, False), (0, True)])) == []


def test_two_requests_or_two_notifications_still_collide() -> None:
    assert _compile(_idl([(0, False), (1, False)])) == [codes.DUPLICATE_BINDING_ID.id]
    assert _compile(_idl([(0, True), (1, True)])) == [codes.DUPLICATE_BINDING_ID.id]


def test_the_diagnostic_names_the_kind_and_the_first_use(tmp_path: Path) -> None:
    source = tmp_path / "same.idl"
    source.write_text(_idl([(0, True), (1, False), (1, True)]), encoding="utf-8")
    [diagnostic] = [
        d for d in compile_files([source]).diagnostics if d.code is codes.DUPLICATE_BINDING_ID
    ]
    assert "one request and one notification at most" in (diagnostic.help or "")
    assert "first notification is in I0" in (diagnostic.help or "")
    assert diagnostic.related and diagnostic.related[0].span.start < diagnostic.span.start


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.booleans()), min_size=1, max_size=4))
def test_e0111_is_exactly_the_rule(uses: list[tuple[int, bool]]) -> None:
    requests = [interface for interface, notify in uses if not notify]
    notifications = [interface for interface, notify in uses if notify]
    allowed = len(requests) <= 1 and len(notifications) <= 1
    found = _compile(_idl(uses))
    assert (found == []) == allowed, (uses, found)
    assert set(found) <= {codes.DUPLICATE_BINDING_ID.id}
