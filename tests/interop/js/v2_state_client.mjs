// An ACP v2 (draft) client of the official TypeScript SDK's experimental/v2 API that reports
// what its ActiveSession keeps from a session's updates, session after session:
//
//   node v2_state_client.mjs        (its stdin and stdout are the connection to the agent)
//
// It initializes, then until the agent stops answering: opens a session, sends one prompt
// and reads the session with readTextUntilIdle(). Then it writes one JSON line to stderr:
// {"report": {sessionId, text, configOptions, background, toolCalls, terminals}}, where
// `toolCalls` and `terminals` map each id the agent named in the session/new answer's
// `_meta` ({"toolCallIds": [...], "terminalIds": [...]}) to canCancelToolCall /
// canCancelTerminal; undefined is written as null. tests/interop/test_v2_state_against_ts.py
// sends the same updates to it and to idlc_acp's ClientV2 (hypothesis) and compares.
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";

const TIMEOUT_MS = 30_000;

function report(record) {
  process.stderr.write(JSON.stringify({ report: record }) + "\n");
}

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const app = acp.client().onRequest("session/request_permission", () => ({
  outcome: { outcome: "cancelled" },
}));

await app.connectWith(stream, async (ctx) => {
  await ctx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "ts-v2-state-client", version: "2.4.0" },
    capabilities: {},
  });
  for (;;) {
    let session;
    try {
      session = await ctx.buildSession("/").start();
    } catch {
      return; // the agent is done: it answered session/new with an error
    }
    const ids = session.meta ?? {};
    // The prompt tells the agent the session is routed: its updates come after the answer.
    await session.prompt("go");
    const text = await session.readTextUntilIdle(AbortSignal.timeout(TIMEOUT_MS));
    report({
      sessionId: session.sessionId,
      text,
      configOptions: session.configOptions ?? null,
      background: session.background ?? null,
      toolCalls: Object.fromEntries(
        (ids.toolCallIds ?? []).map((id) => [id, session.canCancelToolCall(id)]),
      ),
      terminals: Object.fromEntries(
        (ids.terminalIds ?? []).map((id) => [id, session.canCancelTerminal(id)]),
      ),
    });
    session.dispose();
  }
});
