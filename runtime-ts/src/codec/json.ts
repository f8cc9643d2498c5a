// JSON values as generated code and the runtime exchange them, with 64-bit integers.
//
// An IDL `int64`/`uint64` is a `bigint` in TypeScript. The runtime's JSON reader produces
// a `bigint` for every integer literal outside the safe range (|n| > 2^53 - 1) and a
// `number` for the others; a decoder of a 64-bit field accepts either (docs/typescript-mapping.md).
// Encoders write a `bigint` as itself: `stringifyJson` (alias `jsonWithBigInts`) prints it
// as its exact decimal digits, which is what the peer's writer uses in place of
// `JSON.stringify`. `parseJson` is the matching reader.

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

/** `JSON.stringify` that writes a `bigint` as its exact digits (never `"123"`, never
 * rounded) and leaves out members whose value is `undefined`, as `JSON.stringify` does. */
export function stringifyJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join("");
}

/** The name the wire contract uses for `stringifyJson`. */
export const jsonWithBigInts = stringifyJson;

function write(value: unknown, out: string[]): void {
  switch (typeof value) {
    case "bigint":
      out.push(value.toString());
      return;
    case "number":
      // An integral double past 2^53 is written with an exponent (`7.038586391730586e+16`,
      // as Python does), not as `70385863917305860`: a reader would take those digits for
      // an exact integer, which the double is not.
      if (!Number.isFinite(value)) out.push("null");
      else if (Number.isInteger(value) && !Number.isSafeInteger(value)) out.push(value.toExponential());
      else out.push(JSON.stringify(value));
      return;
    case "string":
    case "boolean":
      out.push(JSON.stringify(value));
      return;
    case "object":
      break;
    default:
      out.push("null");
      return;
  }
  if (value === null) {
    out.push("null");
    return;
  }
  if (Array.isArray(value)) {
    out.push("[");
    value.forEach((item: unknown, index) => {
      if (index) out.push(",");
      write(item === undefined ? null : item, out);
    });
    out.push("]");
    return;
  }
  out.push("{");
  let first = true;
  for (const key of Object.keys(value)) {
    const member: unknown = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === "function") continue;
    if (!first) out.push(",");
    first = false;
    out.push(JSON.stringify(key), ":");
    write(member, out);
  }
  out.push("}");
}

/** `JSON.parse` that reads an integer literal outside ±(2^53 - 1) as a `bigint` (exactly),
 * every other number as a `number`, and objects as null-prototype objects (so `__proto__`
 * is an ordinary member). Throws `SyntaxError` on invalid JSON. */
export function parseJson(text: string): JsonValue {
  const parser = new Parser(text);
  parser.space();
  const value = parser.value(0);
  parser.space();
  if (parser.at < text.length) parser.fail("unexpected text after the value");
  return value;
}

const MAX_DEPTH = 1000;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Parser {
  at = 0;
  constructor(readonly text: string) {}

  fail(reason: string): never {
    throw new SyntaxError(`${reason} at position ${this.at}`);
  }

  space(): void {
    const text = this.text;
    while (this.at < text.length) {
      const char = text.charCodeAt(this.at);
      if (char !== 0x20 && char !== 0x0a && char !== 0x0d && char !== 0x09) break;
      this.at++;
    }
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    const char = this.text[this.at];
    switch (char) {
      case "{":
        return this.object(depth);
      case "[":
        return this.array(depth);
      case '"':
        return this.string();
      case "t":
        return this.word("true", true);
      case "f":
        return this.word("false", false);
      case "n":
        return this.word("null", null);
      default:
        return this.number();
    }
  }

  word<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.at)) this.fail("unexpected token");
    this.at += word.length;
    return value;
  }

  number(): number | bigint {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail("unexpected token");
    this.at += match[0].length;
    if (match[1] === undefined && match[2] === undefined) {
      const number = Number(match[0]);
      return Number.isSafeInteger(number) ? number : BigInt(match[0]);
    }
    return Number(match[0]);
  }

  string(): string {
    STRING.lastIndex = this.at;
    const match = STRING.exec(this.text);
    if (match === null) this.fail("invalid string");
    this.at += match[0].length;
    return JSON.parse(match[0]) as string;
  }

  array(depth: number): JsonValue[] {
    this.at++;
    const items: JsonValue[] = [];
    this.space();
    if (this.text[this.at] === "]") {
      this.at++;
      return items;
    }
    for (;;) {
      this.space();
      items.push(this.value(depth + 1));
      this.space();
      const char = this.text[this.at++];
      if (char === "]") return items;
      if (char !== ",") this.fail("expected `,` or `]`");
    }
  }

  object(depth: number): JsonObject {
    this.at++;
    const members: JsonObject = Object.create(null) as JsonObject;
    this.space();
    if (this.text[this.at] === "}") {
      this.at++;
      return members;
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') this.fail("expected a member name");
      const key = this.string();
      this.space();
      if (this.text[this.at++] !== ":") this.fail("expected `:`");
      this.space();
      members[key] = this.value(depth + 1);
      this.space();
      const char = this.text[this.at++];
      if (char === "}") return members;
      if (char !== ",") this.fail("expected `,` or `}`");
    }
  }
}
