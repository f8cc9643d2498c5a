// A client written with the official TypeScript SDK's unstable surface that exchanges
// `mcp/message` with an agent (MCP over ACP) and records the subagent state updates it
// receives, for tests/interop/test_unstable.py:
//
//   node mcp_client.mjs -- AGENT_CMD [ARGS...]
//
// initialize, session/new, an `mcp/message` notification to the agent, then a prompt during
// which the agent sends `mcp/message` requests (answered here: an MCP result, or an MCP
// error for the method "fail") and session/update notifications. Prints one JSON object:
// {"prompt", "requests", "updates"}.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

const command = process.argv.slice(process.argv.indexOf("--") + 1);
const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const requests = [];
const updates = [];
const app = acp
  .client({ name: "idlc-interop-ts-mcp-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params.update);
  })
  .onRequest(acp.methods.client.mcp.message, ({ params }) => {
    requests.push(params);
    if (params.method === "fail") {
      // Members McpError does not declare: kept by the SDK's looseObject, and by idlc's
      // open record (docs/acp-gaps.md G15).
      return {
        error: { code: -32602, message: "no such tool", data: null, retryAfterMs: 50, hint: { tool: "echo" } },
      };
    }
    return { result: { tools: [{ name: "echo" }], echoed: params.params ?? null } };
  });

await app.connectWith(stream, async (ctx) => {
  await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const created = await ctx.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] });
  await ctx.notify(acp.methods.agent.mcp.message, {
    serverId: "srv-1",
    requestId: "mcp-7",
    method: "notifications/progress",
    params: { progress: 1 },
  });
  const prompt = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: created.sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
  process.stdout.write(JSON.stringify({ prompt, requests, updates }) + "\n");
});
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
