// A transport over a pair of Node streams (a child's pipes, this process's stdin and
// stdout): newline-delimited JSON (docs/wire.md §2), split by ../framing.ts.

import type { Readable, Writable } from "node:stream";
import { ConnectionClosed } from "../errors.js";
import { LineSplitter } from "../framing.js";
import type { Transport, TransportSink } from "../transport.js";

export interface StreamTransportOptions {
  readonly maxMessageSize: number;
  /** Called by `close` once the output is flushed (ends the output stream by default). */
  readonly onClose?: () => void | Promise<void>;
  /** End `output` when closing (a child's stdin: yes; this process's stdout: no). */
  readonly endOutput?: boolean;
}

export class StreamTransport implements Transport {
  private ended = false;
  private closed = false;
  private drained: Promise<void> | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: StreamTransportOptions,
  ) {}

  start(sink: TransportSink): void {
    const splitter = new LineSplitter(this.options.maxMessageSize, (message) => sink.message(message));
    const end = (error?: unknown) => {
      if (this.ended) return;
      this.ended = true;
      splitter.end();
      sink.end(error);
    };
    this.input.on("data", (chunk: Buffer | string) => splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
    this.input.on("end", () => end());
    this.input.on("close", () => end());
    this.input.on("error", (error) => end(error));
    // A write to a pipe whose reader is gone fails with EPIPE: the connection is over.
    this.output.on("error", () => end());
  }

  send(text: string): void | Promise<void> {
    if (this.closed || this.output.writableEnded || this.output.destroyed) {
      throw new ConnectionClosed("the connection is closed");
    }
    if (this.output.write(text + "\n")) return undefined;
    // The buffer is full: the writer waits for it to drain (docs/wire.md §11).
    this.drained ??= new Promise<void>((resolve) => {
      const done = () => {
        this.output.off("drain", done);
        this.output.off("close", done);
        this.drained = undefined;
        resolve();
      };
      this.output.on("drain", done);
      this.output.on("close", done);
    });
    return this.drained;
  }

  pause(): void {
    this.input.pause();
  }

  resume(): void {
    this.input.resume();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.pause();
    if (this.options.endOutput ?? true) {
      await new Promise<void>((resolve) => {
        if (this.output.writableEnded || this.output.destroyed) resolve();
        else this.output.end(() => resolve());
      });
    }
    this.input.destroy();
    await this.options.onClose?.();
  }
}
