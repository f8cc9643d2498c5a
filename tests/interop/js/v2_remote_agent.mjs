// The official TypeScript SDK's experimental server serving v1 and the v2 draft on every
// connection: a fresh AgentProtocolRouter per connection, with agent.mjs's v1 agent and
// v2_router_agent.mjs's v2 agent, over streamable HTTP and WebSocket (the `ws` package) at
// http://127.0.0.1:PORT/acp.
//
//   node v2_remote_agent.mjs [PORT]
//
// Listens on 127.0.0.1 (port 0 unless given), writes `listening on http://127.0.0.1:PORT/acp`
// to stderr once it accepts connections, and exits on SIGTERM or SIGINT.
// tests/interop/test_v2_remote.py drives it with our client.
import http from "node:http";
import { WebSocketServer } from "ws";
import { agentProtocolRouter } from "@agentclientprotocol/sdk/experimental/v2";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import {
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
} from "@agentclientprotocol/sdk/experimental/node";
import { app as v1 } from "./agent.mjs";
import { app as v2 } from "./v2_router_agent.mjs";

const port = Number(process.argv[2] ?? 0);
const acpServer = new AcpServer({ createAgent: () => agentProtocolRouter().withV1(v1).withV2(v2) });
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
