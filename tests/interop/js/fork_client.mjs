// A client written with the official TypeScript SDK that forks a session (the UNSTABLE
// session/fork), for tests/interop/test_unstable.py:
//
//   node fork_client.mjs -- AGENT_CMD [ARGS...]
//
// initialize, session/new, session/fork and session/archive (which the agent does not
// implement); prints one JSON object: {"created", "forked", "archive"} (an answer, or
// {"error": {code, message}}).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

const command = process.argv.slice(process.argv.indexOf("--") + 1);
const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

async function answer(promise) {
  try {
    return await promise;
  } catch (error) {
    return { error: { code: error.code, message: error.message } };
  }
}

const app = acp.client({ name: "idlc-interop-ts-fork-client" });
await app.connectWith(stream, async (ctx) => {
  await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const created = await ctx.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] });
  const forked = await answer(
    ctx.request(acp.methods.agent.session.fork, { sessionId: created.sessionId, cwd: "/tmp", mcpServers: [] }),
  );
  const archive = await answer(ctx.request(acp.methods.agent.session.archive, { sessionId: created.sessionId }));
  process.stdout.write(JSON.stringify({ created, forked, archive }) + "\n");
});
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
