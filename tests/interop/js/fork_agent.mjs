// An agent written with the official TypeScript SDK's unstable surface, for
// tests/interop/test_unstable.py: initialize, session/new, and the UNSTABLE session/fork
// (a new session in the given cwd, `_meta.forkedFrom` naming the parent); everything else
// is the SDK's default answer (-32601).
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

const sessions = new Map(); // sessionId -> cwd

const app = acp
  .agent({ name: "idlc-interop-ts-fork-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { sessionCapabilities: { fork: {} } },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `ts-${randomUUID()}`;
    sessions.set(sessionId, params.cwd);
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.fork, ({ params }) => {
    if (!sessions.has(params.sessionId)) {
      throw acp.RequestError.invalidParams(undefined, `unknown session ${params.sessionId}`);
    }
    const sessionId = `fork-${randomUUID()}`;
    sessions.set(sessionId, params.cwd);
    return { sessionId, _meta: { forkedFrom: params.sessionId } };
  })
  .onRequest(acp.methods.agent.session.prompt, () => ({ stopReason: "end_turn" }));

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed;
