// What an incoming message is — a request, a notification, a response, a batch, or
// unreadable — and where it goes (docs/wire.md §7, §8). Every way a message can be wrong is
// answered here, where it is found; what is well formed goes to the Receiver (the peer):
// calls' answers to its pending calls, requests and notifications to its handlers.

import { Batch } from "./batch.js";
import { classify, errorMessage, type RequestId } from "./envelope.js";
import { ErrorCode, ProtocolError } from "./errors.js";
import type { Incoming } from "./framing.js";
import { JsonSyntaxError, parseJson } from "./json.js";
import { identify, identifyText, type Identity } from "./unreadable.js";

/** Where the messages go: the peer. */
export interface Receiver {
  /** Writes one answer, or a batch's array of them. */
  send(answer: object): void;
  /** A response that cannot be read fails the call it names (with `null`: none). */
  failCall(id: RequestId | null, error: ProtocolError): void;
  onResponse(id: RequestId | null, isError: boolean, result: unknown, error: unknown): void;
  onNotification(method: string, params: unknown): void;
  /** `batch` collects the answer when the request came in one. */
  onRequest(id: RequestId, method: string, params: unknown, batch: Batch | null): void;
}

export interface InboundOptions {
  readonly maxMessageSize: number;
  readonly acceptBatches: boolean;
  readonly log: { error(message: string, ...details: unknown[]): void };
}

export class Inbound {
  constructor(
    private readonly receiver: Receiver,
    private readonly options: InboundOptions,
  ) {}

  /** Handles one message. Nothing in it ends the connection (§8): a failure here is a bug
   * of this runtime, logged and answered -32603 with the id found as for unreadable lines. */
  take(incoming: Incoming): void {
    try {
      switch (incoming.kind) {
        case "oversized":
          this.oversized(incoming.size, identify(incoming.head, incoming.tail));
          return;
        case "invalid-utf8":
          this.unreadable(identify(incoming.head, incoming.tail), "Parse error: the message is not UTF-8");
          return;
        case "text":
          this.text(incoming.text);
          return;
      }
    } catch (error) {
      this.options.log.error("handling a message failed", error);
      const identity = incoming.kind === "text" ? identifyText(incoming.text) : identify(incoming.head, incoming.tail);
      if (!identity.response) this.receiver.send(errorMessage(identity.id, ErrorCode.INTERNAL_ERROR, "Internal error"));
    }
  }

  private text(text: string): void {
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      this.unreadable(identifyText(text), `Parse error: ${error.message}`);
      return;
    }
    if (Array.isArray(value)) this.batch(value);
    else this.value(value, null);
  }

  private unreadable(identity: Identity, reason: string): void {
    // A response is never answered (JSON-RPC forbids it): its call fails instead.
    if (identity.response) this.receiver.failCall(identity.id, new ProtocolError(`Unreadable response: ${reason}`));
    else this.receiver.send(errorMessage(identity.id, ErrorCode.PARSE_ERROR, reason));
  }

  private oversized(size: number, identity: Identity): void {
    const limit = this.options.maxMessageSize;
    const text = `Message of ${size} bytes exceeds the limit of ${limit} bytes`;
    const data = { size, limit };
    if (identity.response) this.receiver.failCall(identity.id, new ProtocolError(`Response too large: ${text}`, data));
    else this.receiver.send(errorMessage(identity.id, ErrorCode.INVALID_REQUEST, text, data));
  }

  /** An array: each member handled as if sent alone, the answers sent as one array (§7). */
  private batch(members: unknown[]): void {
    if (!this.options.acceptBatches) {
      // The words of the Python runtime (and of the official ACP SDKs, which refuse batches).
      this.receiver.send(errorMessage(null, ErrorCode.INVALID_REQUEST, "Invalid request: JSON-RPC batches are not supported"));
      return;
    }
    if (members.length === 0) {
      this.receiver.send(errorMessage(null, ErrorCode.INVALID_REQUEST, "Invalid request: empty batch"));
      return;
    }
    const batch = new Batch((answers) => this.receiver.send(answers));
    for (const member of members) {
      if (Array.isArray(member)) {
        batch.immediate(errorMessage(null, ErrorCode.INVALID_REQUEST, "Invalid request: a batch member must not be an array"));
        continue;
      }
      try {
        this.value(member, batch);
      } catch (error) {
        // As for a line: the other members still get their answers.
        this.options.log.error("handling a batch member failed", error);
        batch.immediate(errorMessage(null, ErrorCode.INTERNAL_ERROR, "Internal error"));
      }
    }
    batch.seal();
  }

  private value(value: unknown, batch: Batch | null): void {
    const message = classify(value);
    const receiver = this.receiver;
    switch (message.kind) {
      case "invalid": {
        const answer = errorMessage(message.id, ErrorCode.INVALID_REQUEST, message.reason);
        if (batch !== null) batch.immediate(answer);
        else receiver.send(answer);
        return;
      }
      case "malformed-response":
        receiver.failCall(message.id, new ProtocolError(`Malformed response: ${message.reason}`));
        return;
      case "response":
        receiver.onResponse(message.id, message.isError, message.result, message.error);
        return;
      case "notification":
        receiver.onNotification(message.method, message.params);
        return;
      case "request":
        receiver.onRequest(message.id, message.method, message.params, batch);
        return;
    }
  }
}
