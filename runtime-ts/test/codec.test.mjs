// The codec's validators and encoders (src/codec), run from the built dist:
// `npm run build && node --test test/` (tests/typescript/test_codec.py runs them).
import assert from "node:assert/strict";
import { test } from "node:test";

import { DecodeError, ProtocolError, codec as c, parseJson, stringifyJson } from "../dist/index.js";

function refused(codecToUse, value, path, reason) {
  assert.throws(
    () => codecToUse.decode(value),
    (error) => {
      assert.ok(error instanceof DecodeError, String(error));
      assert.equal(error.path, path);
      if (reason !== undefined) assert.equal(error.reason, reason);
      return true;
    },
  );
}

test("scalars are strict, with msgspec's reasons", () => {
  assert.equal(c.string.decode("x"), "x");
  refused(c.string, 1, "$", "Expected `str`, got `int`");
  refused(c.bool, "true", "$", "Expected `bool`, got `str`");
  assert.equal(c.float64.decode(1), 1);
  assert.equal(c.float64.decode(2n ** 60n), 2 ** 60);
  refused(c.float64, null, "$", "Expected `float`, got `null`");
});

test("integers are range-checked", () => {
  assert.equal(c.uint32.decode(4294967295), 4294967295);
  refused(c.uint32, -1, "$", "Expected `int` >= 0");
  refused(c.uint32, 4294967296, "$", "Expected `int` <= 4294967295");
  refused(c.int8, 1.5, "$", "Expected `int`, got `float`");
  refused(c.int8, 128, "$", "Expected `int` <= 127");
});

test("64-bit integers are bigints, from a number or a bigint", () => {
  assert.equal(c.uint64.decode(3), 3n);
  assert.equal(c.uint64.decode(18446744073709551615n), 18446744073709551615n);
  refused(c.uint64, 18446744073709551616n, "$", "Expected `int` <= 18446744073709551615");
  refused(c.int64, -(2n ** 63n) - 1n, "$", "Expected `int` >= -9223372036854775808");
  refused(c.uint64, 2 ** 60, "$");
  assert.equal(c.int64.encode(-5n), -5n);
  assert.equal(stringifyJson({ n: 18446744073709551615n }), '{"n":18446744073709551615}');
});

test("parseJson reads unsafe integers as bigints and keeps __proto__ a member", () => {
  const value = parseJson('{"a": 9007199254740993, "b": 9007199254740991, "c": 1.5, "__proto__": [1e2]}');
  assert.equal(value.a, 9007199254740993n);
  assert.equal(value.b, 9007199254740991);
  assert.equal(value.c, 1.5);
  assert.deepEqual(Object.keys(value), ["a", "b", "c", "__proto__"]);
  assert.throws(() => parseJson("{"), SyntaxError);
  assert.throws(() => parseJson("[1] x"), SyntaxError);
  assert.equal(stringifyJson(parseJson('{"s":"\\u00e9\\n","l":[true,null,-0.5]}')), '{"s":"é\\n","l":[true,null,-0.5]}');
});

test("bytes are base64", () => {
  assert.deepEqual(c.bytes.decode("AAEC/w=="), new Uint8Array([0, 1, 2, 255]));
  assert.equal(c.bytes.encode(new Uint8Array([0, 1, 2, 255])), "AAEC/w==");
  refused(c.bytes, "AAE", "$", "Invalid base64 encoded string");
});

test("lists and maps name the failing entry", () => {
  refused(c.list(c.uint8), [1, "x"], "$[1]", "Expected `int`, got `str`");
  refused(c.map(c.string), { a: 1 }, "$[...]", "Expected `str`, got `int`");
  const decoded = c.map(c.uint8).decode(parseJson('{"__proto__": 1, "constructor": 2}'));
  assert.equal(Object.getPrototypeOf(decoded), null);
  assert.equal(decoded["__proto__"], 1);
  assert.deepEqual(Object.keys(decoded), ["__proto__", "constructor"]);
  refused(c.list(c.string), {}, "$", "Expected `array`, got `object`");
});

test("many-unique refuses a duplicate", () => {
  const refs = c.uniqueList(c.ref());
  assert.deepEqual(refs.decode(["a", "b"]), ["a", "b"]);
  assert.ok(Object.isFrozen(refs.decode(["a"])));
  refused(refs, ["a", "a"], "$[1]");
});

const Inner = c.record([{ name: "n", codec: c.uint8, presence: "required" }]);
const Outer = c.record([
  { name: "name", codec: c.string, presence: "required" },
  { name: "inner", codec: c.lazy(() => Inner), presence: "optional" },
  { name: "count", codec: c.uint32, presence: "default", default: 3, omitDefault: true },
  { name: "tags", codec: c.list(c.string), presence: "default", default: [], omitDefault: true },
]);

test("records: required, optional, defaults; unknown members ignored", () => {
  assert.deepEqual(Outer.decode({ name: "a", extra: 1 }), { name: "a", count: 3, tags: [] });
  assert.deepEqual(Outer.decode({ name: "a", inner: null }), { name: "a", count: 3, tags: [] });
  refused(Outer, {}, "$", "Object missing required field `name`");
  refused(Outer, { name: "a", inner: {} }, "$.inner", "Object missing required field `n`");
  refused(Outer, { name: "a", inner: { n: 256 } }, "$.inner.n", "Expected `int` <= 255");
  refused(Outer, [], "$", "Expected `object`, got `array`");
  assert.deepEqual(Outer.encode({ name: "a", count: 3, tags: [] }), { name: "a" });
  assert.deepEqual(Outer.encode({ name: "a", count: 4, tags: ["x"], inner: { n: 1 } }), {
    name: "a",
    inner: { n: 1 },
    count: 4,
    tags: ["x"],
  });
});

test("a value is left out only when it is its default", () => {
  const D = c.record([
    { name: "anything", codec: c.json, presence: "default", default: [], omitDefault: true },
    { name: "big", codec: c.uint64, presence: "default", default: 0, omitDefault: true },
  ]);
  assert.deepEqual(D.encode({ anything: 0, big: 0n }), { anything: 0 });
  assert.deepEqual(D.encode({ anything: [], big: 1n }), { big: 1n });
  assert.deepEqual(D.encode({ anything: "", big: 0n }), { anything: "" });
});

test("open records keep what they do not declare, but $target", () => {
  const Open = c.record([{ name: "a", codec: c.string, presence: "required" }], true);
  const value = Open.decode({ a: "x", b: [1], $target: "k" });
  assert.deepEqual(value, { a: "x", b: [1] });
  assert.deepEqual(Open.encode(value), { a: "x", b: [1] });
});

test("tri-state fields tell absent, null and a value apart", () => {
  const Patch = c.record([{ name: "v", codec: c.nullable(c.string), presence: "tristate" }]);
  assert.deepEqual(Patch.decode({}), {});
  assert.deepEqual(Patch.decode({ v: null }), { v: null });
  assert.deepEqual(Patch.encode({ v: null }), { v: null });
  assert.deepEqual(Patch.encode({}), {});
});

test("forward-compatible modifiers", () => {
  const Level = c.enumeration(["low", "high"], false);
  const R = c.record([
    { name: "level", codec: Level, presence: "optional", lenient: true },
    { name: "items", codec: c.list(c.uint8), presence: "default", default: [], omitDefault: true, lenient: true, skipInvalid: true },
    { name: "names", codec: c.list(c.string), presence: "required", nullDefault: true, fallback: [] },
  ]);
  assert.deepEqual(R.decode({ level: "odd", items: [1, "x", 2], names: null }), { items: [1, 2], names: [] });
  assert.deepEqual(R.decode({ items: "no", names: ["a"] }), { items: [], names: ["a"] });
  refused(R, { names: 1 }, "$.names", "Expected `array`, got `int`");
  refused(R, {}, "$", "Object missing required field `names`");
});

test("open enums keep unknown values", () => {
  const Kind = c.enumeration(["read"], true);
  assert.equal(Kind.decode("_acme.review"), "_acme.review");
  refused(c.enumeration(["read"], false), "edit", "$", "Invalid enum value 'edit'");
});

const Http = c.record([{ name: "url", codec: c.string, presence: "required" }]);
const Stdio = c.record([{ name: "command", codec: c.string, presence: "required" }]);
const Server = c.variant("type", { http: Http, none: null }, { default: Stdio });
const Shared = c.record([{ name: "id", codec: c.string, presence: "required" }]);
const Update = c.variant("kind", { a: Http }, { open: true, shared: Shared });

test("variants: the tag picks the case, the default case is the fallback", () => {
  assert.deepEqual(Server.decode({ type: "http", url: "u" }), { type: "http", url: "u" });
  assert.deepEqual(Server.decode({ type: "none", x: 1 }), { type: "none" });
  assert.deepEqual(Server.decode({ command: "c" }), { command: "c" });
  // A tagged case that does not decode, shaped like the default case: the default case.
  assert.deepEqual(Server.decode({ type: "http", command: "c" }), { command: "c" });
  refused(Server, { type: "http" }, "$", "Object missing required field `url`");
  refused(Server, { type: "other" }, "$.type", "Invalid value for tag field");
  refused(Server, { type: 1 }, "$.type", "Invalid value for tag field");
  assert.deepEqual(Server.encode({ type: "http", url: "u" }), { type: "http", url: "u" });
  assert.deepEqual(Server.encode({ command: "c" }), { command: "c" });
});

test("a recursive variant decodes each object once, however often a fallback asks", () => {
  // Each level's tagged case decodes `next`, then fails on `x`: the default case decodes
  // `next` again. Without the memo, 2^depth decodes.
  const Node = c.variant("k", {
    a: c.record([
      { name: "next", codec: c.lazy(() => Node), presence: "optional" },
      { name: "x", codec: c.uint8, presence: "required" },
    ]),
  }, { default: c.record([{ name: "next", codec: c.lazy(() => Node), presence: "optional" }]) });
  let value = { k: "a", x: "bad" };
  for (let level = 0; level < 40; level++) value = { k: "a", next: value, x: "bad" };
  const started = Date.now();
  let decoded = Node.decode(value);
  assert.ok(Date.now() - started < 2000);
  let levels = 0;
  while (decoded.next !== undefined) {
    assert.equal(decoded.k, undefined); // every level is the default case
    decoded = decoded.next;
    levels++;
  }
  assert.equal(levels, 40);
});

test("open variants keep an unknown tag's object, shared fields decoded", () => {
  assert.deepEqual(Update.decode({ kind: "a", id: "1", url: "u" }), { kind: "a", id: "1", url: "u" });
  assert.deepEqual(Update.decode({ kind: "z", id: "1", more: [1] }), { kind: "z", id: "1", more: [1] });
  refused(Update, { kind: "z" }, "$", "Object missing required field `id`");
  assert.deepEqual(Update.encode({ kind: "z", id: "1", more: [1] }), { kind: "z", id: "1", more: [1] });
  refused(c.variant("k", { a: null }), {}, "$", "Object missing required field `k`");
});

test("a union with an integer alternative reads every integer as it, as msgspec", () => {
  const N = c.union([c.string, c.int64, c.float64]);
  assert.equal(N.decode(3), 3n);
  assert.equal(N.decode(1.5), 1.5);
  refused(N, -(2n ** 63n) - 1n, "$");
  assert.equal(N.decode(2 ** 60), 2 ** 60); // a float literal past 2^53 (no bigint): the float
  assert.equal(stringifyJson(7.038586391730586e16), "7.038586391730586e+16");
});

test("unions: the first alternative that decodes", () => {
  const U = c.union([c.uint8, c.string]);
  assert.equal(U.decode(3), 3);
  assert.equal(U.decode("x"), "x");
  refused(U, true, "$");
  assert.equal(U.encode("x"), "x");
});

test("wrapped params and results", () => {
  const W = c.wrapped(c.string);
  assert.equal(W.decode({ input: "x" }), "x");
  refused(W, { input: 1 }, "$.input", "Expected `str`, got `int`");
  assert.deepEqual(W.encode("x"), { input: "x" });
  assert.deepEqual(c.callParams({ a: 1 }, "k"), { a: 1, $target: "k" });
  assert.deepEqual(c.callParams(undefined, "k"), { $target: "k" });
  assert.equal(c.callParams(undefined, undefined), undefined);
  assert.throws(
    () => c.decodeResult(c.uint8, "x", "m"),
    (error) => error instanceof ProtocolError && error.data.path === "$" && error.data.method === "m",
  );
});
