// An ACP v2 (draft) agent written with the official TypeScript SDK's experimental/v2 API,
// served on stdio behind its AgentProtocolRouter (v2 only):
//
//   node v2_router_agent.mjs
//
// session/prompt answers the user message's messageId at once, echoes it as a user_message
// update, reports running, sends every text block back as an agent_message_chunk of one
// agent message, and ends the turn with an idle state_update (end_turn, or cancelled after
// session/cancel). tests/interop/test_protocol_router.py drives it with our client;
// v2_remote_agent.mjs imports `app` to serve it over the web.
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";

const turns = new Map(); // sessionId -> { cancelled }

export const app = acp
  .agent()
  .onRequest("initialize", () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "ts-v2-agent", version: "2.4.0" },
    capabilities: { session: {} },
  }))
  .onRequest("session/new", () => ({ sessionId: `ts-${randomUUID()}` }))
  .onRequest("session/prompt", ({ params, client }) => {
    const messageId = randomUUID();
    const agentMessageId = randomUUID();
    const turn = { cancelled: false };
    turns.set(params.sessionId, turn);
    const send = (update) => client.notify("session/update", { sessionId: params.sessionId, update });
    setTimeout(async () => {
      await send({ sessionUpdate: "user_message", messageId, content: params.prompt });
      await send({ sessionUpdate: "state_update", state: "running" });
      for (const block of params.prompt) {
        if (turn.cancelled) break;
        if (block.type === "text") {
          await send({ sessionUpdate: "agent_message_chunk", messageId: agentMessageId, content: block });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await send({
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: turn.cancelled ? "cancelled" : "end_turn",
      });
    }, 0);
    return { messageId };
  })
  .onNotification("session/cancel", ({ params }) => {
    const turn = turns.get(params.sessionId);
    if (turn) turn.cancelled = true;
  });

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  const connection = acp.agentProtocolRouter().withV2(app).connect(stream);
  await connection.closed;
}
