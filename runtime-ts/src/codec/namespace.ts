// Everything of the codec, as the one namespace generated code imports.
export * from "./codecs.js";
export * from "./calls.js";
export * from "./json.js";
