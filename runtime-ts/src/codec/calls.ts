// What generated proxies and dispatch tables do around a codec (docs/wire.md §4, §5).

import { DecodeError, ProtocolError } from "../errors.js";
import type { Codec } from "./codecs.js";
import type { JsonObject, JsonValue } from "./json.js";

/** A call's params: an object-shaped input's encoding itself, a unit input's none, any
 * other's `{"input": value}` (the codec is `wrapped`); `$target` added when aimed at a
 * keyed object (§5). */
export function callParams(encoded: JsonValue | undefined, target: string | undefined): JsonValue | undefined {
  if (target === undefined) return encoded;
  const params: JsonObject = encoded !== undefined && encoded !== null && typeof encoded === "object" && !Array.isArray(encoded) ? { ...encoded } : {};
  params["$target"] = target;
  return params;
}

/** A result decoded by its codec; one that does not decode rejects the call with
 * `ProtocolError` (`data`: the method, the path and the reason). */
export function decodeResult<T>(codec: Codec<T>, result: unknown, method: string): T {
  try {
    return codec.decode(result, "$");
  } catch (error) {
    if (error instanceof DecodeError) {
      throw new ProtocolError(`Undecodable result of ${method}: ${error.message}`, {
        method,
        path: error.path,
        reason: error.reason,
      });
    }
    throw error;
  }
}
