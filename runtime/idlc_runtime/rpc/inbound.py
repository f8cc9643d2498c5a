"""What an incoming line is: a request, a notification, a response, a batch, or unreadable.

Each line is classified and passed on — calls to `Handling`, responses to `PendingCalls` —
and every way it can be wrong is answered where it is found (docs/wire.md §7, §8).
"""

from __future__ import annotations

import logging
import re
from typing import Final

import msgspec
from msgspec import UNSET

from idlc_runtime.codec.unreadable import identify, identify_line
from idlc_runtime.errors import ErrorCode, ProtocolError
from idlc_runtime.rpc.calls import PendingCalls
from idlc_runtime.rpc.handling import TOO_DEEP, Handling
from idlc_runtime.rpc.intake import Item, Rest
from idlc_runtime.rpc.replies import Batch, Replies
from idlc_runtime.rpc.wire import (
    JSONRPC,
    RequestId,
    decode_any,
    decode_batch,
    decode_envelope,
    validation_data,
)
from idlc_runtime.transports.framing import Line, Oversized

log = logging.getLogger("idlc_runtime")

#: A line whose first character (after JSON whitespace) opens an array: a batch.
_OPENS_ARRAY: Final = re.compile(rb"[ \t\r\n]*\[")


class Inbound:
    """Classifies each line taken in and passes it to whoever deals with its kind."""

    def __init__(
        self,
        handling: Handling,
        calls: PendingCalls,
        replies: Replies,
        *,
        max_message_size: int,
        accept_batches: bool,
        max_concurrent_handlers: int,
        route_targets: bool,
    ) -> None:
        self._handling = handling
        self._calls = calls
        self._replies = replies
        self._max_message_size = max_message_size
        self._accept_batches = accept_batches
        self._route_targets = route_targets
        self._max_concurrent_handlers = max_concurrent_handlers
        self._send_error = handling.send_error

    def take(self, line: Item) -> Rest | None:
        """Handle one line (or what a batch left). Nothing in a line ends the connection
        (docs/wire.md §8): every way it can be wrong is answered where it is found, and
        anything else that goes wrong here (a bug) is logged and answered -32603 rather than
        let through. Returns what is left of a batch at the handler bound."""
        try:
            if type(line) is bytes:
                # Nearly every line starts with its object's brace: no pattern to run then.
                if line[:1] != b"{" and _OPENS_ARRAY.match(line) is not None:
                    return self._on_batch(line)
                self._on_message(line)
            elif isinstance(line, Rest):
                return self._batch_members(line.batch, line.members)
            else:
                assert isinstance(line, Oversized)
                self._on_oversized(line)
        except OSError:
            raise  # writing failed: the transport is gone, which does end the connection
        except Exception as error:
            self._replies.batch = None
            if isinstance(line, Rest):
                log.error("handling the rest of a batch failed", exc_info=error)
            else:
                self.on_failed_line(line, error)
        return None

    def on_failed_line(self, line: Line, error: Exception) -> None:
        """A line whose handling failed on a bug: logged, answered -32603 unless it is a
        response."""
        log.error("handling a line failed", exc_info=error)
        try:
            if isinstance(line, Oversized):
                identity = identify(line.prefix, line.suffix)
            else:
                identity = identify_line(line)
            if not identity.response:
                self._send_error(identity.id, ErrorCode.INTERNAL_ERROR, "Internal error")
        except OSError:
            raise
        except Exception:
            log.exception("answering a line that failed failed too")

    def _on_batch(self, line: bytes) -> Rest | None:
        """An array: each member handled as if sent alone, the answers sent as one array
        (docs/wire.md §7)."""
        try:
            members = decode_batch(line)
        except (msgspec.MsgspecError, RecursionError) as error:
            reason = TOO_DEEP if isinstance(error, RecursionError) else str(error)
            self._send_error(None, ErrorCode.PARSE_ERROR, f"Parse error: {reason}")
            return None
        if not self._accept_batches:
            # The words of the official ACP TypeScript SDK, which refuses batches too.
            text = "Invalid request: JSON-RPC batches are not supported"
            self._send_error(None, ErrorCode.INVALID_REQUEST, text)
            return None
        if not members:
            self._send_error(None, ErrorCode.INVALID_REQUEST, "Invalid request: empty batch")
            return None
        batch = Batch(self._replies.write_out)
        return self._batch_members(batch, [bytes(member) for member in members])

    def _batch_members(self, batch: Batch, members: list[bytes]) -> Rest | None:
        """Handle members of `batch` in order while handlers are under their bound (as lines
        are, docs/wire.md §11); what is left comes back, the batch sealed once none is."""
        handlers = self._handling
        bound = self._max_concurrent_handlers
        self._replies.batch = batch
        try:
            for index, message in enumerate(members):
                if len(handlers) >= bound:
                    return Rest(batch, members[index:])
                try:
                    self._on_message(message)
                except OSError:
                    raise
                except Exception as error:
                    # As for a line (see `take`): the other members still get answers.
                    self.on_failed_line(message, error)
        finally:
            self._replies.batch = None
        batch.seal()
        return None

    def _on_message(self, line: bytes) -> None:
        try:
            message = decode_envelope(line)
        except msgspec.ValidationError as error:
            self._on_invalid(line, error)
            return
        except msgspec.DecodeError as error:
            if line.strip():
                self._on_unreadable(line, f"Parse error: {error}")
            return
        except RecursionError:
            # Valid JSON perhaps, but nested deeper than the decoder goes: never a reason
            # to drop the connection.
            self._on_unreadable(line, f"Parse error: {TOO_DEEP}")
            return
        method = message.method
        id = message.id
        if method is not UNSET:
            if message.jsonrpc != JSONRPC:
                self._send_error(
                    None if id is UNSET else id,
                    ErrorCode.INVALID_REQUEST,
                    'Invalid request: "jsonrpc" must be "2.0"',
                )
            elif id is UNSET:
                # `_may_target` written out: this is the path of every notification.
                targeted = self._route_targets and (b"$target" in line or b"\\u" in line)
                self._handling.on_notification(method, message.params, targeted)
            elif id is None:
                # docs/wire.md §3: an id is an integer or a string; a null one could never
                # be told apart from the answer to an unreadable message.
                self._send_error(
                    None,
                    ErrorCode.INVALID_REQUEST,
                    "Invalid request: id must be an integer or a string",
                )
            else:
                self._handling.on_request(id, method, message.params, self._may_target(line))
        elif message.result or message.error:
            if id is UNSET or id is None:
                # A response about no call we can name (the peer's answer to a message it
                # could not read): never answered (docs/wire.md §8), only logged.
                log.warning("response without an id: %s", _excerpt(message.error or message.result))
            else:
                self._calls.on_response(id, message.result, message.error)
        else:
            self._send_error(
                None if id is UNSET else id,
                ErrorCode.INVALID_REQUEST,
                'Invalid request: "method" is missing',
            )

    def _on_invalid(self, line: bytes, error: msgspec.ValidationError) -> None:
        """Not a JSON-RPC message: answer with whatever id can be found."""
        try:
            value = decode_any(line)
        except (msgspec.MsgspecError, RecursionError) as problem:
            # msgspec saw the wrong type before the line's syntax error or a number it
            # cannot hold: the line is no readable JSON after all.
            reason = TOO_DEEP if isinstance(problem, RecursionError) else str(problem)
            self._on_unreadable(line, f"Parse error: {reason}")
            return
        id: RequestId | None = None
        if isinstance(value, dict):
            found = value.get("id")
            if isinstance(found, (int, str)) and not isinstance(found, bool):
                id = found
            if "method" not in value and ("result" in value or "error" in value):
                # A response we cannot read: never answer a response, fail its call instead.
                self._calls.fail(
                    id,
                    ProtocolError(f"Malformed response: {error}", validation_data(error)),
                    f"dropped a malformed response: {error}",
                )
                return
        self._send_error(id, ErrorCode.INVALID_REQUEST, f"Invalid request: {error}")

    def _on_unreadable(self, line: bytes, text: str) -> None:
        """A line that does not decode: -32700, with the id its ends show (docs/wire.md §8)."""
        identity = identify_line(line)
        if identity.response:
            self._calls.fail(
                identity.id,
                ProtocolError(f"Unreadable response: {text}"),
                f"dropped: {text}",
            )
        else:
            self._send_error(identity.id, ErrorCode.PARSE_ERROR, text)

    def _may_target(self, line: bytes) -> bool:
        """Whether the params of `line` may hold a `$target` to route by: written plainly, or
        with a JSON escape that decodes to it (`"\\u0024target"`). Only such lines pay for
        decoding it; none do when routing is off (`PeerOptions.route_targets`)."""
        return self._route_targets and (b"$target" in line or b"\\u" in line)

    def _on_oversized(self, line: Oversized) -> None:
        limit = self._max_message_size
        text = f"Message of {line.size} bytes exceeds the limit of {limit} bytes"
        data = {"size": line.size, "limit": limit}
        identity = identify(line.prefix, line.suffix)
        if identity.response:
            self._calls.fail(
                identity.id,
                ProtocolError(f"Response too large: {text}", data),
                f"{text}; dropped",
            )
        else:
            self._send_error(identity.id, ErrorCode.INVALID_REQUEST, text, data)


def _excerpt(raw: bytes) -> str:
    return bytes(raw[:200]).decode("utf-8", "replace")
