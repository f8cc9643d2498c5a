// What can still be said about a message that cannot be read whole (docs/wire.md §8): an
// oversized line (only its ends kept) or one that does not parse must still be answered,
// with its id when the id can be found cheaply. As the Python runtime does
// (runtime/idlc_runtime/codec/unreadable.py), only the first and last KiB are looked at:
// the top-level members written as plain scalars before the first nested value, and those
// after the last nested value. Linear in the ends' size, and never throws.

import { END_SIZE } from "./framing.js";

export type RequestId = number | bigint | string;

export interface Identity {
  /** The top-level `id`, if one was seen and is a valid request id. */
  readonly id: RequestId | null;
  /** A top-level `result` or `error` and no `method`: it answers a call of ours. */
  readonly response: boolean;
}

const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const SCALAR = String.raw`(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)`;
const WS = String.raw`[ \t\r\n]*`;
const OPEN = new RegExp(`${WS}\\{`, "y");
const HEAD_MEMBER = new RegExp(`${WS}(${STRING})${WS}:${WS}(${SCALAR})${WS}([,}])`, "y");
const HEAD_KEY = new RegExp(`${WS}(${STRING})${WS}:`, "y");
const SPACE = new Set([" ", "\t", "\r", "\n"]);
const BARE = new Set("0123456789+-.eEtruefalsn");

type Member = [key: string, value: string | null];

/** The id and kind of a message from its first and last characters. */
export function identify(head: string, tail: string): Identity {
  const members: Member[] = [];
  scanHead(head, members);
  scanTail(tail, members);
  const keys = new Set<string>();
  let id: RequestId | null = null;
  for (const [rawKey, rawValue] of members) {
    const key = decode(rawKey);
    if (typeof key !== "string") continue;
    keys.add(key);
    if (key === "id" && id === null && rawValue !== null) id = decodeId(rawValue);
  }
  return { id, response: !keys.has("method") && (keys.has("result") || keys.has("error")) };
}

/** `identify` for a whole text held in memory. */
export function identifyText(text: string): Identity {
  return identify(text.slice(0, END_SIZE), text.slice(-END_SIZE));
}

function scanHead(head: string, members: Member[]): void {
  OPEN.lastIndex = 0;
  if (OPEN.exec(head) === null) return;
  let position = OPEN.lastIndex;
  for (;;) {
    HEAD_MEMBER.lastIndex = position;
    const member = HEAD_MEMBER.exec(head);
    if (member === null) {
      HEAD_KEY.lastIndex = position;
      const last = HEAD_KEY.exec(head);
      if (last !== null) members.push([last[1]!, null]);
      return;
    }
    members.push([member[1]!, member[2]!]);
    if (member[3] === "}") return;
    position = HEAD_MEMBER.lastIndex;
  }
}

/** The scalar members that end the top-level object, read backwards from its closing
 * brace up to the last nested value (a backwards walk: a pattern tried from every position
 * would be quadratic in the members, which a sender controls). */
function scanTail(tail: string, members: Member[]): void {
  const end = skipSpaceBack(tail, tail.length);
  if (end === 0 || tail[end - 1] !== "}") return;
  let position = end - 1;
  for (;;) {
    const valueEnd = skipSpaceBack(tail, position);
    const valueStart = tokenStart(tail, valueEnd);
    if (valueStart === null) return;
    const colon = skipSpaceBack(tail, valueStart);
    if (colon === 0 || tail[colon - 1] !== ":") return;
    const keyEnd = skipSpaceBack(tail, colon - 1);
    if (keyEnd === 0 || tail[keyEnd - 1] !== '"') return;
    const keyStart = stringStart(tail, keyEnd);
    if (keyStart === null) return;
    members.push([tail.slice(keyStart, keyEnd), tail.slice(valueStart, valueEnd)]);
    const before = skipSpaceBack(tail, keyStart);
    if (before === 0 || tail[before - 1] !== ",") return;
    position = before - 1;
  }
}

function skipSpaceBack(data: string, end: number): number {
  while (end > 0 && SPACE.has(data[end - 1]!)) end--;
  return end;
}

function tokenStart(data: string, end: number): number | null {
  if (end === 0) return null;
  if (data[end - 1] === '"') return stringStart(data, end);
  let start = end;
  while (start > 0 && BARE.has(data[start - 1]!)) start--;
  return start < end ? start : null;
}

/** The opening quote of the string whose closing quote is at `end - 1`: the nearest quote
 * before it not escaped (preceded by an even number of backslashes). */
function stringStart(data: string, end: number): number | null {
  let quote = end - 1;
  for (;;) {
    if (quote <= 0) return null; // lastIndexOf would clamp a negative start to 0
    quote = data.lastIndexOf('"', quote - 1);
    if (quote < 0) return null;
    let backslashes = 0;
    while (quote - backslashes - 1 >= 0 && data[quote - backslashes - 1] === "\\") backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
}

function decode(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function decodeId(raw: string): RequestId | null {
  if (raw.startsWith('"')) {
    const value = decode(raw);
    return typeof value === "string" ? value : null;
  }
  if (!/^-?(?:0|[1-9]\d*)$/.test(raw)) return null;
  const value = Number(raw);
  if (Number.isSafeInteger(value)) return value;
  const exact = BigInt(raw);
  return exact >= -(2n ** 63n) && exact < 2n ** 64n ? exact : null;
}
