// An ACP v2 (draft) agent of the official TypeScript SDK's experimental/v2 API that only
// initializes and opens sessions, for comparing initialize gates over raw lines:
//
//   node v2_gate_agent.mjs [--direct]
//
// Served behind AgentProtocolRouter (v2 only), or with --direct on its own connection. An
// initialize whose params carry `_meta: {"hold": true}` is answered only once the process
// gets SIGUSR2, so a test can send a second initialize while the first is in progress.
// The answer (the same as the idlc one's) has in `_meta.protocolVersion` the version the
// handler was asked for.
// tests/interop/test_v2_initialize_gate.py sends the same lines to it and to
// tests/interop/idlc_v2_gate_agent.py.
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";

const held = [];
process.on("SIGUSR2", () => {
  for (const release of held.splice(0)) release();
});

const app = acp
  .agent()
  .onRequest("initialize", async ({ params }) => {
    if (params._meta?.hold === true) {
      await new Promise((resolve) => held.push(resolve));
    }
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      info: { name: "gate-agent", version: "1" },
      capabilities: {},
      _meta: { protocolVersion: params.protocolVersion },
    };
  })
  .onRequest("session/new", () => ({ sessionId: "s" }));

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const connection = process.argv.includes("--direct")
  ? app.connect(stream)
  : acp.agentProtocolRouter().withV2(app).connect(stream);
await connection.closed;
