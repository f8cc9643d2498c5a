// The agent of agent.mjs served remotely with the official TypeScript SDK's experimental
// server (`@agentclientprotocol/sdk/experimental/server` and its Node adapter): streamable
// HTTP and WebSocket (the `ws` package) at http://127.0.0.1:PORT/acp.
//
//   node remote_agent.mjs [PORT]
//
// Listens on 127.0.0.1 (port 0 unless given), writes `listening on http://127.0.0.1:PORT/acp`
// to stderr once it accepts connections, and exits on SIGTERM or SIGINT.
import http from "node:http";
import { WebSocketServer } from "ws";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import {
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
} from "@agentclientprotocol/sdk/experimental/node";
import { app } from "./agent.mjs";

const port = Number(process.argv[2] ?? 0);
const acpServer = new AcpServer({ agent: app });
const handle = createNodeHttpHandler(acpServer);
const server = http.createServer((req, res) => {
  if (new URL(req.url, "http://localhost").pathname !== "/acp") {
    res.writeHead(404).end();
    return;
  }
  handle(req, res);
});
const webSockets = new WebSocketServer({ noServer: true });
server.on("upgrade", createNodeWebSocketUpgradeHandler(acpServer, webSockets));

async function stop() {
  await acpServer.close();
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

server.listen(port, "127.0.0.1", () => {
  process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/acp\n`);
});
