// The validators and encoders of generated types (docs/typescript-mapping.md): generated
// code imports them as `codec` (`import { codec as $c } from "@idlc/runtime"`). The JSON
// reader and writer they match (`parseJson`, `stringifyJson`) are the runtime's own
// (../json.ts), exported by its index.
export * as codec from "./namespace.js";
export type { Codec, Field, ObjectCodec, Presence } from "./codecs.js";
export type { JsonObject, JsonValue } from "./json.js";
