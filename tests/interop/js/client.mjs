// An ACP client written with the official TypeScript SDK (@agentclientprotocol/sdk).
//
//   node client.mjs --cwd DIR [--no-fs] [--news] -- AGENT_CMD [ARGS...]
//   node client.mjs --cwd DIR [--no-fs] [--news] --connect URL
//
// Spawns the agent (or, with --connect, reaches a remote one with the SDK's experimental
// clients: ws-client for ws:// URLs, with the `ws` package as Node 20's WebSocket, and
// http-client for http:// URLs), runs the interop scenarios one after another and prints one JSON object
// per line on stdout: {"scenario": NAME, ...what was observed}. It reports, it does not judge:
// the Python tests assert on these records (tests/interop/scenarios.py describes them and the
// official Python client prints the same records). With --news it also advertises the
// `session.notices` and `session.compaction` client capabilities and runs the news scenario:
// a prompt of the one text block NEWS, whose notice and compaction updates it reports.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const SCENARIO_TIMEOUT_MS = 60_000;
const CANCEL_BLOCKS = 30;

function parseArgs(argv) {
  const options = { cwd: process.cwd(), fs: true, news: false, command: [], connect: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      options.command = argv.slice(i + 1);
      break;
    } else if (arg === "--cwd") {
      options.cwd = argv[++i];
    } else if (arg === "--connect") {
      options.connect = argv[++i];
    } else if (arg === "--no-fs") {
      options.fs = false;
    } else if (arg === "--news") {
      options.news = true;
    } else {
      throw new Error(`unknown argument ${arg}`);
    }
  }
  if (options.command.length === 0 && !options.connect) throw new Error("usage: client.mjs --cwd DIR [--no-fs] -- AGENT_CMD...");
  return options;
}

function emit(record) {
  process.stdout.write(JSON.stringify(record) + "\n");
}

function sha256(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

// The 2 MiB prompt: a 32-byte unit with multi-byte UTF-8 characters, 65,536 times.
function largeText() {
  return "0123456789abcdef-äöü-€-✓\n".repeat(65536);
}

function errorRecord(error) {
  if (error instanceof acp.RequestError) return { code: error.code, message: error.message };
  return { exception: String(error?.stack ?? error) };
}

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), SCENARIO_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const options = parseArgs(process.argv.slice(2));
const started = performance.now();

// What the agent sends us, gathered per prompt turn.
const turn = {
  updates: [],
  permissions: [],
  reads: [],
  permissionAnswer: "allow",
  cancelled: false,
  onUpdate: null,
};

function resetTurn(permissionAnswer) {
  turn.updates = [];
  turn.permissions = [];
  turn.reads = [];
  turn.permissionAnswer = permissionAnswer;
  turn.cancelled = false;
  turn.onUpdate = null;
}

function pickOption(optionsOffered, kinds) {
  return optionsOffered.find((option) => kinds.includes(option.kind));
}

const app = acp
  .client({ name: "idlc-interop-ts-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    turn.updates.push({ t_ms: performance.now() - started, params });
    turn.onUpdate?.(params);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    turn.permissions.push(params);
    if (turn.cancelled) return { outcome: { outcome: "cancelled" } };
    const kinds = turn.permissionAnswer === "allow" ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
    const option = pickOption(params.options, kinds);
    if (!option) return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
    turn.reads.push(params);
    if (!options.fs) {
      throw new acp.RequestError(-32601, "fs/read_text_file was not offered by this client");
    }
    let content = await readFile(params.path, "utf8");
    if (params.line != null || params.limit != null) {
      const lines = content.split("\n");
      const from = Math.max((params.line ?? 1) - 1, 0);
      content = lines.slice(from, params.limit != null ? from + params.limit : undefined).join("\n");
    }
    return { content };
  });

function turnReport(stopReason) {
  return {
    stopReason,
    updates: turn.updates,
    permissions: turn.permissions,
    reads: turn.reads,
  };
}

async function prompt(ctx, sessionId, blocks, permissionAnswer, extra = {}) {
  resetTurn(permissionAnswer);
  const response = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: blocks.map((text) => ({ type: "text", text })),
    ...extra,
  });
  return response;
}

async function expectError(ctx, method, params) {
  try {
    const result = await ctx.request(method, params);
    return { result };
  } catch (error) {
    return { error: errorRecord(error) };
  }
}

async function run(ctx) {
  const scenarios = [];
  let sessionId;

  scenarios.push(["initialize", async () => {
    const response = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: options.fs, writeTextFile: false },
        terminal: false,
        ...(options.news ? { session: { notices: {}, compaction: {} } } : {}),
      },
      clientInfo: { name: "idlc-interop-ts-client", version: "0.0.0" },
    });
    return { response };
  }]);

  scenarios.push(["session_new", async () => {
    const response = await ctx.request(acp.methods.agent.session.new, { cwd: options.cwd, mcpServers: [] });
    sessionId = response.sessionId;
    return { response, cwd: options.cwd };
  }]);

  scenarios.push(["prompt", async () => {
    const blocks = ["Hello", "from the official TypeScript SDK", "third block"];
    const response = await prompt(ctx, sessionId, blocks, "allow");
    return { sent: blocks, sessionId, ...turnReport(response.stopReason) };
  }]);

  scenarios.push(["prompt_rejected", async () => {
    const blocks = ["permission will be rejected"];
    const response = await prompt(ctx, sessionId, blocks, "reject");
    return { sent: blocks, sessionId, ...turnReport(response.stopReason) };
  }]);

  scenarios.push(["cancel", async () => {
    const blocks = Array.from({ length: CANCEL_BLOCKS }, (_, i) => `block ${i}`);
    resetTurn("allow");
    // Cancel as soon as the first chunk of this turn arrives: no timing guesses.
    turn.onUpdate = (params) => {
      if (!turn.cancelled && params.update.sessionUpdate === "agent_message_chunk") {
        turn.cancelled = true;
        void ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      }
    };
    const response = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: blocks.map((text) => ({ type: "text", text })),
    });
    return { sent_blocks: blocks.length, sessionId, cancel_sent: turn.cancelled, ...turnReport(response.stopReason) };
  }]);

  scenarios.push(["after_cancel", async () => {
    const blocks = ["still alive after cancel"];
    const response = await prompt(ctx, sessionId, blocks, "allow");
    return { sent: blocks, sessionId, ...turnReport(response.stopReason) };
  }]);

  scenarios.push(["unsupported_method", async () => {
    return await expectError(ctx, acp.methods.agent.session.load, {
      sessionId,
      cwd: options.cwd,
      mcpServers: [],
    });
  }]);

  scenarios.push(["unknown_ext_method", async () => {
    return await expectError(ctx, "_idlc.interop/no_such_method", { hello: "world" });
  }]);

  scenarios.push(["unknown_method", async () => {
    return await expectError(ctx, "idlc/no_such_method", {});
  }]);

  scenarios.push(["large_prompt", async () => {
    const text = largeText();
    const response = await prompt(ctx, sessionId, [text], "allow");
    const report = turnReport(response.stopReason);
    const chunks = report.updates
      .filter((u) => u.params.update.sessionUpdate === "agent_message_chunk")
      .map((u) => ({ sessionId: u.params.sessionId, length: u.params.update.content.text?.length, sha256: sha256(u.params.update.content.text ?? "") }));
    // The chunks themselves are summarised (length + hash) to keep the record small.
    report.updates = report.updates.filter((u) => u.params.update.sessionUpdate !== "agent_message_chunk");
    return {
      sent_bytes: Buffer.byteLength(text, "utf8"),
      sent_length: text.length,
      sent_sha256: sha256(text),
      sessionId,
      chunks,
      ...report,
    };
  }]);

  scenarios.push(["meta_shadow", async () => {
    const shadow = "shadow-session-id";
    const created = await ctx.request(acp.methods.agent.session.new, {
      cwd: options.cwd,
      mcpServers: [],
      _meta: { cwd: "/nonexistent/shadow", sessionId: shadow },
    });
    const blocks = ["meta must not shadow"];
    const response = await prompt(ctx, created.sessionId, blocks, "allow", {
      _meta: { sessionId: shadow, session_id: shadow, prompt: [] },
    });
    return { sent: blocks, shadow, new_session: created, sessionId: created.sessionId, ...turnReport(response.stopReason) };
  }]);

  if (options.news) {
    scenarios.push(["news", async () => {
      const response = await prompt(ctx, sessionId, ["NEWS"], "allow");
      return { sent: ["NEWS"], sessionId, ...turnReport(response.stopReason) };
    }]);
  }

  for (const [name, body] of scenarios) {
    try {
      const record = await withTimeout(body(), name);
      emit({ scenario: name, ...record });
    } catch (error) {
      emit({ scenario: name, failed: errorRecord(error) });
      if (name === "initialize" || name === "session_new") break;
    }
  }
}

async function openStream() {
  if (options.connect) {
    if (options.connect.startsWith("ws")) {
      const { createWebSocketStream } = await import("@agentclientprotocol/sdk/experimental/ws-client");
      const { WebSocket } = await import("ws");
      return { stream: createWebSocketStream(options.connect, { WebSocket }), finish: async () => null };
    }
    const { createHttpStream } = await import("@agentclientprotocol/sdk/experimental/http-client");
    return { stream: createHttpStream(options.connect), finish: async () => null };
  }
  const [command, ...args] = options.command;
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const childExited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const finish = () => {
    child.stdin.end();
    return withTimeout(childExited, "agent exit").catch(() => {
      child.kill("SIGKILL");
      return { code: null, signal: "SIGKILL" };
    });
  };
  return { stream, finish };
}

const { stream, finish } = await openStream();
let exitCode = 0;
try {
  await app.connectWith(stream, run);
} catch (error) {
  emit({ scenario: "connection", failed: errorRecord(error) });
  exitCode = 1;
}
const exit = await finish();
emit({ scenario: "done", agent_exit: exit });
process.exit(exitCode);
