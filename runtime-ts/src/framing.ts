// Newline-delimited framing (docs/wire.md §2): bytes in, one message per line out. Works on
// Uint8Array so that it runs in a browser too (a Node Buffer is one). A line longer than
// the limit is never held whole: it is skipped as it arrives and only its first and last
// KiB are kept, enough to find its id (./unreadable.ts) and answer it (docs/wire.md §8).

/** How many bytes at each end of an oversized line are kept. */
export const END_SIZE = 1024;

/** What a transport hands the peer: a message's text, or what is left of one. */
export type Incoming =
  | { readonly kind: "text"; readonly text: string; readonly size: number }
  | {
      /** Longer than the limit: not read, only its ends kept. */
      readonly kind: "oversized";
      readonly size: number;
      readonly head: string;
      readonly tail: string;
    }
  | {
      /** Not UTF-8: unreadable (-32700), its ends decoded leniently to find its id. */
      readonly kind: "invalid-utf8";
      readonly head: string;
      readonly tail: string;
    };

const NEWLINE = 0x0a;
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/** A message's bytes (a line without its newline, or a frame) as what the peer takes. */
export function incomingOf(bytes: Uint8Array, maxMessageSize: number): Incoming {
  if (bytes.length > maxMessageSize) {
    return {
      kind: "oversized",
      size: bytes.length,
      head: lenient.decode(bytes.subarray(0, END_SIZE)),
      tail: lenient.decode(bytes.subarray(Math.max(0, bytes.length - END_SIZE))),
    };
  }
  try {
    return { kind: "text", text: strict.decode(bytes), size: bytes.length };
  } catch {
    return {
      kind: "invalid-utf8",
      head: lenient.decode(bytes.subarray(0, END_SIZE)),
      tail: lenient.decode(bytes.subarray(Math.max(0, bytes.length - END_SIZE))),
    };
  }
}

/** Splits a byte stream into lines. `push` each chunk as it arrives and `end` at the end
 * of input; each complete line (empty and blank ones dropped) goes to `deliver`. */
export class LineSplitter {
  private readonly parts: Uint8Array[] = [];
  private held = 0;
  // While skipping an oversized line: its size so far, its head, and its last bytes.
  private skipping = false;
  private skippedSize = 0;
  private skippedHead: Uint8Array = new Uint8Array(0);
  private skippedTail: Uint8Array = new Uint8Array(0);

  constructor(
    private readonly maxMessageSize: number,
    private readonly deliver: (message: Incoming) => void,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline < 0) {
        this.hold(chunk.subarray(start));
        return;
      }
      this.hold(chunk.subarray(start, newline));
      this.finishLine();
      start = newline + 1;
    }
  }

  /** The end of input: a last line without its newline is handled as if it had one, so a
   * truncated message gets its parse error instead of vanishing (docs/wire.md §2). */
  end(): void {
    if (this.held > 0 || this.skipping) this.finishLine();
  }

  private hold(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.skipping) {
      this.skip(bytes);
      return;
    }
    if (this.held + bytes.length > this.maxMessageSize) {
      // Over the limit: from here the line is skipped, its head and tail kept.
      const whole = concat(this.parts, this.held);
      this.parts.length = 0;
      this.held = 0;
      this.skipping = true;
      this.skippedSize = 0;
      this.skippedHead = new Uint8Array(0);
      this.skippedTail = new Uint8Array(0);
      this.skip(whole);
      this.skip(bytes);
      return;
    }
    // A copy: the chunk's buffer may be reused by the stream once `push` returns.
    this.parts.push(bytes.slice());
    this.held += bytes.length;
  }

  private skip(bytes: Uint8Array): void {
    if (this.skippedHead.length < END_SIZE) {
      const wanted = END_SIZE - this.skippedHead.length;
      this.skippedHead = concat([this.skippedHead, bytes.subarray(0, wanted)]);
    }
    const tail = concat([this.skippedTail, bytes]);
    this.skippedTail = tail.slice(Math.max(0, tail.length - END_SIZE));
    this.skippedSize += bytes.length;
  }

  private finishLine(): void {
    if (this.skipping) {
      this.skipping = false;
      this.deliver({
        kind: "oversized",
        size: this.skippedSize,
        head: lenient.decode(this.skippedHead),
        tail: lenient.decode(this.skippedTail),
      });
      this.skippedHead = this.skippedTail = new Uint8Array(0);
      return;
    }
    const line = concat(this.parts, this.held);
    this.parts.length = 0;
    this.held = 0;
    if (isBlank(line)) return;
    this.deliver(incomingOf(line, this.maxMessageSize));
  }
}

function isBlank(line: Uint8Array): boolean {
  for (const byte of line) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) return false;
  }
  return true;
}

function concat(parts: readonly Uint8Array[], total?: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const size = total ?? parts.reduce((sum, part) => sum + part.length, 0);
  const result = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.length;
  }
  return result;
}

const encoder = new TextEncoder();

/** The UTF-8 size of `text` when it is over `limit` bytes, else `undefined`; a text that
 * cannot be over it (3 bytes per UTF-16 unit at most) is not encoded. */
export function sizeOver(text: string, limit: number): number | undefined {
  if (text.length * 3 <= limit) return undefined;
  const size = encoder.encode(text).length;
  return size > limit ? size : undefined;
}
