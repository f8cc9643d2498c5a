// Two peers joined in memory, for tests (of this runtime and of generated code): what one
// sends the other receives, in order, a message at a time, as over any transport.

import { ConnectionClosed } from "./errors.js";
import { sizeOver } from "./framing.js";
import { Peer, DEFAULT_MAX_MESSAGE_SIZE, type PeerOptions } from "./peer.js";
import type { Transport, TransportSink } from "./transport.js";

class MemoryTransport implements Transport {
  other!: MemoryTransport;
  private sink: TransportSink | undefined;
  private readonly inbox: string[] = [];
  private paused = false;
  private scheduled = false;
  private inputEnded = false;
  private endPending = false;
  private closed = false;

  constructor(private readonly maxMessageSize: number) {}

  start(sink: TransportSink): void {
    this.sink = sink;
    this.schedule();
  }

  send(text: string): void {
    if (this.closed) throw new ConnectionClosed("the connection is closed");
    this.other.receive(text);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.schedule();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.other.endOfInput();
    this.endOfInput();
  }

  private receive(text: string): void {
    if (this.inputEnded || this.endPending) return;
    this.inbox.push(text);
    this.schedule();
  }

  private endOfInput(): void {
    this.endPending = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.sink === undefined) return;
    this.scheduled = true;
    // A macrotask per step, as a socket's reads are: handlers' microtasks run in between.
    setTimeout(() => this.deliver(), 0);
  }

  private deliver(): void {
    this.scheduled = false;
    const sink = this.sink!;
    while (!this.paused && this.inbox.length > 0) {
      const text = this.inbox.shift()!;
      const size = sizeOver(text, this.maxMessageSize);
      sink.message(
        size === undefined
          ? { kind: "text", text, size: text.length }
          : { kind: "oversized", size, head: text.slice(0, 1024), tail: text.slice(-1024) },
      );
    }
    if (!this.paused && this.inbox.length === 0 && this.endPending && !this.inputEnded) {
      this.inputEnded = true;
      sink.end();
    }
  }
}

/** Two started peers joined in memory: `[a, b]`, serving `roots[0]` and `roots[1]`. */
export function memoryPair(
  roots: readonly [object | undefined, object | undefined] = [undefined, undefined],
  options: readonly [PeerOptions?, PeerOptions?] = [],
): [Peer, Peer] {
  const [optionsA = {}, optionsB = {}] = options;
  const a = new MemoryTransport(optionsA.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE);
  const b = new MemoryTransport(optionsB.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE);
  a.other = b;
  b.other = a;
  const peerA = new Peer(a, optionsA);
  const peerB = new Peer(b, optionsB);
  if (roots[0] !== undefined) peerA.serve(roots[0]);
  if (roots[1] !== undefined) peerB.serve(roots[1]);
  return [peerA.start(), peerB.start()];
}
