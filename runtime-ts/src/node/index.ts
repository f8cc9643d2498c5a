// @idlc/runtime/node: what needs Node — child processes, stdio, the `ws` package for
// WebSocket — on top of the browser-safe root entry, which it re-exports.
export * from "../index.js";
export { StreamTransport, type StreamTransportOptions } from "./stream.js";
export { asyncTracker } from "./tracker.js";
export { spawn, serveStdio, nodeOptions, type SpawnPeerOptions } from "./process.js";
export { connectWebSocket, serveWebSocket, type ServeWebSocketOptions, type WebSocketServerHandle } from "./websocket.js";
