// WebSocket on Node through the `ws` package: a client (the root entry's connectWebSocket
// with `ws` injected, so the root entry never imports it and browser bundles stay free of
// it) and a server.

import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { DEFAULT_MAX_MESSAGE_SIZE, Peer, type PeerOptions } from "../peer.js";
import {
  FRAME_SLACK,
  WebSocketTransport,
  connectWebSocket as connectWith,
  type ConnectWebSocketOptions,
  type WebSocketLike,
} from "../websocket.js";
import { refusal, servedHosts, type AdmissionRules } from "./admission.js";
import { nodeOptions } from "./process.js";

/** connectWebSocket over `ws`: `headers` are sent with the upgrade. */
export function connectWebSocket(url: string, options: ConnectWebSocketOptions = {}): Promise<Peer> {
  return connectWith(url, {
    ...nodeOptions(options),
    createWebSocket:
      options.createWebSocket ??
      ((address, init) =>
        new WebSocket(address, {
          maxPayload: init.maxPayload,
          ...(init.headers === undefined ? {} : { headers: init.headers }),
        }) as unknown as WebSocketLike),
  });
}

export interface ServeWebSocketOptions extends PeerOptions {
  /** 127.0.0.1 unless told otherwise, as the Python runtime (docs/web.md). */
  readonly host?: string;
  /** 0: any free port (read it from `url` or `port`). */
  readonly port?: number;
  /** Browser origins admitted; a request with another `Origin` is refused 403, one with no
   * `Origin` (a program, not a browser) passes. None by default; "*" admits every one. */
  readonly allowedOrigins?: Iterable<string>;
  /** The Host names served (`"*"`: any). By default a loopback server answers to the
   * loopback names only, against DNS rebinding (docs/web.md); others are refused 421. */
  readonly allowedHosts?: Iterable<string>;
  /** Required as `Authorization: Bearer <token>`: none is refused 401, a wrong one 403. */
  readonly bearerToken?: string;
  /** Connections open at once; past it, upgrades are refused 503 with Retry-After. */
  readonly maxConnections?: number;
}

export interface WebSocketServerHandle {
  readonly url: string;
  readonly port: number;
  /** The peers of the connections open now. */
  readonly peers: ReadonlySet<Peer>;
  /** Stops accepting, closes every connection and waits for its peer. */
  close(): Promise<void>;
}

/** Serves WebSocket connections at ws://host:port/; each connection gets a peer of its own,
 * whose root `rootFactory(peer)` makes (it may register keyed objects on it). */
export async function serveWebSocket(
  rootFactory: (peer: Peer) => object,
  options: ServeWebSocketOptions = {},
): Promise<WebSocketServerHandle> {
  const host = options.host ?? "127.0.0.1";
  const maxMessageSize = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
  const token = options.bearerToken?.trim();
  if (token !== undefined && token.length === 0) throw new TypeError("an empty bearer token would admit everyone");
  const rules: AdmissionRules = {
    hosts: servedHosts(options.allowedHosts, host),
    origins: new Set(options.allowedOrigins ?? []),
    token,
  };
  const peers = new Set<Peer>();
  const server = new WebSocketServer({
    host,
    port: options.port ?? 0,
    // Frames a little over the limit are read and answered -32600; longer ones close the
    // connection with 1009 (docs/wire.md §2).
    maxPayload: maxMessageSize + FRAME_SLACK,
    perMessageDeflate: false,
    verifyClient: (
      info: { req: IncomingMessage },
      done: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void,
    ) => {
      const refused = refusal(info.req, rules);
      if (refused !== undefined) done(false, refused.status, refused.reason, refused.headers);
      else if (options.maxConnections !== undefined && peers.size >= options.maxConnections) {
        done(false, 503, "too many connections", { "Retry-After": "1" });
      } else done(true);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  server.on("connection", (socket) => {
    const peer = new Peer(new WebSocketTransport(socket as unknown as WebSocketLike, maxMessageSize), nodeOptions(options));
    peers.add(peer);
    void peer.closed.then(() => peers.delete(peer));
    try {
      peer.serve(rootFactory(peer));
    } catch (error) {
      (options.logger ?? console).error("the root factory failed", error);
      socket.close(1011);
      return;
    }
    peer.start();
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `ws://${shownHost}:${port}/`,
    port,
    peers,
    async close() {
      // Connections first: the server's own close waits for them to end.
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...peers].map((peer) => peer.close()));
      for (const client of server.clients) client.terminate();
      await closing;
    },
  };
}
