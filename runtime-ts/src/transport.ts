// What a peer needs of a transport: messages in (already framed: a line of a stream, or a
// WebSocket frame), messages out, and a way to stop reading and to close. Framing lives in
// the transport because it differs (lines vs frames, docs/wire.md §2); everything from the
// message on is the peer's, the same on every transport.

import type { Incoming } from "./framing.js";

export interface TransportSink {
  /** One message, as the transport framed it. */
  message(incoming: Incoming): void;
  /** The end of input (the other side closed, or the transport failed). */
  end(error?: unknown): void;
}

export interface Transport {
  /** Starts delivering to `sink`; called once. */
  start(sink: TransportSink): void;
  /** Writes one message (without its newline: the transport frames it). A promise when
   * the transport's buffer is full, settled when it drained. Throws when closed. */
  send(text: string): void | Promise<void>;
  /** Stops reading, for backpressure (docs/wire.md §11); optional. */
  pause?(): void;
  resume?(): void;
  /** Closes the transport once what was sent is written. */
  close(): void | Promise<void>;
}
