// JSON that keeps 64-bit integers exact. `JSON.parse` turns every number into a double, so
// an id or a 64-bit field beyond 2^53 would silently change; the validators of ./codec
// accept `number | bigint` for 64-bit integers, and this reader gives them a `bigint`
// whenever a double could not hold the integer exactly. Most messages have no such literal:
// they take `JSON.parse` itself (the fast path), and only a text with a run of 16 digits or
// a three-digit exponent is read by the slower reader below.

/** A text that is no JSON this runtime reads: the -32700 of docs/wire.md §8. */
export class JsonSyntaxError extends SyntaxError {
  constructor(message: string) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

// 2^53 has 16 digits: any integer a double cannot hold has at least that many. A
// three-digit exponent may overflow a double (`1e400`), which JSON.parse reads as Infinity.
const MAYBE_LONG = /\d{16}|[eE][+-]?\d{3}/;
/** How deep the slow reader nests (JSON.parse, the fast path, goes as deep as V8 does). */
export const MAX_DEPTH = 1000;

/** Parses one JSON text. Integers beyond 2^53 become `bigint`, however long (the Python
 * runtime reads them so too: a field's type refuses one out of its range, at its path, with
 * -32602). A number beyond a double's range (`1e400`) is refused here, for the whole text
 * (-32700), where the Python runtime refuses it only when it decodes that part (-32602
 * inside params): runtime-ts/README.md. Throws `JsonSyntaxError`. */
export function parseJson(text: string): unknown {
  if (!MAYBE_LONG.test(text)) {
    try {
      return JSON.parse(text);
    } catch (error) {
      // RangeError for nesting deeper than the engine's stack: unreadable, not a crash.
      throw new JsonSyntaxError(error instanceof Error ? error.message : String(error));
    }
  }
  try {
    return new Reader(text).document();
  } catch (error) {
    // Nesting deeper than the stack goes: unreadable too, never a crash.
    if (error instanceof RangeError) throw new JsonSyntaxError("nesting too deep");
    throw error;
  }
}

class Reader {
  private position = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  document(): unknown {
    const value = this.value();
    this.space();
    if (this.position < this.text.length) this.fail("unexpected data after the JSON value");
    return value;
  }

  private fail(reason: string): never {
    throw new JsonSyntaxError(`${reason} at position ${this.position}`);
  }

  private space(): void {
    const text = this.text;
    let position = this.position;
    for (;;) {
      const c = text.charCodeAt(position);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) position++;
      else break;
    }
    this.position = position;
  }

  private value(): unknown {
    this.space();
    const c = this.text[this.position];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      default:
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
        return this.fail(c === undefined ? "unexpected end of input" : `unexpected ${JSON.stringify(c)}`);
    }
  }

  private enter(): void {
    // An explicit bound rather than the engine's stack, whose depth depends on the caller.
    if (++this.depth > MAX_DEPTH) this.fail("nesting too deep");
  }

  private object(): Record<string, unknown> {
    this.enter();
    this.position++;
    const result: Record<string, unknown> = {};
    this.space();
    if (this.text[this.position] === "}") {
      this.position++;
      this.depth--;
      return result;
    }
    for (;;) {
      this.space();
      if (this.text[this.position] !== '"') this.fail("expected a string key");
      const key = this.string();
      this.space();
      if (this.text[this.position] !== ":") this.fail("expected ':'");
      this.position++;
      const value = this.value();
      // As JSON.parse does: a "__proto__" key is an own member, never the prototype.
      Object.defineProperty(result, key, { value, writable: true, enumerable: true, configurable: true });
      this.space();
      const c = this.text[this.position++];
      if (c === "}") break;
      if (c !== ",") this.fail("expected ',' or '}'");
    }
    this.depth--;
    return result;
  }

  private array(): unknown[] {
    this.enter();
    this.position++;
    const result: unknown[] = [];
    this.space();
    if (this.text[this.position] === "]") {
      this.position++;
      this.depth--;
      return result;
    }
    for (;;) {
      result.push(this.value());
      this.space();
      const c = this.text[this.position++];
      if (c === "]") break;
      if (c !== ",") this.fail("expected ',' or ']'");
    }
    this.depth--;
    return result;
  }

  private string(): string {
    // The literal is found here and decoded by JSON.parse, which knows every escape.
    const text = this.text;
    const start = this.position;
    let position = start + 1;
    for (;;) {
      const c = text.charCodeAt(position);
      if (Number.isNaN(c)) this.fail("unterminated string");
      if (c === 0x22) break;
      if (c === 0x5c) position++;
      else if (c < 0x20) this.fail("control character in string");
      position++;
    }
    this.position = position + 1;
    try {
      return JSON.parse(text.slice(start, position + 1)) as string;
    } catch {
      return this.fail("invalid string");
    }
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.position)) this.fail("invalid literal");
    this.position += word.length;
    return value;
  }

  private number(): number | bigint {
    const match = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    match.lastIndex = this.position;
    const found = match.exec(this.text);
    if (found === null) return this.fail("invalid number");
    this.position = match.lastIndex;
    const literal = found[0];
    if (found[1] === undefined && found[2] === undefined) {
      const value = Number(literal);
      if (Number.isSafeInteger(value)) return value;
      // Any integer, however long, as the Python runtime reads it: whether it fits is the
      // type's to say, at its path (-32602), not the reader's.
      return BigInt(literal);
    }
    const value = Number(literal);
    if (!Number.isFinite(value)) this.fail("number out of range");
    return value;
  }
}

/** Writes one JSON text, without whitespace: what `JSON.stringify` writes, except that a
 * `bigint` is written as its digits (JSON.stringify throws on one). */
export function stringifyJson(value: unknown): string {
  let text: string;
  try {
    // Nearly every value holds no bigint: JSON.stringify then does it all.
    text = JSON.stringify(value) ?? "null";
  } catch (error) {
    if (!(error instanceof TypeError) || !/BigInt/i.test(error.message)) throw error;
    return write(value, "") ?? "null";
  }
  // An integral double past 2^53 is written by JSON.stringify as digits (1e17 as
  // `100000000000000000`), which a reader takes for an exact integer the double is not:
  // `write` gives it an exponent, as Python does. Such a text has a run of 16 digits.
  return UNSAFE_DIGITS.test(text) ? (write(value, "") ?? "null") : text;
}

const UNSAFE_DIGITS = /\d{16}/;

function write(value: unknown, key: string): string | undefined {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      return Number.isInteger(value) && !Number.isSafeInteger(value)
        ? value.toExponential()
        : JSON.stringify(value);
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) {
    return `[${value.map((item, index) => write(item, String(index)) ?? "null").join(",")}]`;
  }
  const members: string[] = [];
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    const written = write(item, name);
    if (written !== undefined) members.push(`${JSON.stringify(name)}:${written}`);
  }
  return `{${members.join(",")}}`;
}
