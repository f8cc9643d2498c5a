"""The official TypeScript SDK's experimental/v2 client drives examples/acp_reference_agent.py
at protocol version 2: one scenario per v2 session capability (js/reference_client_v2.mjs),
on stdio, and the ownership scenario over two WebSocket connections to one `--listen`
process.

Every message both ways is recorded (tee.py) and checked against the vendored v2 schema;
what the agent must send before it answers (the idle `cancelled` before `session/close`'s
answer, the replay and state snapshot before `session/resume`'s) is judged on that record,
in wire order. The SDK checks what it receives against its own v2 schemas.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest

from .support import JS, PYTHON, REPO, Recorded, drive, require_node_modules
from .test_remote import remote_agent, run_remote, url_for
from .wire_check import Message, Schema, read_tee_log

REFERENCE_AGENT = [PYTHON, str(REPO / "examples" / "acp_reference_agent.py")]
REFERENCE_CLIENT_V2 = ["node", str(JS / "reference_client_v2.mjs")]
V2_SCHEMA = REPO / "idl" / "acp-schema" / "v2" / "schema.json"
#: `ref-` and `secrets.token_urlsafe(16)`: 128 random bits.
SESSION_ID = re.compile(r"^ref-[A-Za-z0-9_-]{22}$")
NOT_FOUND = -32002
AUTH_REQUIRED = -32000
INVALID_PARAMS = -32602


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    require_node_modules()
    root = tmp_path_factory.mktemp("reference-v2")
    other = root / "other"
    other.mkdir()
    return drive(REFERENCE_CLIENT_V2, REFERENCE_AGENT, root, "--other-dir", str(other))


@pytest.fixture(scope="module")
def wire(recorded: Recorded) -> list[Message]:
    return read_tee_log(recorded.log, child="agent")


def scenario(recorded: Recorded, name: str) -> dict[str, Any]:
    record = recorded.run[name]
    assert "failed" not in record, record["failed"]
    return record


def other_dir(recorded: Recorded) -> str:
    return str(recorded.workspace.path.parent / "other")


def kinds(updates: list[dict[str, Any]]) -> list[str]:
    return [u["sessionUpdate"] for u in updates]


def replies(updates: list[dict[str, Any]]) -> list[str]:
    return [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]


def states(updates: list[dict[str, Any]]) -> list[str]:
    return [u["state"] for u in updates if u["sessionUpdate"] == "state_update"]


def error_code(outcome: dict[str, Any]) -> int:
    assert "error" in outcome, f"expected an error, got {outcome}"
    code: int = outcome["error"]["code"]
    return code


def before_answer(
    wire: list[Message], method: str, session_id: str, nth: int = 0
) -> list[dict[str, Any]]:
    """The `session/update`s for `session_id` the agent put on the wire between the client's
    `nth` `method` request naming that session and the agent's answer to it."""
    asked = [
        index
        for index, message in enumerate(wire)
        if message.sender == "client"
        and message.body.get("method") == method
        and message.body.get("params", {}).get("sessionId") == session_id
    ]
    start = asked[nth]
    request_id = wire[start].body["id"]
    end = next(
        index
        for index in range(start + 1, len(wire))
        if wire[index].sender == "agent"
        and "method" not in wire[index].body
        and wire[index].body.get("id") == request_id
    )
    return [
        message.body["params"]["update"]
        for message in wire[start + 1 : end]
        if message.sender == "agent"
        and message.body.get("method") == "session/update"
        and message.body["params"]["sessionId"] == session_id
    ]


def test_initialize_advertises_every_v2_session_capability(recorded: Recorded) -> None:
    response = scenario(recorded, "initialize")["response"]
    assert response["protocolVersion"] == 2
    assert response["info"]["name"] == "idlc-reference-agent"
    # `session` holds the baseline (new, list, resume, close, prompt, cancel); the rest is
    # named.
    assert response["capabilities"] == {
        "session": {
            "prompt": {"image": {}, "audio": {}, "embeddedContext": {}},
            "delete": {},
            "additionalDirectories": {},
        }
    }
    assert response["authMethods"] == [
        {
            "type": "agent",
            "methodId": "local-user",
            "name": "Sign in as the local user",
            "description": "Stands for a real sign-in: always succeeds.",
        }
    ]


def test_session_methods_answer_auth_required_before_login(recorded: Recorded) -> None:
    before = scenario(recorded, "before_sign_in")
    codes = {name: error_code(before[name]) for name in ("new", "list", "resume")}
    assert codes == {"new": AUTH_REQUIRED, "list": AUTH_REQUIRED, "resume": AUTH_REQUIRED}


def test_login_takes_the_advertised_method_only(recorded: Recorded) -> None:
    login = scenario(recorded, "login")
    assert error_code(login["unknown_method"]) == INVALID_PARAMS
    assert login["sign_in"]["result"] == {}


def test_new_session_has_an_unguessable_id_config_options_and_commands(
    recorded: Recorded,
) -> None:
    new = scenario(recorded, "session_new")
    response = new["response"]
    ids = {response["sessionId"], new["second_session_id"]}
    assert len(ids) == 2 and all(SESSION_ID.match(i) for i in ids), ids
    mode, reply = response["configOptions"]
    # v2 has no session modes: the mode is a config option of the `mode` category.
    assert (mode["configId"], mode["category"], mode["currentValue"]) == ("mode", "mode", "auto")
    assert [o["value"] for o in mode["options"]] == ["auto", "ask"]
    assert (reply["configId"], reply["type"], reply["currentValue"]) == (
        "reply",
        "select",
        "describe",
    )
    assert [c["name"] for c in response["availableCommands"]] == ["plan", "watch", "remind", "name"]
    assert error_code(new["relative_cwd"]) == INVALID_PARAMS


def test_a_turn_is_acked_with_its_message_id_and_describes_every_kind_of_block(
    recorded: Recorded,
) -> None:
    run = scenario(recorded, "prompt_content")
    updates = run["updates"]
    assert updates[0] == {
        "sessionUpdate": "user_message",
        "messageId": run["result"]["messageId"],
        "content": run["sent"],
    }
    assert kinds(updates) == ["user_message", "state_update", "agent_message_chunk", "state_update"]
    assert updates[-1] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
    }
    [reply] = replies(updates)
    workspace, other = recorded.workspace.path, other_dir(recorded)
    assert reply == (
        'Noted: text "buy milk"; '
        f"image (image/png, {run['png_bytes']} bytes); "
        f"audio (audio/wav, {run['wav_bytes']} bytes); "
        f"link file://{other}/plan.md inside the session's folders; "
        "resource file:///etc/hosts (20 characters) outside the session's folders; "
        f"resource file://{workspace}/logo.bin ({run['png_bytes']} bytes) inside the session's "
        "folders"
    )


def test_an_unreadable_prompt_is_refused_before_it_is_inserted(
    recorded: Recorded, wire: list[Message]
) -> None:
    run = scenario(recorded, "prompt_content")
    assert error_code(run["bad_base64"]) == INVALID_PARAMS
    assert before_answer(wire, "session/prompt", run["sessionId"], nth=0) == []


def test_ask_mode_asks_permission_and_requires_action_meanwhile(recorded: Recorded) -> None:
    run = scenario(recorded, "mode")
    session_id = run["sessionId"]
    assert error_code(run["unknown"]) == INVALID_PARAMS
    assert [o["currentValue"] for o in run["set"]["result"]["configOptions"]] == ["ask", "describe"]
    [asked] = run["allowed_permissions"]
    assert asked["sessionId"] == session_id and asked["title"] == "Keep this note?"
    call = next(u for u in run["allowed"]["updates"] if u["sessionUpdate"] == "tool_call_update")
    assert asked["subject"] == {"type": "tool_call", "toolCall": {"toolCallId": call["toolCallId"]}}
    for turn in (run["allowed"], run["rejected"]):
        assert states(turn["updates"]) == ["running", "requires_action", "running", "idle"]
    assert replies(run["allowed"]["updates"]) == ['Noted: text "ask first"']
    assert len(run["rejected_permissions"]) == 1
    assert replies(run["rejected"]["updates"]) == ["Not noted."]
    statuses = [u.get("status") for u in run["rejected"]["updates"] if "toolCallId" in u]
    assert statuses == ["pending", "failed"]
    assert [o["currentValue"] for o in run["back"]["result"]["configOptions"]] == [
        "auto",
        "describe",
    ]


def test_set_config_option_changes_the_reply(recorded: Recorded) -> None:
    run = scenario(recorded, "set_config_option")
    assert error_code(run["unknown"]) == INVALID_PARAMS
    assert error_code(run["bad_value"]) == INVALID_PARAMS
    assert [o["currentValue"] for o in run["set"]["result"]["configOptions"]] == ["auto", "count"]
    assert replies(run["counted"]["updates"]) == ["Noted 2 block(s)."]
    assert [o["currentValue"] for o in run["back"]["result"]["configOptions"]] == [
        "auto",
        "describe",
    ]


def test_list_filters_by_cwd_and_reports_folders_and_title(recorded: Recorded) -> None:
    run = scenario(recorded, "list")
    main, elsewhere = run["sessionId"], run["elsewhere"]
    second = scenario(recorded, "session_new")["second_session_id"]
    cwd = str(recorded.workspace.path)
    assert [s["sessionId"] for s in run["all"]["sessions"]] == [main, second, elsewhere]
    assert [s["sessionId"] for s in run["in_cwd"]["sessions"]] == [main, second]
    assert [s["sessionId"] for s in run["in_other_dir"]["sessions"]] == [elsewhere]
    first = run["all"]["sessions"][0]
    assert (first["cwd"], first["additionalDirectories"], first["title"]) == (
        cwd,
        [other_dir(recorded)],
        "buy milk",
    )
    assert "nextCursor" not in run["all"]
    assert error_code(run["bad_cursor"]) == INVALID_PARAMS


def test_cancel_ends_the_waiting_turn_cancelled_and_the_session_goes_on(
    recorded: Recorded,
) -> None:
    run = scenario(recorded, "cancel")
    assert run["idle"] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "cancelled",
    }
    assert replies(run["prompt_after"]["updates"]) == ['Noted: text "ended now"']


def test_close_reports_the_cancelled_turn_before_it_answers_and_keeps_the_session_listed(
    recorded: Recorded, wire: list[Message]
) -> None:
    run = scenario(recorded, "close_during_turn")
    assert run["ended"]["result"] == {}
    assert before_answer(wire, "session/close", run["sessionId"])[-1] == run["idle"]
    assert run["idle"]["stopReason"] == "cancelled"
    assert error_code(run["prompt_after"]) == NOT_FOUND
    assert run["sessionId"] in [s["sessionId"] for s in run["listed"]["sessions"]]


def test_delete_ends_the_running_turn_first_and_forgets_the_session(
    recorded: Recorded, wire: list[Message]
) -> None:
    run = scenario(recorded, "delete_during_turn")
    assert run["ended"]["result"] == {}
    assert before_answer(wire, "session/delete", run["sessionId"])[-1] == run["idle"]
    assert run["idle"]["stopReason"] == "cancelled"
    assert error_code(run["prompt_after"]) == NOT_FOUND
    assert run["sessionId"] not in [s["sessionId"] for s in run["listed"]["sessions"]]


def conversation(recorded: Recorded) -> list[dict[str, Any]]:
    """The main session's user messages and answers, as its turns showed them, in order."""
    content = scenario(recorded, "prompt_content")
    mode = scenario(recorded, "mode")
    config = scenario(recorded, "set_config_option")
    turns = [content, mode["allowed"], mode["rejected"], config["counted"]]
    kept = {"user_message", "agent_message_chunk"}
    return [u for turn in turns for u in turn["updates"] if u["sessionUpdate"] in kept]


def test_resume_with_replay_replays_the_conversation_then_the_state_before_it_answers(
    recorded: Recorded, wire: list[Message]
) -> None:
    run = scenario(recorded, "resume_replay")
    main = run["sessionId"]
    assert error_code(run["closed_prompt"]) == NOT_FOUND
    assert error_code(run["wrong_cwd"]) == INVALID_PARAMS
    assert error_code(run["bad_cursor"]) == INVALID_PARAMS
    snapshot = {"sessionUpdate": "state_update", "state": "idle"}
    assert run["resume"]["updates"] == [*conversation(recorded), snapshot]
    # On the wire: all of it before the answer (the first resume of `main` that succeeded).
    assert before_answer(wire, "session/resume", main, nth=2) == run["resume"]["updates"]
    assert [c["name"] for c in run["resume"]["result"]["availableCommands"]] == [
        "plan",
        "watch",
        "remind",
        "name",
    ]
    assert replies(run["prompt_after"]["updates"]) == ['Noted: text "after resume"']
    # Resumed with no additional directories, the session now lists none.
    [listed] = [s for s in run["listed"]["sessions"] if s["sessionId"] == main]
    assert "additionalDirectories" not in listed


def test_resume_without_replay_sends_only_the_state_with_the_folders_it_names(
    recorded: Recorded, wire: list[Message]
) -> None:
    run = scenario(recorded, "resume_without_replay")
    snapshot = {"sessionUpdate": "state_update", "state": "idle"}
    assert run["resume"]["updates"] == [snapshot]
    assert before_answer(wire, "session/resume", run["sessionId"], nth=3) == [snapshot]
    assert replies(run["prompt_after"]["updates"]) == [
        f"Noted: link file://{other_dir(recorded)}/plan.md inside the session's folders"
    ]


def test_plan_shows_the_notes_as_a_plan_with_the_context_usage(recorded: Recorded) -> None:
    run = scenario(recorded, "plan")
    updates = run["updates"]
    [plan] = [u for u in updates if u["sessionUpdate"] == "plan_update"]
    notes = [u for u in conversation(recorded) if u["sessionUpdate"] == "agent_message_chunk"]
    assert plan["plan"]["type"] == "items" and plan["plan"]["planId"] == "notes"
    entries = plan["plan"]["entries"]
    # Noted so far: the content prompt, "ask first", "one two", "after resume" and the link.
    assert len(entries) == 5
    assert all(e["priority"] == "medium" and e["status"] == "pending" for e in entries)
    assert f"Noted: {entries[0]['content']}" == replies(notes)[0]
    [usage] = [u for u in updates if u["sessionUpdate"] == "usage_update"]
    assert usage == {
        "sessionUpdate": "usage_update",
        "used": sum(len(e["content"]) for e in entries),
        "size": 100_000,
    }
    assert replies(updates) == ["5 note(s) planned."]


def test_a_terminal_outlives_its_turn_as_background_work_until_terminal_cancel(
    recorded: Recorded,
) -> None:
    run = scenario(recorded, "terminal_in_background")
    terminal_id = run["terminalId"]
    updates = run["turn"]["updates"]
    [announced] = [u for u in updates if u["sessionUpdate"] == "terminal_update"]
    assert announced["cwd"] == str(recorded.workspace.path)
    assert announced["capabilities"] == {"cancel": {}}
    # The tool call shows the terminal; the turn ends while it runs.
    done = [u for u in updates if u["sessionUpdate"] == "tool_call_update"][-1]
    assert done["status"] == "completed"
    assert done["content"] == [{"type": "terminal", "terminalId": terminal_id}]
    assert updates[-1]["stopReason"] == "end_turn"
    assert run["background_before"] == [{"type": "terminal", "terminalId": terminal_id}]
    assert run["can_cancel"] is True and run["cancelled"] == {}
    output = b"".join(base64.b64decode(data) for data in run["output"])
    assert output == b"watching\n"
    exited = next(u for u in run["after"] if "exitStatus" in u)
    assert exited == {
        "sessionUpdate": "terminal_update",
        "terminalId": terminal_id,
        "exitStatus": {"signal": "SIGTERM"},
        "capabilities": {},
    }
    # The exit is reported before the snapshot that no longer lists it.
    assert run["after"][-1] == {"sessionUpdate": "state_update", "state": "idle", "background": []}
    assert run["background_after"] == [] and run["can_cancel_after"] is False
    assert error_code(run["again"]) == INVALID_PARAMS


def test_a_background_tool_call_is_cancelled_by_tool_call_cancel(recorded: Recorded) -> None:
    run = scenario(recorded, "tool_call_in_background")
    call_id = run["toolCallId"]
    assert run["listed"]["background"] == [{"type": "tool_call", "toolCallId": call_id}]
    assert run["can_cancel"] is True and run["cancelled"] == {}
    assert run["after"] == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "status": "cancelled",
            "capabilities": {},
        },
        {"sessionUpdate": "state_update", "state": "idle", "background": []},
    ]
    assert run["can_cancel_after"] is False
    assert error_code(run["unknown"]) == INVALID_PARAMS


def test_close_stops_the_background_work_before_it_answers(
    recorded: Recorded, wire: list[Message]
) -> None:
    run = scenario(recorded, "close_stops_background_work")
    assert run["closed"]["result"] == {}
    stopped = before_answer(wire, "session/close", run["sessionId"])
    assert {u.get("status") for u in stopped if u["sessionUpdate"] == "tool_call_update"} == {
        "cancelled"
    }
    assert [u["exitStatus"] for u in stopped if "exitStatus" in u] == [{"signal": "SIGKILL"}]
    assert error_code(run["prompt_after"]) == NOT_FOUND


def test_name_asks_through_a_form_the_client_offered(recorded: Recorded) -> None:
    run = scenario(recorded, "elicitation")
    [form] = run["elicitations"]
    assert form["mode"] == "form" and form["sessionId"] == run["sessionId"]
    assert form["requestedSchema"]["required"] == ["name"]
    assert states(run["asked"]["updates"]) == ["running", "requires_action", "running", "idle"]
    assert replies(run["asked"]["updates"]) == ["Hello, Ada."]


def test_delete_forgets_the_session(recorded: Recorded) -> None:
    run = scenario(recorded, "delete")
    assert run["delete"]["result"] == {}
    assert run["sessionId"] not in [s["sessionId"] for s in run["listed"]["sessions"]]
    assert error_code(run["prompt_after_delete"]) == NOT_FOUND
    assert error_code(run["resume_after_delete"]) == NOT_FOUND


def test_logout_refuses_session_methods_until_logged_in_again(recorded: Recorded) -> None:
    run = scenario(recorded, "logout")
    assert run["logout"]["result"] == {}
    assert {name: error_code(outcome) for name, outcome in run["signed_out"].items()} == {
        "new": AUTH_REQUIRED,
        "prompt": AUTH_REQUIRED,
        "list": AUTH_REQUIRED,
    }
    assert replies(run["signed_in_again"]["updates"]) == ['Noted: text "back again"']


def test_every_message_both_ways_is_valid_v2(recorded: Recorded, wire: list[Message]) -> None:
    assert recorded.run["done"]["agent_exit"] == {"code": 0, "signal": None}
    report = Schema(V2_SCHEMA).check(wire)
    assert report.problems == []
    assert {
        "initialize",
        "auth/login",
        "auth/logout",
        "session/new",
        "session/prompt",
        "session/cancel",
        "session/resume",
        "session/list",
        "session/close",
        "session/delete",
        "session/set_config_option",
        "tool_call/cancel",
        "terminal/cancel",
        "session/update",
        "session/request_permission",
        "elicitation/create",
    } <= report.methods


def test_another_connection_can_neither_see_nor_touch_a_session(tmp_path: Path) -> None:
    """Two WebSocket connections to one `--listen` process (one ReferenceAgentV2 each):
    B names A's session everywhere."""
    require_node_modules()
    with remote_agent(REFERENCE_AGENT + ["--listen", "127.0.0.1:0"]) as url:
        run = run_remote(REFERENCE_CLIENT_V2, url_for("ws", url), tmp_path)
    record = run["two_connections"]
    assert "failed" not in record, record["failed"]
    mine, theirs, other = record["mine"], record["theirs"], record["other"]
    assert [s["sessionId"] for s in other["list"]["result"]["sessions"]] == [theirs]
    for name in ("resume", "prompt", "set_config_option"):
        assert other[name]["error"]["code"] == NOT_FOUND, name
        assert other[name]["error"]["data"] == {"sessionId": mine}, name
    # Work of a session B does not have is none B may cancel.
    for name in ("tool_call_cancel", "terminal_cancel"):
        assert other[name]["error"]["code"] == INVALID_PARAMS, name
    # The SDK reports -32002 to session/close and session/delete as success: what shows that
    # they did nothing is the owner's session, whole.
    assert other["close"]["result"] == {} and other["delete"]["result"] == {}
    assert record["b_named"] == [theirs]
    owner = record["owner"]
    assert [s["sessionId"] for s in owner["list"]["sessions"]] == [mine]
    assert replies(owner["prompt"]["updates"]) == ['Noted: text "still mine"']
    replayed = owner["resume"]["updates"]
    assert replies(replayed) == ['Noted: text "A\'s secret"', 'Noted: text "still mine"']
    users = [u["content"][0]["text"] for u in replayed if u["sessionUpdate"] == "user_message"]
    assert users == ["A's secret", "still mine"]
