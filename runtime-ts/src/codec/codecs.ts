// The validators generated code is made of (docs/typescript-mapping.md, "Decoding").
//
// A `Codec<T>` decodes a JSON value (as `parseJson` or `JSON.parse` produce it) into a T,
// strictly, throwing `DecodeError(path, reason)` with a msgspec-like path (`$.field[0]`,
// `$.map[...]` for a map's value) and reason, so that a value refused by the Python runtime
// is refused here at the same path; and encodes a T into its JSON value (bytes as base64,
// 64-bit integers as `bigint`, which `stringifyJson` writes as digits). The forward-
// compatible modifiers (`lenient`, `skip-invalid`, `null-default`) are applied in the one
// decode, with the outcome of the Python runtime's strict-then-lenient decode.

import { DecodeError } from "../errors.js";
import type { JsonObject, JsonValue } from "./json.js";

export interface Codec<T> {
  /** `value` → a T, or `DecodeError` naming where (`path`, `$` by default) and why. */
  decode(value: unknown, path?: string): T;
  /** A T → its JSON value. */
  encode(value: T): JsonValue;
  /** `null` is one of its values (`nullable<…>`, `json`, `unit`). */
  readonly acceptsNull?: boolean;
  /** The list codec of a `skip-invalid` field: the items that do not decode are dropped. */
  decodeSkipping?(value: unknown, path: string): T;
  /** An integer's (`int`) or `float64`'s (`float`) codec: a union with an integer
   * alternative reads every JSON integer as that, never as its `float64` (as msgspec). */
  readonly numberKind?: "int" | "float";
}

/** The type a codec decodes into. */
export type Decoded<C> = C extends Codec<infer T> ? T : never;

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "str";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(value) ? "int" : "float";
    case "bigint":
      // msgspec reads an integer past 64 bits as a float.
      return value >= -(2n ** 63n) && value < 2n ** 64n ? "int" : "float";
    case "object":
      return "object";
    default:
      return typeof value;
  }
}

/** An encoder given a value of another kind (a union tries its alternatives in turn). */
function guard(ok: boolean, what: string): void {
  if (!ok) throw new TypeError(`not ${what}`);
}

function expected(what: string, value: unknown, path: string): never {
  // msgspec reads an integer no double can hold as a number out of range, whatever the type.
  if (typeof value === "bigint" && !Number.isFinite(Number(value))) {
    throw new DecodeError(path, "Number out of range");
  }
  throw new DecodeError(path, `Expected \`${what}\`, got \`${kindOf(value)}\``);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

// -- scalars ------------------------------------------------------------------------------

export const string: Codec<string> = {
  decode(value, path = "$") {
    if (typeof value !== "string") expected("str", value, path);
    return value;
  },
  encode(value) {
    guard(typeof value === "string", "a string");
    return value;
  },
};

export const bool: Codec<boolean> = {
  decode(value, path = "$") {
    if (typeof value !== "boolean") expected("bool", value, path);
    return value;
  },
  encode(value) {
    guard(typeof value === "boolean", "a boolean");
    return value;
  },
};

export const float64: Codec<number> = {
  decode(value, path = "$") {
    if (typeof value === "number") return value;
    if (typeof value === "bigint") return Number(value);
    expected("float", value, path);
  },
  encode(value) {
    guard(typeof value === "number", "a number");
    return value;
  },
  numberKind: "float",
};

/** An integer of at most 53 bits (`int8` … `uint32`), as a `number`, within [min, max]. */
export function int(min: number, max: number): Codec<number> {
  return {
    decode(value, path = "$") {
      let number: number;
      if (typeof value === "number" && Number.isInteger(value)) number = value;
      // Any integer, however long: msgspec says it is out of the range, not of the kind.
      else if (typeof value === "bigint") number = Number(value);
      else expected("int", value, path);
      if (number < min) throw new DecodeError(path, `Expected \`int\` >= ${min}`);
      if (number > max) throw new DecodeError(path, `Expected \`int\` <= ${max}`);
      return number;
    },
    encode(value) {
      guard(typeof value === "number" && Number.isInteger(value), "an integer");
      return value;
    },
    numberKind: "int",
  };
}

/** A 64-bit integer as a `bigint`, within [min, max]: a JSON integer read as a `number`
 * (a safe integer) or as a `bigint` (past 2^53, as `parseJson` reads it) alike. A `number`
 * that is no safe integer came from a float literal (`1.5`, `1e30`) and is refused as one,
 * named `floatName` (msgspec says `float`; the Python runtime's `uint64` hook, `number`). */
export function bigint(min: bigint, max: bigint, floatName = "float"): Codec<bigint> {
  return {
    decode(value, path = "$") {
      let number: bigint;
      if (typeof value === "bigint") number = value;
      else if (typeof value === "number" && Number.isSafeInteger(value)) number = BigInt(value);
      else if (typeof value === "number") throw new DecodeError(path, `Expected \`int\`, got \`${floatName}\``);
      else expected("int", value, path);
      if (number < min) throw new DecodeError(path, `Expected \`int\` >= ${min}`);
      if (number > max) throw new DecodeError(path, `Expected \`int\` <= ${max}`);
      return number;
    },
    encode(value) {
      guard(typeof value === "bigint", "a bigint");
      return value;
    },
    numberKind: "int",
  };
}

export const int8 = int(-128, 127);
export const int16 = int(-32768, 32767);
export const int32 = int(-2147483648, 2147483647);
export const uint8 = int(0, 255);
export const uint16 = int(0, 65535);
export const uint32 = int(0, 4294967295);
export const int64 = bigint(-(2n ** 63n), 2n ** 63n - 1n);
export const uint64 = bigint(0n, 2n ** 64n - 1n, "number");

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `bytes`: base64 (RFC 4648, padded) on the wire, as the Python runtime writes it. */
export const bytes: Codec<Uint8Array> = {
  decode(value, path = "$") {
    if (typeof value !== "string") expected("bytes", value, path);
    if (!BASE64.test(value)) throw new DecodeError(path, "Invalid base64 encoded string");
    const binary = atob(value);
    const out = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) out[index] = binary.charCodeAt(index);
    return out;
  },
  encode(value) {
    guard(value instanceof Uint8Array, "a Uint8Array");
    let binary = "";
    for (const byte of value) binary += String.fromCharCode(byte);
    return btoa(binary);
  },
};

function isJson(value: unknown, depth: number): value is JsonValue {
  if (depth > 1000) return false;
  switch (typeof value) {
    case "string":
    case "boolean":
    case "bigint":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      if (value === null) return true;
      if (Array.isArray(value)) return value.every((item) => isJson(item, depth + 1));
      return Object.values(value).every((item) => isJson(item, depth + 1));
    default:
      return false;
  }
}

/** `json`: any JSON value, kept as it came. */
export const json: Codec<JsonValue> = {
  decode(value, path = "$") {
    if (!isJson(value, 0)) throw new DecodeError(path, "Expected a JSON value");
    return value;
  },
  encode: (value) => value,
  acceptsNull: true,
};

/** `unit`: `null` on the wire (a result; params of a unit input are not read). */
export const unit: Codec<void> = {
  decode(value, path = "$") {
    if (value !== null && value !== undefined) expected("null", value, path);
  },
  encode: () => null,
  acceptsNull: true,
};

/** A reference (`atom-ref<A>`, `interface-ref<I>`): a string, branded `R`. */
export function ref<R extends string>(): Codec<R> {
  return string as Codec<string> as Codec<R>;
}

/** An enum: one of `values`; an open one keeps any other string as it came. */
export function enumeration<E extends string>(values: readonly string[], open: boolean): Codec<E> {
  const known = new Set(values);
  return {
    decode(value, path = "$") {
      if (typeof value !== "string") expected("str", value, path);
      if (!open && !known.has(value)) throw new DecodeError(path, `Invalid enum value '${value}'`);
      return value as E;
    },
    encode: (value) => value,
  };
}

// -- containers ---------------------------------------------------------------------------

/** A T-or-null's refusal of a value of the wrong kind, said as msgspec says it:
 * "Expected `str | null`, got `int`". */
function orNull(error: unknown, path: string): unknown {
  if (!(error instanceof DecodeError) || error.path !== path) return error;
  const match = /^Expected `([^`]*)`, got (.*)$/.exec(error.reason);
  if (match === null || match[1]?.endsWith("| null")) return error;
  return new DecodeError(path, `Expected \`${match[1]} | null\`, got ${match[2]}`);
}

function decodeOrNull<T>(inner: Codec<T>, value: unknown, path: string): T {
  try {
    return inner.decode(value, path);
  } catch (error) {
    throw orNull(error, path);
  }
}

/** `optional<T>` outside a record field: `null` (or absent) is `null`. */
export function optional<T>(inner: Codec<T>): Codec<T | null> {
  return {
    decode(value, path = "$") {
      if (value === null || value === undefined) return inner.acceptsNull ? inner.decode(null, path) : null;
      return decodeOrNull(inner, value, path);
    },
    encode: (value) => (value === null || value === undefined ? null : inner.encode(value)),
    acceptsNull: true,
    decodeSkipping: (value, path) => (value === null || value === undefined ? null : skipping(inner, value, path)),
  };
}

/** `nullable<T>`: a T or `null`. */
export function nullable<T>(inner: Codec<T>): Codec<T | null> {
  return {
    decode: (value, path = "$") => (value === null ? null : decodeOrNull(inner, value, path)),
    encode: (value) => (value === null || value === undefined ? null : inner.encode(value)),
    acceptsNull: true,
    decodeSkipping: (value, path) => (value === null ? null : skipping(inner, value, path)),
  };
}

/** `inner`'s decode of a `skip-invalid` field's value (a list's, through `optional` and
 * `nullable`), said as a T-or-null's. */
function skipping<T>(inner: Codec<T>, value: unknown, path: string): T {
  try {
    return inner.decodeSkipping ? inner.decodeSkipping(value, path) : inner.decode(value, path);
  } catch (error) {
    throw orNull(error, path);
  }
}

export function list<T>(item: Codec<T>): Codec<T[]> {
  return {
    decode(value, path = "$") {
      if (!Array.isArray(value)) expected("array", value, path);
      return value.map((entry: unknown, index) => item.decode(entry, `${path}[${index}]`));
    },
    decodeSkipping(value, path) {
      if (!Array.isArray(value)) expected("array", value, path);
      const kept: T[] = [];
      value.forEach((entry: unknown, index) => {
        try {
          kept.push(item.decode(entry, `${path}[${index}]`));
        } catch (error) {
          if (!(error instanceof DecodeError)) throw error;
        }
      });
      return kept;
    },
    encode(value) {
      guard(Array.isArray(value), "an array");
      return value.map((entry) => item.encode(entry));
    },
  };
}

/** A `many-unique` relation: a list whose entries are distinct (a duplicate is refused). */
export function uniqueList<T extends string>(item: Codec<T>): Codec<readonly T[]> {
  const inner = list(item);
  return {
    decode(value, path = "$") {
      const items = inner.decode(value, path);
      const seen = new Set<T>();
      items.forEach((entry, index) => {
        if (seen.has(entry)) throw new DecodeError(`${path}[${index}]`, "Duplicate entry in a many-unique relation");
        seen.add(entry);
      });
      return Object.freeze(items);
    },
    encode: (value) => value.map((entry) => item.encode(entry)),
  };
}

/** `map<string, T>`: a null-prototype object, so that `__proto__` is a key like any other. */
export function map<T>(value: Codec<T>): Codec<Record<string, T>> {
  return {
    decode(input, path = "$") {
      if (!isObject(input)) expected("object", input, path);
      const out = Object.create(null) as Record<string, T>;
      for (const key of Object.keys(input)) out[key] = value.decode(input[key], `${path}[...]`);
      return out;
    },
    encode(input) {
      guard(isObject(input), "an object");
      const out = Object.create(null) as JsonObject;
      for (const key of Object.keys(input)) out[key] = value.encode(input[key] as T);
      return out;
    },
  };
}

/** A codec defined later (recursion, and every named type: no order of definitions). */
export function lazy<T>(get: () => Codec<T>): Codec<T> {
  let found: Codec<T> | undefined;
  const codec = (): Codec<T> => (found ??= get());
  return {
    decode: (value, path = "$") => codec().decode(value, path),
    encode: (value) => codec().encode(value),
    get acceptsNull() {
      return codec().acceptsNull;
    },
    get numberKind() {
      return codec().numberKind;
    },
    decodeSkipping(value, path) {
      const inner = codec();
      return inner.decodeSkipping ? inner.decodeSkipping(value, path) : inner.decode(value, path);
    },
  };
}

// -- records ------------------------------------------------------------------------------

/** How a field may be absent: `required`, `optional` (absent and `null` are absent),
 * `tristate` (`optional<nullable<T>>`: absent, `null` and a value), `default` (absent is
 * its default). */
export type Presence = "required" | "optional" | "tristate" | "default";

export interface Field {
  /** The member's name on the wire, which is the TypeScript property's. */
  readonly name: string;
  readonly codec: Codec<unknown>;
  readonly presence: Presence;
  /** The default's JSON value (a `default` field), decoded afresh for each value. */
  readonly default?: JsonValue;
  /** Encoding leaves the field out when it encodes to its default (not for `{}`). */
  readonly omitDefault?: boolean;
  readonly lenient?: boolean;
  readonly skipInvalid?: boolean;
  readonly nullDefault?: boolean;
  /** What a `lenient`/`null-default` field without a default falls back to: the empty
   * list or map of a required list or map field. */
  readonly fallback?: JsonValue;
}

const ABSENT = Symbol("absent");

/** Decode field `field` of `object` (at `path`): its value, or ABSENT. */
function decodeField(field: Field, object: Record<string, unknown>, path: string): unknown {
  const fieldPath = `${path}.${field.name}`;
  const present = hasOwn(object, field.name);
  const raw = present ? object[field.name] : undefined;
  const fallBack = (): unknown => {
    if (field.default !== undefined) return field.codec.decode(field.default, fieldPath);
    if (field.fallback !== undefined) return field.codec.decode(field.fallback, fieldPath);
    return ABSENT;
  };
  if (!present) {
    switch (field.presence) {
      case "required":
        throw new DecodeError(path, `Object missing required field \`${field.name}\``);
      case "default":
        return field.codec.decode(field.default ?? null, fieldPath);
      default:
        return ABSENT;
    }
  }
  if (raw === null) {
    if (field.presence === "optional") return ABSENT;
    if (field.nullDefault) return fallBack();
  }
  try {
    if (field.skipInvalid && field.codec.decodeSkipping) return field.codec.decodeSkipping(raw, fieldPath);
    return field.codec.decode(raw, fieldPath);
  } catch (error) {
    if (field.lenient && error instanceof DecodeError) return fallBack();
    throw field.presence === "optional" ? orNull(error, fieldPath) : error;
  }
}

/** Whether two JSON values are the same value (a `bigint` and a `number` of one integer
 * are). */
function equalJson(left: JsonValue, right: JsonValue): boolean {
  if (left === right) return true;
  const numeric = (value: JsonValue): boolean => typeof value === "number" || typeof value === "bigint";
  if (numeric(left) && numeric(right)) {
    return typeof left === "bigint" || typeof right === "bigint"
      ? Number.isInteger(Number(left)) && Number.isInteger(Number(right)) && BigInt(left as number | bigint) === BigInt(right as number | bigint)
      : false;
  }
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => equalJson(item, right[index] as JsonValue))
    );
  }
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => hasOwn(right, key) && equalJson(left[key] as JsonValue, right[key] as JsonValue))
  );
}

/** The codec of the object of some fields, into which it writes. */
export interface ObjectCodec<T> extends Codec<T> {
  readonly fields: readonly Field[];
  /** Decode the fields of `object` into `into` (the object already checked). */
  decodeInto(object: Record<string, unknown>, path: string, into: Record<string, unknown>): void;
  /** Encode the fields of `value` into `into`. */
  encodeInto(value: T, into: JsonObject): void;
}

/** A record: its fields by wire name (unknown members ignored); an `open` one keeps the
 * members it does not declare (but `$target`, docs/wire.md §5) as they came. */
export function record<T>(fields: readonly Field[], open = false): ObjectCodec<T> {
  const names = new Set(fields.map((field) => field.name));
  const codec: ObjectCodec<T> = {
    fields,
    decodeInto(object, path, into) {
      for (const field of fields) {
        const value = decodeField(field, object, path);
        if (value !== ABSENT) into[field.name] = value;
      }
      if (open) {
        for (const key of Object.keys(object)) {
          if (!names.has(key) && key !== "$target") into[key] = object[key];
        }
      }
    },
    decode(value, path = "$") {
      if (!isObject(value)) expected("object", value, path);
      const out: Record<string, unknown> = {};
      codec.decodeInto(value, path, out);
      return out as T;
    },
    encodeInto(value, into) {
      const object = value as Record<string, unknown>;
      for (const field of fields) {
        const member = object[field.name];
        if (member === undefined) continue;
        const encoded = field.codec.encode(member);
        if (field.omitDefault && field.default !== undefined && equalJson(encoded, field.default)) continue;
        into[field.name] = encoded;
      }
      if (open) {
        for (const key of Object.keys(object)) {
          const member = object[key];
          if (!names.has(key) && member !== undefined) into[key] = member as JsonValue;
        }
      }
    },
    encode(value) {
      guard(isObject(value), "an object");
      const out: JsonObject = {};
      codec.encodeInto(value, out);
      return out;
    },
  };
  return codec;
}

/** The `{"input": value}` params of an operation whose input is not a record (docs/wire.md §4). */
export function wrapped<T>(inner: Codec<T>): Codec<T> {
  return {
    decode(value, path = "$") {
      if (!isObject(value)) expected("object", value, path);
      if (!hasOwn(value, "input") && !inner.acceptsNull)
        throw new DecodeError(path, "Object missing required field `input`");
      return inner.decode(value["input"] ?? null, `${path}.input`);
    },
    encode: (value) => ({ input: inner.encode(value) }),
  };
}

// -- choices ------------------------------------------------------------------------------

/** What each variant and union made of each object, within one outermost decode: an object
 * is decoded at most once per variant or union however often a fallback asks again, so a
 * recursive variant decodes in time linear in its depth (docs/wire.md §4, "Variants"). */
type Outcome = { readonly value: unknown } | { readonly error: DecodeError };
let memo: WeakMap<object, Map<object, Outcome>> | undefined;
let depth = 0;

function remembered<T>(owner: object, value: unknown, decode: () => T): T {
  if (typeof value !== "object" || value === null) return decode();
  const outer = depth === 0;
  if (outer) memo = new WeakMap();
  depth++;
  try {
    const table = memo as WeakMap<object, Map<object, Outcome>>;
    let known = table.get(value);
    const found = known?.get(owner);
    if (found !== undefined) {
      if ("error" in found) throw found.error;
      return found.value as T;
    }
    if (known === undefined) table.set(value, (known = new Map()));
    try {
      const result = decode();
      known.set(owner, { value: result });
      return result;
    } catch (error) {
      if (error instanceof DecodeError) known.set(owner, { error });
      throw error;
    }
  } finally {
    depth--;
    if (outer) memo = undefined;
  }
}

/** A union: the first alternative that decodes; encoded by the alternative `is` picks
 * (the first whose decode accepts the value's encoding, by default). */
export function union<T>(alternatives: readonly Codec<unknown>[]): Codec<T> {
  const codec: Codec<T> = {
    decode: (value, path = "$") => remembered(codec, value, () => decodeUnion(value, path)),
    encode: (value) => encodeUnion(value),
  };
  function decodeUnion(value: unknown, path: string): T {
    {
      let first: DecodeError | undefined;
      // (An integral `number` past 2^53 came from a float literal: parseJson reads integer
      // literals there as bigints.)
      const integer = typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value));
      const byInt = integer && alternatives.some((alternative) => alternative.numberKind === "int");
      for (const alternative of alternatives) {
        if (byInt && alternative.numberKind === "float") continue;
        try {
          return alternative.decode(value, path) as T;
        } catch (error) {
          if (!(error instanceof DecodeError)) throw error;
          first ??= error;
        }
      }
      throw new DecodeError(path, `Value matches no alternative of the union (the first: ${first?.reason ?? "none"})`);
    }
  }
  function encodeUnion(value: T): JsonValue {
    {
      let last: unknown;
      for (const alternative of alternatives) {
        try {
          const encoded = alternative.encode(value);
          alternative.decode(encoded);
          return encoded;
        } catch (error) {
          last = error;
        }
      }
      throw last instanceof Error ? last : new TypeError("value of no alternative of the union");
    }
  }
  return codec;
}

/** One case of a variant: its object's codec (a record, a union of records, a variant on
 * another tag), or `null` for `unit`. */
export type CaseCodec = Codec<unknown> | null;

export interface VariantOptions {
  readonly open?: boolean;
  /** `fields { … }`: what every case carries. */
  readonly shared?: ObjectCodec<unknown>;
  /** The `default:` case (untagged). */
  readonly default?: CaseCodec;
  /** `unknown: T;` of an open variant: what an unknown tag's object must also be. */
  readonly unknown?: Codec<unknown>;
}

/** A variant tagged by `tag`: `cases` by tag string. Which case an object is follows
 * docs/wire.md §4 "Variants": absent tag → `default:`; a known tag → that case, falling
 * back to `default:` when it does not decode; an unknown tag → the unknown case of an
 * open variant (its shared fields and `unknown:` type decoded, every other member kept),
 * falling back likewise; otherwise `default:` or "invalid value for tag field". */
export function variant<T>(tag: string, cases: Readonly<Record<string, CaseCodec>>, options: VariantOptions = {}): Codec<T> {
  const known = new Map(Object.entries(cases));
  const hasDefault = hasOwn(options, "default");
  const decodeCase = (caseCodec: CaseCodec, object: Record<string, unknown>, path: string, tagValue: string | undefined) => {
    const out: Record<string, unknown> = {};
    if (tagValue !== undefined) out[tag] = tagValue;
    options.shared?.decodeInto(object, path, out);
    if (caseCodec !== null) {
      const own = caseCodec.decode(object, path);
      if (isObject(own)) Object.assign(out, own);
    }
    if (tagValue !== undefined) {
      // The tag stays first and is the case's, whatever the case's own codec wrote.
      out[tag] = tagValue;
    }
    return out;
  };
  const decodeUnknown = (object: Record<string, unknown>, path: string, tagValue: string) => {
    const out: Record<string, unknown> = { ...object };
    options.shared?.decodeInto(object, path, out);
    if (options.unknown) {
      const own = options.unknown.decode(object, path);
      if (isObject(own)) Object.assign(out, own);
    }
    out[tag] = tagValue;
    return out;
  };
  const fallback = (object: Record<string, unknown>, path: string, error: DecodeError): Record<string, unknown> => {
    if (!hasDefault) throw error;
    try {
      return decodeCase(options.default ?? null, object, path, undefined);
    } catch (other) {
      if (other instanceof DecodeError) throw error;
      throw other;
    }
  };
  const codec: Codec<T> = {
    decode: (value, path = "$") => remembered(codec, value, () => decodeVariant(value, path)),
    encode: (value) => encodeVariant(value),
  };
  function decodeVariant(value: unknown, path: string): T {
    {
      if (!isObject(value)) expected("object", value, path);
      if (!hasOwn(value, tag)) {
        if (!hasDefault) throw new DecodeError(path, `Object missing required field \`${tag}\``);
        return decodeCase(options.default ?? null, value, path, undefined) as T;
      }
      const tagValue = value[tag];
      if (typeof tagValue === "string") {
        const attempt = known.has(tagValue)
          ? () => decodeCase(known.get(tagValue) ?? null, value, path, tagValue)
          : options.open
            ? () => decodeUnknown(value, path, tagValue)
            : undefined;
        if (attempt !== undefined) {
          try {
            return attempt() as T;
          } catch (error) {
            if (!(error instanceof DecodeError)) throw error;
            return fallback(value, path, error) as T;
          }
        }
      }
      return fallback(value, path, new DecodeError(`${path}.${tag}`, "Invalid value for tag field")) as T;
    }
  }
  function encodeVariant(value: T): JsonValue {
    {
      guard(isObject(value), "an object");
      const object = value as Record<string, unknown>;
      const tagValue = object[tag];
      const out: JsonObject = {};
      if (typeof tagValue !== "string") {
        options.shared?.encodeInto(object, out);
        const own = options.default ? options.default.encode(object) : {};
        return Object.assign(out, isObject(own) ? own : {});
      }
      out[tag] = tagValue;
      if (!known.has(tagValue)) {
        for (const key of Object.keys(object)) {
          if (object[key] !== undefined) out[key] = object[key] as JsonValue;
        }
        options.shared?.encodeInto(object, out);
        if (options.unknown) {
          const own = options.unknown.encode(object);
          if (isObject(own)) Object.assign(out, own);
        }
        out[tag] = tagValue;
        return out;
      }
      options.shared?.encodeInto(object, out);
      const caseCodec = known.get(tagValue) ?? null;
      if (caseCodec !== null) {
        const own = caseCodec.encode(object);
        if (isObject(own)) Object.assign(out, own);
      }
      out[tag] = tagValue;
      return out;
    }
  }
  return codec;
}
