// The JSON-RPC 2.0 envelope (docs/wire.md §3): what a parsed message is, and the messages
// this side writes. Outgoing members are written `jsonrpc`, `id`, `method` first, so that a
// reader can identify a message from its first bytes even when it is too large (§8).

import type { ErrorShape } from "./contract.js";
import { stringifyJson } from "./json.js";
import type { RequestId } from "./unreadable.js";

export type { RequestId } from "./unreadable.js";

export const JSONRPC = "2.0";
export const CANCEL_METHOD = "$/cancel_request";

/** What one parsed message (a line, a frame or a batch's member) is. */
export type Envelope =
  | { readonly kind: "request"; readonly id: RequestId; readonly method: string; readonly params: unknown }
  | { readonly kind: "notification"; readonly method: string; readonly params: unknown }
  | {
      readonly kind: "response";
      /** `null` for the other side's answer to a message it could not read. */
      readonly id: RequestId | null;
      readonly result: unknown;
      readonly error: unknown;
      readonly isError: boolean;
    }
  /** Not a valid message: answered -32600 with `id` (docs/wire.md §8 rule 2). */
  | { readonly kind: "invalid"; readonly id: RequestId | null; readonly reason: string }
  /** Shaped like a response but not a valid one: fails the call it names, never answered. */
  | { readonly kind: "malformed-response"; readonly id: RequestId | null; readonly reason: string };

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value));
}

const has = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/** Classifies a parsed message as the Python runtime does (rpc/inbound.py). */
export function classify(value: unknown): Envelope {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { kind: "invalid", id: null, reason: "Invalid request: a message must be an object" };
  }
  const message = value as Record<string, unknown>;
  const rawId = message["id"];
  const hasId = has(message, "id");
  const id = isRequestId(rawId) ? rawId : null;
  const hasMethod = has(message, "method");
  if (!hasMethod && (has(message, "result") || has(message, "error"))) {
    if (hasId && rawId !== null && id === null) {
      return { kind: "malformed-response", id: null, reason: "id must be an integer or a string" };
    }
    if (has(message, "error")) {
      const error = message["error"];
      if (!isErrorShape(error)) {
        return { kind: "malformed-response", id, reason: "error must be an object with an integer code and a string message" };
      }
      return { kind: "response", id, result: undefined, error, isError: true };
    }
    return { kind: "response", id, result: message["result"], error: undefined, isError: false };
  }
  if (!hasMethod) return { kind: "invalid", id, reason: 'Invalid request: "method" is missing' };
  if (typeof message["method"] !== "string") {
    return { kind: "invalid", id, reason: "Invalid request: method must be a string" };
  }
  if (hasId && rawId !== null && id === null) {
    return { kind: "invalid", id: null, reason: "Invalid request: id must be an integer or a string" };
  }
  if (message["jsonrpc"] !== JSONRPC) {
    return { kind: "invalid", id, reason: 'Invalid request: "jsonrpc" must be "2.0"' };
  }
  const method = message["method"];
  if (!hasId) return { kind: "notification", method, params: message["params"] };
  if (id === null) {
    // docs/wire.md §3: a null id could never be told apart from the answer to an
    // unreadable message.
    return { kind: "invalid", id: null, reason: "Invalid request: id must be an integer or a string" };
  }
  return { kind: "request", id, method, params: message["params"] };
}

function isErrorShape(value: unknown): value is ErrorShape {
  if (value === null || typeof value !== "object") return false;
  const error = value as Record<string, unknown>;
  return (
    (typeof error["code"] === "bigint" || (typeof error["code"] === "number" && Number.isInteger(error["code"]))) &&
    typeof error["message"] === "string"
  );
}

export function encodeRequest(id: RequestId, method: string, params: unknown): string {
  return stringifyJson({ jsonrpc: JSONRPC, id, method, params });
}

export function encodeNotification(method: string, params: unknown): string {
  return stringifyJson({ jsonrpc: JSONRPC, method, params });
}

export function resultMessage(id: RequestId | null, result: unknown): object {
  // `undefined` would drop the member: a unit result is `null` (docs/wire.md §4).
  return { jsonrpc: JSONRPC, id, result: result === undefined ? null : result };
}

export function errorMessage(id: RequestId | null, code: number, message: string, data?: unknown): object {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: JSONRPC, id, error };
}

/** A key for a map of ids: `1` and `"1"` are different ids, `1` and `1n` the same one. */
export function idKey(id: RequestId): string {
  return typeof id === "string" ? `s${id}` : `n${id.toString()}`;
}
