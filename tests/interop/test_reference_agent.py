"""The official TypeScript SDK's client drives examples/acp_reference_agent.py: one scenario
per v1 session capability (js/reference_client.mjs), on stdio, and the ownership scenario
over two WebSocket connections to one `--listen` process.

Every message the agent puts on stdio is recorded (tee.py) and checked against the vendored
ACP v1 schema; the TypeScript SDK checks what it receives against its own.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .support import JS, PYTHON, REPO, Recorded, drive, require_node_modules
from .test_remote import remote_agent, run_remote, url_for
from .wire_check import Schema, read_tee_log

REFERENCE_AGENT = [PYTHON, str(REPO / "examples" / "acp_reference_agent.py")]
REFERENCE_CLIENT = ["node", str(JS / "reference_client.mjs")]
#: `ref-` and `secrets.token_urlsafe(16)`: 128 random bits.
SESSION_ID = re.compile(r"^ref-[A-Za-z0-9_-]{22}$")
NOT_FOUND = -32002
AUTH_REQUIRED = -32000
INVALID_PARAMS = -32602


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    require_node_modules()
    root = tmp_path_factory.mktemp("reference")
    other = root / "other"
    other.mkdir()
    return drive(REFERENCE_CLIENT, REFERENCE_AGENT, root, "--other-dir", str(other))


def scenario(recorded: Recorded, name: str) -> dict[str, Any]:
    record = recorded.run[name]
    assert "failed" not in record, record["failed"]
    return record


def other_dir(recorded: Recorded) -> str:
    return str(recorded.workspace.path.parent / "other")


def kinds(updates: list[dict[str, Any]]) -> list[str]:
    return [u["update"]["sessionUpdate"] for u in updates]


def replies(updates: list[dict[str, Any]]) -> list[str]:
    return [
        u["update"]["content"]["text"]
        for u in updates
        if u["update"]["sessionUpdate"] == "agent_message_chunk"
    ]


def error_code(outcome: dict[str, Any]) -> int:
    assert "error" in outcome, f"expected an error, got {outcome}"
    code: int = outcome["error"]["code"]
    return code


def test_initialize_advertises_every_capability(recorded: Recorded) -> None:
    response = scenario(recorded, "initialize")["response"]
    capabilities = response["agentCapabilities"]
    assert capabilities["loadSession"] is True
    assert capabilities["promptCapabilities"] == {
        "image": True,
        "audio": True,
        "embeddedContext": True,
    }
    assert capabilities["sessionCapabilities"] == {
        "list": {},
        "delete": {},
        "additionalDirectories": {},
        "resume": {},
        "close": {},
    }
    assert capabilities["auth"] == {"logout": {}}
    assert [method["id"] for method in response["authMethods"]] == ["local-user"]


def test_session_methods_answer_auth_required_before_sign_in(recorded: Recorded) -> None:
    before = scenario(recorded, "before_sign_in")
    assert {name: error_code(before[name]) for name in ("new", "list", "load")} == {
        "new": AUTH_REQUIRED,
        "list": AUTH_REQUIRED,
        "load": AUTH_REQUIRED,
    }


def test_authenticate_takes_the_advertised_method_only(recorded: Recorded) -> None:
    auth = scenario(recorded, "authenticate")
    assert error_code(auth["unknown_method"]) == INVALID_PARAMS
    assert auth["sign_in"]["result"] == {}


def test_new_session_has_an_unguessable_id_modes_and_config_options(recorded: Recorded) -> None:
    new = scenario(recorded, "session_new")
    response = new["response"]
    ids = {response["sessionId"], new["second_session_id"]}
    assert len(ids) == 2 and all(SESSION_ID.match(i) for i in ids), ids
    assert response["modes"]["currentModeId"] == "auto"
    assert [m["id"] for m in response["modes"]["availableModes"]] == ["auto", "ask"]
    [reply] = response["configOptions"]
    assert (reply["id"], reply["type"], reply["currentValue"]) == ("reply", "select", "describe")
    assert [o["value"] for o in reply["options"]] == ["describe", "count"]
    assert error_code(new["relative_cwd"]) == INVALID_PARAMS


def test_image_audio_and_embedded_prompts_are_described_back(recorded: Recorded) -> None:
    run = scenario(recorded, "prompt_content")
    assert run["result"] == {"stopReason": "end_turn"}
    [reply] = replies(run["updates"])
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


def test_set_mode_announces_the_mode_and_ask_asks_permission(recorded: Recorded) -> None:
    run = scenario(recorded, "set_mode")
    session_id = run["sessionId"]
    assert error_code(run["unknown"]) == INVALID_PARAMS
    assert run["set"]["result"] == {}
    assert [u["update"] for u in run["set"]["updates"]] == [
        {"sessionUpdate": "current_mode_update", "currentModeId": "ask"}
    ]
    [asked] = run["allowed_permissions"]
    assert asked["sessionId"] == session_id
    assert kinds(run["allowed"]["updates"]) == [
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
    ]
    assert replies(run["allowed"]["updates"]) == ['Noted: text "ask first"']
    assert len(run["rejected_permissions"]) == 1
    assert replies(run["rejected"]["updates"]) == ["Not noted."]
    assert run["rejected"]["updates"][1]["update"]["status"] == "failed"
    assert [u["update"]["currentModeId"] for u in run["back"]["updates"]] == ["auto"]


def test_set_config_option_changes_the_reply(recorded: Recorded) -> None:
    run = scenario(recorded, "set_config_option")
    assert error_code(run["unknown"]) == INVALID_PARAMS
    assert error_code(run["bad_value"]) == INVALID_PARAMS
    assert [o["currentValue"] for o in run["set"]["result"]["configOptions"]] == ["count"]
    assert replies(run["counted"]["updates"]) == ["Noted 2 block(s)."]
    assert [o["currentValue"] for o in run["back"]["result"]["configOptions"]] == ["describe"]


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


def test_cancel_ends_the_turn_cancelled_and_the_session_goes_on(recorded: Recorded) -> None:
    run = scenario(recorded, "cancel")
    assert run["turn"] == {"result": {"stopReason": "cancelled"}}
    assert run["prompt_after_cancel"]["result"] == {"stopReason": "end_turn"}
    assert replies(run["prompt_after_cancel"]["updates"]) == ['Noted: text "after cancel"']


def test_cancel_alone_ends_a_turn_waiting_for_the_client(recorded: Recorded) -> None:
    """The permission request stays unanswered until the turn has answered: the agent
    (idlc_acp) ended the turn, not the client's `cancelled` answer."""
    run = scenario(recorded, "cancel_held_turn")
    assert run["turn"] == {"result": {"stopReason": "cancelled"}}
    # The session goes on: only the turn was cancelled.
    assert run["prompt_after"]["result"] == {"stopReason": "end_turn"}


def test_close_cancels_the_running_turn_and_keeps_the_session_listed(recorded: Recorded) -> None:
    run = scenario(recorded, "close_during_turn")
    assert run["ended"]["result"] == {}
    assert run["turn"] == {"result": {"stopReason": "cancelled"}}
    # idlc_acp ends the turns before the agent's close_session runs: the turn's answer is
    # the client's before the close's.
    assert run["turn_answered_first"] is True
    assert error_code(run["prompt_after"]) == NOT_FOUND
    assert run["sessionId"] in [s["sessionId"] for s in run["listed"]["sessions"]]


def test_delete_cancels_the_running_turn_and_forgets_the_session(recorded: Recorded) -> None:
    run = scenario(recorded, "delete_during_turn")
    assert run["ended"]["result"] == {}
    assert run["turn"] == {"result": {"stopReason": "cancelled"}}
    # The agent's delete_session waits for the turn (`cancel_turns()`) before it answers.
    assert run["turn_answered_first"] is True
    assert error_code(run["prompt_after"]) == NOT_FOUND
    assert run["sessionId"] not in [s["sessionId"] for s in run["listed"]["sessions"]]


def conversation(recorded: Recorded) -> list[dict[str, Any]]:
    """What the main session's prompts and answers were, as `session/update`s, in order."""
    said: list[dict[str, Any]] = []
    content = scenario(recorded, "prompt_content")
    modes = scenario(recorded, "set_mode")
    config = scenario(recorded, "set_config_option")
    turns = [
        (content["sent"], content["updates"]),
        ([{"type": "text", "text": "ask first"}], modes["allowed"]["updates"]),
        ([{"type": "text", "text": "not this one"}], modes["rejected"]["updates"]),
        ([{"type": "text", "text": t} for t in ("one", "two")], config["counted"]["updates"]),
    ]
    for sent, updates in turns:
        said += [{"sessionUpdate": "user_message_chunk", "content": block} for block in sent]
        said += [
            u["update"] for u in updates if u["update"]["sessionUpdate"] == "agent_message_chunk"
        ]
    return said


def test_load_replays_the_conversation_before_it_answers(recorded: Recorded) -> None:
    run = scenario(recorded, "load")
    assert error_code(run["wrong_cwd"]) == INVALID_PARAMS
    load = run["load"]
    assert load["result"]["modes"]["currentModeId"] == "auto"
    # `updates` holds what arrived before the answer: the whole history.
    assert [u["update"] for u in load["updates"]] == conversation(recorded)
    assert {u["sessionId"] for u in load["updates"]} == {run["sessionId"]}
    assert replies(run["prompt_after_load"]["updates"]) == ['Noted: text "after load"']
    # Loaded with no additional directories, the session now lists none.
    [listed] = [s for s in run["listed"]["sessions"] if s["sessionId"] == run["sessionId"]]
    assert "additionalDirectories" not in listed


def test_resume_reopens_without_replay_with_the_folders_it_names(recorded: Recorded) -> None:
    run = scenario(recorded, "resume")
    assert run["resume"]["updates"] == []
    assert run["resume"]["result"]["modes"]["currentModeId"] == "auto"
    assert replies(run["prompt_after_resume"]["updates"]) == [
        f"Noted: link file://{other_dir(recorded)}/plan.md inside the session's folders"
    ]


def test_delete_forgets_the_session(recorded: Recorded) -> None:
    run = scenario(recorded, "delete")
    assert run["delete"]["result"] == {}
    assert run["sessionId"] not in [s["sessionId"] for s in run["listed"]["sessions"]]
    assert error_code(run["prompt_after_delete"]) == NOT_FOUND
    assert error_code(run["load_after_delete"]) == NOT_FOUND


def test_logout_refuses_session_methods_until_signed_in_again(recorded: Recorded) -> None:
    run = scenario(recorded, "logout")
    assert run["logout"]["result"] == {}
    assert {name: error_code(outcome) for name, outcome in run["signed_out"].items()} == {
        "new": AUTH_REQUIRED,
        "prompt": AUTH_REQUIRED,
        "list": AUTH_REQUIRED,
    }
    assert replies(run["signed_in_again"]["updates"]) == ['Noted: text "back again"']


def test_every_message_the_agent_sent_is_valid_acp(recorded: Recorded) -> None:
    assert recorded.run["done"]["agent_exit"] == {"code": 0, "signal": None}
    report = Schema().check(read_tee_log(recorded.log, child="agent"), only="agent")
    assert report.problems == []
    assert {"session/update", "session/request_permission"} <= report.methods


def test_another_connection_can_neither_see_nor_touch_a_session(tmp_path: Path) -> None:
    """Two WebSocket connections to one agent process: B names A's session everywhere."""
    require_node_modules()
    with remote_agent(REFERENCE_AGENT + ["--listen", "127.0.0.1:0"]) as url:
        run = run_remote(REFERENCE_CLIENT, url_for("ws", url), tmp_path)
    record = run["two_connections"]
    assert "failed" not in record, record["failed"]
    mine, theirs = record["mine"], record["theirs"]
    other = record["other"]
    assert [s["sessionId"] for s in other["list"]["result"]["sessions"]] == [theirs]
    for name in ("load", "resume", "prompt", "set_mode", "set_config_option"):
        assert other[name]["error"]["code"] == NOT_FOUND, name
        assert other[name]["error"]["data"] == {"sessionId": mine}, name
        assert other[name]["updates"] == [], name
    # The TypeScript SDK reports -32002 to session/close and session/delete as success
    # (closing or deleting what is not there leaves the same end state): what shows that
    # they did nothing is the owner's session, whole.
    assert other["close"]["result"] == {} and other["delete"]["result"] == {}
    owner = record["owner"]
    assert [s["sessionId"] for s in owner["list"]["sessions"]] == [mine]
    assert replies(owner["prompt"]["updates"]) == ['Noted: text "still mine"']
    assert [u["update"]["content"]["text"] for u in owner["load"]["updates"]] == [
        "A's secret",
        'Noted: text "A\'s secret"',
        "still mine",
        'Noted: text "still mine"',
    ]
