// The JSON reader and writer of runtime-ts (runtime-ts/src/json.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { JsonSyntaxError, MAX_DEPTH, parseJson, stringifyJson } from "../../../../runtime-ts/dist/index.js";

test("plain JSON reads as JSON.parse reads it", () => {
  const text = '{"a":[1,2.5,-3e2,true,false,null,"x\\n\\u00e9"],"b":{}}';
  assert.deepEqual(parseJson(text), JSON.parse(text));
});

test("integers beyond 2^53 are bigint, exact; those a double holds stay numbers", () => {
  const value = parseJson('{"big":9007199254740993,"neg":-9223372036854775808,"max":18446744073709551615,"safe":9007199254740991,"small":1000000000000000}');
  assert.equal(value.big, 9007199254740993n);
  assert.equal(value.neg, -(2n ** 63n));
  assert.equal(value.max, 2n ** 64n - 1n);
  assert.equal(value.safe, 9007199254740991);
  assert.equal(value.small, 1e15);
});

test("a long run of digits inside a string is no number", () => {
  assert.deepEqual(parseJson('{"s":"12345678901234567890","n":1}'), { s: "12345678901234567890", n: 1 });
  assert.deepEqual(parseJson('["\\"12345678901234567890", 12345678901234567890]'), ['"12345678901234567890', 12345678901234567890n]);
});

test("fractions and exponents with many digits are doubles", () => {
  assert.equal(parseJson("12345678901234567.5"), 12345678901234567.5);
  assert.equal(parseJson("1e300"), 1e300);
  assert.equal(parseJson("12345678901234567e2"), 12345678901234567e2);
});

test("numbers beyond a double are refused; integers of any length are bigints", () => {
  for (const text of ["1e400", "-1e400", "[1.5e999]"]) {
    assert.throws(() => parseJson(text), JsonSyntaxError, text);
  }
  // As the Python runtime reads them: the field's type says whether one fits.
  assert.equal(parseJson("18446744073709551616"), 18446744073709551616n);
  assert.equal(parseJson("-9223372036854775809"), -9223372036854775809n);
  assert.deepEqual(parseJson("[123456789012345678901234567890]"), [123456789012345678901234567890n]);
});

test("syntax errors are JsonSyntaxError on both paths", () => {
  for (const text of ["{", '{"a":1,}', "[1 2]", "nul", '"abc', "{} x", '{"a":12345678901234567890', '["\u0001"]', "01"]) {
    assert.throws(() => parseJson(text), JsonSyntaxError, text);
  }
  // The slow path bounds nesting at MAX_DEPTH levels (JSON.parse, the fast one, goes as
  // deep as V8 does): past it, a parse error rather than a stack overflow.
  const nest = (depth) => "[".repeat(depth) + "12345678901234567890" + "]".repeat(depth);
  assert.throws(() => parseJson(nest(MAX_DEPTH + 1)), JsonSyntaxError);
  assert.throws(() => parseJson(nest(100_000)), JsonSyntaxError);
  let value = parseJson(nest(MAX_DEPTH));
  for (let depth = 0; depth < MAX_DEPTH; depth++) value = value[0];
  assert.equal(value, 12345678901234567890n);
});

test("__proto__ is an own member, never the prototype", () => {
  const value = parseJson('{"__proto__":{"polluted":1},"n":12345678901234567890}');
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.keys(value), ["__proto__", "n"]);
  assert.equal({}.polluted, undefined);
});

test("the writer writes bigint as digits and everything else as JSON.stringify", () => {
  assert.equal(stringifyJson({ a: 1, b: "x" }), '{"a":1,"b":"x"}');
  assert.equal(stringifyJson({ id: 2n ** 63n, list: [1n, undefined, null], skip: undefined, s: "é\n" }), '{"id":9223372036854775808,"list":[1,null,null],"s":"é\\n"}');
  assert.equal(stringifyJson({ when: new Date(0), n: 5n }), '{"when":"1970-01-01T00:00:00.000Z","n":5}');
  const round = { big: 12345678901234567891n, nested: [{ x: -(2n ** 62n) }] };
  assert.deepEqual(parseJson(stringifyJson(round)), round);
});
