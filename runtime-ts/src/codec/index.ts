// The validators and encoders of generated types (docs/typescript-mapping.md): generated
// code imports them as `codec` (`import { codec as $c } from "@idlc/runtime"`); the JSON
// helpers (`JsonValue`, `stringifyJson`/`jsonWithBigInts`, `parseJson`) are the runtime's
// too, for its peer's reader and writer.
export * as codec from "./namespace.js";
export type { Codec, Field, ObjectCodec, Presence } from "./codecs.js";
export { jsonWithBigInts, parseJson, stringifyJson } from "./json.js";
export type { JsonObject, JsonValue } from "./json.js";
