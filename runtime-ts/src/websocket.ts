// WebSocket (docs/wire.md §2, docs/web.md): one message per text frame, no newline. This
// module uses only what a browser's WebSocket has (`onmessage`, `send`, `close`), so it runs
// in a browser as it is; on Node, "@idlc/runtime/node" gives it the `ws` package's socket,
// which has the same interface, and the header it needs for `Authorization`.

import { ConnectionClosed } from "./errors.js";
import { incomingOf, sizeOver, type Incoming } from "./framing.js";
import { DEFAULT_MAX_MESSAGE_SIZE, Peer, type PeerOptions } from "./peer.js";
import type { Transport, TransportSink } from "./transport.js";

/** What this runtime uses of a WebSocket: the browser's, or `ws`'s. */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  /** Bytes sent but not yet written to the network. */
  readonly bufferedAmount?: number;
  /** `ws` has these; a browser's socket cannot stop reading. */
  pause?(): void;
  resume?(): void;
}

/** Opens a socket: how "@idlc/runtime/node" brings in `ws`. */
export type WebSocketFactory = (url: string, init: { headers?: Record<string, string>; maxPayload: number }) => WebSocketLike;

const OPEN = 1;
/** Frames up to the limit plus this are read and answered -32600; longer ones close the
 * connection with 1009 (docs/wire.md §2). */
export const FRAME_SLACK = 1024 * 1024;

/** Past this many bytes waiting to be written, `send` returns a promise to wait on. */
const HIGH_WATER = 1024 * 1024;

export class WebSocketTransport implements Transport {
  private sink: TransportSink | undefined;
  private drained: Promise<void> | undefined;
  private ended = false;

  constructor(
    private readonly socket: WebSocketLike,
    private readonly maxMessageSize: number,
  ) {
    socket.binaryType = "arraybuffer";
  }

  start(sink: TransportSink): void {
    this.sink = sink;
    this.socket.onmessage = (event) => {
      const incoming = this.frame(event.data);
      if (incoming !== undefined) sink.message(incoming);
    };
    this.socket.onclose = () => this.end();
    this.socket.onerror = (error) => this.end(error);
    if (this.socket.readyState > OPEN) this.end();
  }

  private frame(data: unknown): Incoming | undefined {
    if (typeof data === "string") {
      // An empty frame is ignored (§2).
      if (data.length === 0) return undefined;
      const size = sizeOver(data, this.maxMessageSize);
      if (size === undefined) return { kind: "text", text: data, size: data.length };
      return { kind: "oversized", size, head: data.slice(0, 1024), tail: data.slice(-1024) };
    }
    // A binary frame is read as the UTF-8 text of a message.
    const bytes =
      data instanceof ArrayBuffer
        ? new Uint8Array(data)
        : ArrayBuffer.isView(data)
          ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
          : undefined;
    if (bytes === undefined || bytes.length === 0) return undefined;
    return incomingOf(bytes, this.maxMessageSize);
  }

  private end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.sink?.end(error);
  }

  send(text: string): void | Promise<void> {
    const socket = this.socket;
    if (socket.readyState !== OPEN) throw new ConnectionClosed("the WebSocket is closed");
    socket.send(text);
    if ((socket.bufferedAmount ?? 0) <= HIGH_WATER) return undefined;
    // Too much not yet on the network: the writer waits (docs/wire.md §11). A browser's
    // socket tells no "drained" event, so the amount is looked at again every few ms.
    this.drained ??= new Promise<void>((resolve) => {
      const check = () => {
        if (socket.readyState !== OPEN || (socket.bufferedAmount ?? 0) <= HIGH_WATER) {
          this.drained = undefined;
          resolve();
        } else setTimeout(check, 10);
      };
      setTimeout(check, 10);
    });
    return this.drained;
  }

  pause(): void {
    this.socket.pause?.();
  }

  resume(): void {
    this.socket.resume?.();
  }

  close(): void {
    if (this.socket.readyState <= OPEN) this.socket.close(1000);
  }
}

export interface ConnectWebSocketOptions extends PeerOptions {
  /** Sent with the upgrade request (`Authorization`). A browser cannot send headers: there,
   * giving any is an error (use a cookie or a token in the URL). */
  readonly headers?: Record<string, string>;
  /** Served to the server's calls. */
  readonly root?: object;
  /** How long (ms) to wait for the upgrade. */
  readonly openTimeout?: number;
  /** Opens the socket; the global `WebSocket` by default. */
  readonly createWebSocket?: WebSocketFactory;
}

/** A started peer connected to the WebSocket server at `url` (`ws://` or `wss://`).
 * Rejects when the upgrade fails or takes longer than `openTimeout`. */
export async function connectWebSocket(url: string, options: ConnectWebSocketOptions = {}): Promise<Peer> {
  const maxMessageSize = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
  const create = options.createWebSocket ?? browserWebSocket;
  const init: { headers?: Record<string, string>; maxPayload: number } = { maxPayload: maxMessageSize + FRAME_SLACK };
  if (options.headers !== undefined) init.headers = options.headers;
  const socket = create(url, init);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new ConnectionClosed(`no WebSocket upgrade from ${url} in time`));
    }, options.openTimeout ?? 10_000);
    socket.onopen = () => {
      clearTimeout(timer);
      resolve();
    };
    socket.onerror = (event) => {
      clearTimeout(timer);
      const message = (event as { message?: string } | null)?.message;
      reject(new ConnectionClosed(`cannot connect to ${url}${message ? `: ${message}` : ""}`));
    };
    socket.onclose = (event) => {
      clearTimeout(timer);
      reject(new ConnectionClosed(`the WebSocket closed before it opened (${event.code})`));
    };
  });
  const peer = new Peer(new WebSocketTransport(socket, maxMessageSize), options);
  if (options.root !== undefined) peer.serve(options.root);
  return peer.start();
}

function browserWebSocket(url: string, init: { headers?: Record<string, string> }): WebSocketLike {
  const Constructor = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (Constructor === undefined) {
    throw new TypeError("no global WebSocket: on Node, import connectWebSocket from @idlc/runtime/node");
  }
  if (init.headers !== undefined && Object.keys(init.headers).length > 0) {
    throw new TypeError("a browser's WebSocket cannot send headers");
  }
  return new Constructor(url);
}
