// An agent written with the official TypeScript SDK's unstable surface that speaks MCP over
// ACP, for tests/interop/test_unstable.py: it records the client's `mcp/message`
// notifications and, during a prompt, sends `mcp/message` requests to the client ("tools/list"
// and "fail"), then reports the answers and notifications as JSON in an agent_message_chunk
// and sends a child session's state snapshots (idle with and without a stop reason, unknown,
// and a custom state).
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

const notifications = [];
let notified;
const firstNotification = new Promise((resolve) => (notified = resolve));

const STATES = [
  { state: "idle", stopReason: "max_tokens", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
  { state: "idle", stopReason: "error", error: { code: -32000, message: "child failed" } },
  { state: "idle" },
  { state: "idle", stopReason: "_paused_by_user", extra: 1 },
  { state: "unknown" },
  { state: "_sleeping", until: "later" },
];

async function answer(promise) {
  try {
    return await promise;
  } catch (error) {
    return { outerError: { code: error.code, message: error.message } };
  }
}

const app = acp
  .agent({ name: "idlc-interop-ts-mcp-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION }))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "ts-1" }))
  .onNotification(acp.methods.agent.mcp.message, ({ params }) => {
    notifications.push(params);
    notified();
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    await firstNotification;
    const answers = [];
    for (const method of ["tools/list", "fail"]) {
      answers.push(
        await answer(
          client.request(acp.methods.client.mcp.message, {
            serverId: "srv-1",
            requestId: `r-${method}`,
            method,
            params: { n: 1 },
          }),
        ),
      );
    }
    const update = (u) => client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: u });
    await update({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: JSON.stringify({ answers, notifications }) },
    });
    for (const state of STATES) {
      await update({ sessionUpdate: "subagent_update", sessionId: "child-1", state });
    }
    return { stopReason: "end_turn" };
  });

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed;
