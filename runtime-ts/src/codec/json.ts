// JSON values as generated code and the runtime exchange them, with 64-bit integers.
//
// An IDL `int64`/`uint64` is a `bigint` in TypeScript. The runtime's JSON reader produces
// a `bigint` for every integer literal outside the safe range (|n| > 2^53 - 1) and a
// `number` for the others; a decoder of a 64-bit field accepts either (docs/typescript-mapping.md).
// Encoders write a `bigint` as itself: the runtime's writer (`stringifyJson` of ../json.ts)
// prints it as its exact decimal digits, and its reader (`parseJson`) is the matching one:
// one JSON reader and writer for the peer and for anyone decoding a value by hand (here in
// the `codec` namespace too).

/** Any JSON value, as the runtime's reader produces it (integers past 2^53 as `bigint`). */
export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonValue[]
  | { [member: string]: JsonValue };

/** A JSON object (its members as an ordinary object). */
export type JsonObject = { [member: string]: JsonValue };

export { parseJson, stringifyJson } from "../json.js";
