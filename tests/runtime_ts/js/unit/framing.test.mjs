// Newline framing and the id of unreadable lines (runtime-ts/src/framing.ts, unreadable.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { LineSplitter, incomingOf } from "../../../../runtime-ts/dist/index.js";
import { identify, identifyText } from "../../../../runtime-ts/dist/unreadable.js";

const bytes = (text) => new TextEncoder().encode(text);

function split(chunks, limit = 1000) {
  const out = [];
  const splitter = new LineSplitter(limit, (message) => out.push(message));
  for (const chunk of chunks) splitter.push(typeof chunk === "string" ? bytes(chunk) : chunk);
  splitter.end();
  return out;
}

test("lines split across chunks, blank lines dropped, a last line without newline kept", () => {
  const out = split(['{"a":', '1}\n\n  \n{"b"', ":2}\r\n", '{"c":3}']);
  assert.deepEqual(out.map((message) => message.text), ['{"a":1}', '{"b":2}\r', '{"c":3}']);
});

test("a multi-byte character split between chunks is whole", () => {
  const encoded = bytes('"é€😀"\n');
  const out = split([encoded.subarray(0, 2), encoded.subarray(2, 5), encoded.subarray(5)]);
  assert.equal(out[0].text, '"é€😀"');
});

test("an oversized line is skipped with its ends kept, and the next line read", () => {
  const long = '{"id":1,"params":"' + "x".repeat(5000) + '","tail":7}';
  const out = split([long.slice(0, 100), long.slice(100, 3000), long.slice(3000) + "\n", '{"ok":1}\n'], 1000);
  assert.equal(out[0].kind, "oversized");
  assert.equal(out[0].size, long.length);
  assert.equal(out[0].head, long.slice(0, 1024));
  assert.equal(out[0].tail, long.slice(-1024));
  assert.deepEqual(out[1], { kind: "text", text: '{"ok":1}', size: 8 });
});

test("a line exactly at the limit is read; one byte more is oversized", () => {
  assert.equal(split(["x".repeat(10) + "\n"], 10)[0].kind, "text");
  assert.equal(split(["x".repeat(11) + "\n"], 10)[0].kind, "oversized");
  assert.equal(incomingOf(bytes("x".repeat(11)), 10).kind, "oversized");
});

test("bytes that are not UTF-8 are unreadable, their ends decoded leniently", () => {
  const [message] = split([new Uint8Array([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x35, 0x2c, 0xff, 0x7d, 0x0a])]);
  assert.equal(message.kind, "invalid-utf8");
  assert.deepEqual(identify(message.head, message.tail), { id: 5, response: false });
});

test("the id is found in the head or the tail, not between nested values", () => {
  assert.deepEqual(identifyText('{"jsonrpc":"2.0","id":3,"method":"m","params":{"x":'), { id: 3, response: false });
  assert.deepEqual(identifyText('{"params":[1,2],"method":"m","id":"t"}'), { id: "t", response: false });
  assert.deepEqual(identifyText('{"a":{},"id":4,"b":{}}'), { id: null, response: false });
  assert.deepEqual(identifyText('{"jsonrpc":"2.0","id":9,"result":{"x":'), { id: 9, response: true });
  assert.deepEqual(identifyText('{"id":12345678901234567890,"error":'), { id: 12345678901234567890n, response: true });
  assert.deepEqual(identifyText('{"id":1.5,"method":"m","params":['), { id: null, response: false });
  assert.deepEqual(identifyText('"\\""'), { id: null, response: false });
  assert.deepEqual(identifyText("[1,2"), { id: null, response: false });
});
