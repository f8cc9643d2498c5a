// An ACP v2 (draft) client written with the official TypeScript SDK's experimental/v2 API.
//
//   node v2_client.mjs --cwd DIR -- AGENT_CMD [ARGS...]
//   node v2_client.mjs --cwd DIR --connect URL
//
// Spawns the agent (or, with --connect, reaches a remote one with the SDK's experimental
// clients: ws-client for ws:// URLs, with the `ws` package as Node 20's WebSocket, and
// http-client for http:// URLs), initializes at protocol version 2, and runs two turns: an echo of two
// text blocks (the permission asked is allowed) and a long one cancelled after its first
// chunk. Prints one JSON object per line: {"scenario": NAME, ...what was observed}. It
// reports, the Python tests judge (tests/interop/test_protocol_router.py).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";

const TIMEOUT_MS = 30_000;

function parseArgs(argv) {
  const options = { cwd: process.cwd(), command: [], connect: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--") {
      options.command = argv.slice(i + 1);
      break;
    } else if (argv[i] === "--cwd") {
      options.cwd = argv[++i];
    } else if (argv[i] === "--connect") {
      options.connect = argv[++i];
    } else {
      throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  if (options.command.length === 0 && !options.connect) {
    throw new Error("usage: v2_client.mjs --cwd DIR (--connect URL | -- AGENT_CMD...)");
  }
  return options;
}

function emit(record) {
  process.stdout.write(JSON.stringify(record) + "\n");
}

function errorRecord(error) {
  return { code: error?.code ?? null, message: String(error?.message ?? error) };
}

async function untilIdle(session) {
  const updates = [];
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  for (;;) {
    const message = await session.nextUpdate(signal);
    updates.push(message.update);
    if (message.kind === "stop") return { updates, stopReason: message.stopReason };
  }
}

async function open(options) {
  if (options.connect) {
    if (options.connect.startsWith("ws")) {
      const { createWebSocketStream } = await import("@agentclientprotocol/sdk/experimental/ws-client");
      const { WebSocket } = await import("ws");
      return { stream: createWebSocketStream(options.connect, { WebSocket }), finish: () => {} };
    }
    const { createHttpStream } = await import("@agentclientprotocol/sdk/experimental/http-client");
    return { stream: createHttpStream(options.connect), finish: () => {} };
  }
  const child = spawn(options.command[0], options.command.slice(1), {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { stream, finish: () => child.stdin.end() };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const { stream, finish } = await open(options);
  const permissions = [];
  const app = acp.client().onRequest("session/request_permission", async ({ params }) => {
    permissions.push(params);
    const allow = params.options.find((option) => option.kind === "allow_once") ?? params.options[0];
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  });
  try {
    await app.connectWith(stream, async (ctx) => {
      const initialized = await ctx.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        info: { name: "ts-v2-client", version: "2.4.0" },
        capabilities: {},
      });
      emit({ scenario: "initialize", response: initialized });

      const session = await ctx.buildSession(options.cwd).start();
      const ack = await session.prompt([
        { type: "text", text: "Hello" },
        { type: "text", text: "world" },
      ]);
      const echo = await untilIdle(session);
      emit({ scenario: "echo", sessionId: session.sessionId, ack, ...echo, permissions });

      const long = [];
      for (let i = 0; i < 30; i++) long.push({ type: "text", text: `block ${i}` });
      const cancelAck = await session.prompt(long);
      const seen = [];
      const signal = AbortSignal.timeout(TIMEOUT_MS);
      for (;;) {
        const message = await session.nextUpdate(signal);
        seen.push(message.update);
        if (message.update.sessionUpdate === "agent_message_chunk") break;
      }
      await ctx.notify("session/cancel", { sessionId: session.sessionId });
      const rest = await untilIdle(session);
      emit({
        scenario: "cancel",
        ack: cancelAck,
        updates: [...seen, ...rest.updates],
        stopReason: rest.stopReason,
      });
    });
  } catch (error) {
    emit({ scenario: "error", error: errorRecord(error) });
    process.exitCode = 1;
  } finally {
    finish();
  }
}

await main();
