// The official TypeScript SDK's client against examples/acp_reference_agent.py, one scenario
// per session capability.
//
//   node reference_client.mjs --cwd DIR --other-dir DIR -- AGENT_CMD [ARGS...]
//   node reference_client.mjs --cwd DIR --connect ws://HOST:PORT/acp
//
// On stdio it runs the capability scenarios one after another on one connection; with
// --connect it opens two connections to the same agent process and runs the ownership
// scenario (what one connection may do with the other's session). It prints one JSON object
// per line on stdout, {"scenario": NAME, ...what was observed}: it reports, the Python tests
// (tests/interop/test_reference_agent.py) judge.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const SCENARIO_TIMEOUT_MS = 60_000;

function parseArgs(argv) {
  const options = { cwd: process.cwd(), otherDir: null, command: [], connect: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      options.command = argv.slice(i + 1);
      break;
    } else if (arg === "--cwd") {
      options.cwd = argv[++i];
    } else if (arg === "--other-dir") {
      options.otherDir = argv[++i];
    } else if (arg === "--connect") {
      options.connect = argv[++i];
    } else {
      throw new Error(`unknown argument ${arg}`);
    }
  }
  if (options.command.length === 0 && !options.connect) throw new Error("usage: reference_client.mjs --cwd DIR -- AGENT_CMD...");
  return options;
}

const options = parseArgs(process.argv.slice(2));

function emit(record) {
  process.stdout.write(JSON.stringify(record) + "\n");
}

function errorRecord(error) {
  if (error instanceof acp.RequestError) return { code: error.code, message: error.message, data: error.data ?? null };
  return { exception: String(error?.stack ?? error) };
}

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), SCENARIO_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// One connection's client: what the agent sends it, and how it answers permission requests.
function makeClient(name) {
  const seen = {
    updates: [],
    permissions: [],
    // "allow", "reject", or "hold": keep the request unanswered until release() is called.
    permissionAnswer: "allow",
    held: [],
    onPermission: null,
  };
  const app = acp
    .client({ name })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      seen.updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      seen.permissions.push(params);
      seen.onPermission?.(params);
      if (seen.permissionAnswer === "hold") {
        return new Promise((resolve) => seen.held.push(resolve));
      }
      const kinds = seen.permissionAnswer === "allow" ? ["allow_once"] : ["reject_once"];
      const option = params.options.find((o) => kinds.includes(o.kind));
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    });
  return { app, seen };
}

function releaseHeld(seen) {
  for (const resolve of seen.held.splice(0)) resolve({ outcome: { outcome: "cancelled" } });
}

// A request's answer or error, with the updates that arrived while it was pending: a
// `session/update` the agent sent before answering is in `updates`, one sent after is not.
async function call(ctx, seen, method, params) {
  seen.updates = [];
  let outcome;
  try {
    outcome = { result: await ctx.request(method, params) };
  } catch (error) {
    outcome = { error: errorRecord(error) };
  }
  return { ...outcome, updates: seen.updates };
}

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").toString("base64");
const WAV = Buffer.from("RIFF....WAVEfmt ").toString("base64");

function text(value) {
  return { type: "text", text: value };
}

async function signIn(ctx) {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "idlc-interop-ts-reference-client", version: "0.0.0" },
  });
  await ctx.request(acp.methods.agent.authenticate, { methodId: init.authMethods[0].id });
  return init;
}

async function runScenarios(scenarios) {
  for (const [name, body] of scenarios) {
    try {
      emit({ scenario: name, ...(await withTimeout(body(), name)) });
    } catch (error) {
      emit({ scenario: name, failed: errorRecord(error) });
    }
  }
}

// The capability scenarios, on one connection (stdio).
async function capabilities(ctx, seen) {
  const m = acp.methods.agent;
  const cwd = options.cwd;
  const newSession = (extra = {}) => ctx.request(m.session.new, { cwd, mcpServers: [], ...extra });
  const prompt = (sessionId, blocks) => call(ctx, seen, m.session.prompt, { sessionId, prompt: blocks });
  let main;

  // Ends a turn with `end(session)` (a session/close or session/delete request, or a
  // session/cancel) while it is held at a permission request the client leaves unanswered:
  // only the agent can end it. Whether the turn's answer came before the ending's is noted
  // when the ending answers.
  const endDuringTurn = async (end) => {
    const session = (await newSession()).sessionId;
    await ctx.request(m.session.setMode, { sessionId: session, modeId: "ask" });
    seen.permissionAnswer = "hold";
    seen.permissions = [];
    // End it as soon as the agent asks permission: the turn is then certainly running.
    const asked = new Promise((resolve) => { seen.onPermission = resolve; });
    seen.updates = [];
    let turnAnswered = false;
    const turn = ctx.request(m.session.prompt, { sessionId: session, prompt: [text("never kept")] })
      .then((result) => ({ result }), (error) => ({ error: errorRecord(error) }))
      .finally(() => { turnAnswered = true; });
    await asked;
    seen.onPermission = null;
    const ended = await end(session);
    const turnAnsweredFirst = turnAnswered;
    const answer = await turn;
    releaseHeld(seen);
    seen.permissionAnswer = "allow";
    const after = await prompt(session, [text("ended now")]);
    return { sessionId: session, ended, turn: answer, turn_answered_first: turnAnsweredFirst, prompt_after: after };
  };

  await runScenarios([
    ["initialize", async () => ({
      response: await ctx.request(m.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      }),
    })],
    ["before_sign_in", async () => ({
      new: await call(ctx, seen, m.session.new, { cwd, mcpServers: [] }),
      list: await call(ctx, seen, m.session.list, {}),
      load: await call(ctx, seen, m.session.load, { sessionId: "ref-none", cwd, mcpServers: [] }),
    })],
    ["authenticate", async () => ({
      unknown_method: await call(ctx, seen, m.authenticate, { methodId: "no-such-method" }),
      sign_in: await call(ctx, seen, m.authenticate, { methodId: "local-user" }),
    })],
    ["session_new", async () => {
      const response = await newSession({ additionalDirectories: [options.otherDir] });
      main = response.sessionId;
      const second = await newSession();
      return { response, second_session_id: second.sessionId, relative_cwd: await call(ctx, seen, m.session.new, { cwd: "relative/dir", mcpServers: [] }) };
    }],
    ["prompt_content", async () => {
      const blocks = [
        text("buy milk"),
        { type: "image", mimeType: "image/png", data: PNG },
        { type: "audio", mimeType: "audio/wav", data: WAV },
        { type: "resource_link", name: "plan.md", uri: `file://${options.otherDir}/plan.md` },
        { type: "resource", resource: { uri: "file:///etc/hosts", text: "127.0.0.1 localhost\n", mimeType: "text/plain" } },
        { type: "resource", resource: { uri: `file://${cwd}/logo.bin`, blob: PNG, mimeType: "application/octet-stream" } },
      ];
      return { sessionId: main, sent: blocks, png_bytes: Buffer.from(PNG, "base64").length, wav_bytes: Buffer.from(WAV, "base64").length, ...(await prompt(main, blocks)) };
    }],
    ["set_mode", async () => {
      const unknown = await call(ctx, seen, m.session.setMode, { sessionId: main, modeId: "no-such-mode" });
      const set = await call(ctx, seen, m.session.setMode, { sessionId: main, modeId: "ask" });
      seen.permissions = [];
      seen.permissionAnswer = "allow";
      const allowed = await prompt(main, [text("ask first")]);
      const allowedPermissions = seen.permissions;
      seen.permissions = [];
      seen.permissionAnswer = "reject";
      const rejected = await prompt(main, [text("not this one")]);
      const back = await call(ctx, seen, m.session.setMode, { sessionId: main, modeId: "auto" });
      return { sessionId: main, unknown, set, allowed, allowed_permissions: allowedPermissions, rejected, rejected_permissions: seen.permissions, back };
    }],
    ["set_config_option", async () => {
      const unknown = await call(ctx, seen, m.session.setConfigOption, { sessionId: main, configId: "no-such-option", value: "x" });
      const bad_value = await call(ctx, seen, m.session.setConfigOption, { sessionId: main, configId: "reply", value: "sing" });
      const set = await call(ctx, seen, m.session.setConfigOption, { sessionId: main, configId: "reply", value: "count" });
      const counted = await prompt(main, [text("one"), text("two")]);
      const back = await call(ctx, seen, m.session.setConfigOption, { sessionId: main, configId: "reply", value: "describe" });
      return { sessionId: main, unknown, bad_value, set, counted, back };
    }],
    ["list", async () => {
      const elsewhere = await ctx.request(m.session.new, { cwd: options.otherDir, mcpServers: [] });
      return {
        sessionId: main,
        elsewhere: elsewhere.sessionId,
        all: await ctx.request(m.session.list, {}),
        in_cwd: await ctx.request(m.session.list, { cwd }),
        in_other_dir: await ctx.request(m.session.list, { cwd: options.otherDir }),
        bad_cursor: await call(ctx, seen, m.session.list, { cursor: "not-a-cursor" }),
      };
    }],
    ["cancel", async () => {
      const session = (await newSession()).sessionId;
      await ctx.request(m.session.setMode, { sessionId: session, modeId: "ask" });
      seen.permissionAnswer = "hold";
      seen.permissions = [];
      // Cancel once the agent asks permission, and answer that request `cancelled`, as ACP
      // wants of a client that cancels.
      const asked = new Promise((resolve) => { seen.onPermission = resolve; });
      seen.updates = [];
      const turn = ctx.request(m.session.prompt, { sessionId: session, prompt: [text("cancel me")] });
      await asked;
      seen.onPermission = null;
      await ctx.notify(m.session.cancel, { sessionId: session });
      releaseHeld(seen);
      const answer = await turn.then((result) => ({ result }), (error) => ({ error: errorRecord(error) }));
      seen.permissionAnswer = "allow";
      const after = await prompt(session, [text("after cancel")]);
      return { sessionId: session, turn: answer, prompt_after_cancel: after };
    }],
    ["cancel_held_turn", async () => endDuringTurn(async (sessionId) => {
      await ctx.notify(m.session.cancel, { sessionId });
      return {};
    })],
    ["close_during_turn", async () => ({
      ...(await endDuringTurn((sessionId) => call(ctx, seen, m.session.close, { sessionId }))),
      listed: await ctx.request(m.session.list, {}),
    })],
    ["delete_during_turn", async () => ({
      ...(await endDuringTurn((sessionId) => call(ctx, seen, m.session.delete, { sessionId }))),
      listed: await ctx.request(m.session.list, {}),
    })],
    ["load", async () => {
      await ctx.request(m.session.close, { sessionId: main });
      const wrong_cwd = await call(ctx, seen, m.session.load, { sessionId: main, cwd: options.otherDir, mcpServers: [] });
      const load = await call(ctx, seen, m.session.load, { sessionId: main, cwd, mcpServers: [], additionalDirectories: [] });
      const after = await prompt(main, [text("after load")]);
      const listed = await ctx.request(m.session.list, { cwd });
      return { sessionId: main, wrong_cwd, load, prompt_after_load: after, listed };
    }],
    ["resume", async () => {
      await ctx.request(m.session.close, { sessionId: main });
      const resume = await call(ctx, seen, m.session.resume, { sessionId: main, cwd, additionalDirectories: [options.otherDir] });
      const after = await prompt(main, [{ type: "resource_link", name: "plan.md", uri: `file://${options.otherDir}/plan.md` }]);
      return { sessionId: main, resume, prompt_after_resume: after };
    }],
    ["delete", async () => {
      const session = (await newSession()).sessionId;
      const del = await call(ctx, seen, m.session.delete, { sessionId: session });
      const listed = await ctx.request(m.session.list, {});
      const after = await prompt(session, [text("deleted")]);
      const load = await call(ctx, seen, m.session.load, { sessionId: session, cwd, mcpServers: [] });
      return { sessionId: session, delete: del, listed, prompt_after_delete: after, load_after_delete: load };
    }],
    ["logout", async () => {
      const logout = await call(ctx, seen, m.logout, {});
      const signed_out = {
        new: await call(ctx, seen, m.session.new, { cwd, mcpServers: [] }),
        prompt: await prompt(main, [text("signed out")]),
        list: await call(ctx, seen, m.session.list, {}),
      };
      await ctx.request(m.authenticate, { methodId: "local-user" });
      const signed_in_again = await prompt(main, [text("back again")]);
      return { sessionId: main, logout, signed_out, signed_in_again };
    }],
  ]);
}

// Two connections to one agent process: B names A's session in every session method.
async function ownership(a, b) {
  const m = acp.methods.agent;
  const cwd = options.cwd;
  await runScenarios([
    ["two_connections", async () => {
      await signIn(a.ctx);
      await signIn(b.ctx);
      const mine = (await a.ctx.request(m.session.new, { cwd, mcpServers: [] })).sessionId;
      const theirs = (await b.ctx.request(m.session.new, { cwd, mcpServers: [] })).sessionId;
      const noted = await call(a.ctx, a.seen, m.session.prompt, { sessionId: mine, prompt: [text("A's secret")] });
      const other = {
        list: await call(b.ctx, b.seen, m.session.list, {}),
        load: await call(b.ctx, b.seen, m.session.load, { sessionId: mine, cwd, mcpServers: [] }),
        resume: await call(b.ctx, b.seen, m.session.resume, { sessionId: mine, cwd }),
        prompt: await call(b.ctx, b.seen, m.session.prompt, { sessionId: mine, prompt: [text("B was here")] }),
        set_mode: await call(b.ctx, b.seen, m.session.setMode, { sessionId: mine, modeId: "ask" }),
        set_config_option: await call(b.ctx, b.seen, m.session.setConfigOption, { sessionId: mine, configId: "reply", value: "count" }),
        close: await call(b.ctx, b.seen, m.session.close, { sessionId: mine }),
        delete: await call(b.ctx, b.seen, m.session.delete, { sessionId: mine }),
      };
      await b.ctx.notify(m.session.cancel, { sessionId: mine });
      const owner = {
        list: await a.ctx.request(m.session.list, {}),
        prompt: await call(a.ctx, a.seen, m.session.prompt, { sessionId: mine, prompt: [text("still mine")] }),
        load: await call(a.ctx, a.seen, m.session.load, { sessionId: mine, cwd, mcpServers: [] }),
      };
      return { mine, theirs, noted, other, owner };
    }],
  ]);
}

async function openStdio() {
  const [command, ...args] = options.command;
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const finish = () => {
    child.stdin.end();
    return withTimeout(exited, "agent exit").catch(() => {
      child.kill("SIGKILL");
      return { code: null, signal: "SIGKILL" };
    });
  };
  return { stream, finish };
}

async function openWebSocket() {
  const { createWebSocketStream } = await import("@agentclientprotocol/sdk/experimental/ws-client");
  const { WebSocket } = await import("ws");
  return createWebSocketStream(options.connect, { WebSocket });
}

let exitCode = 0;
try {
  if (options.connect) {
    const a = makeClient("connection-a");
    const b = makeClient("connection-b");
    const streamA = await openWebSocket();
    const streamB = await openWebSocket();
    await a.app.connectWith(streamA, (ctxA) =>
      b.app.connectWith(streamB, (ctxB) => ownership({ ctx: ctxA, seen: a.seen }, { ctx: ctxB, seen: b.seen })),
    );
    emit({ scenario: "done" });
  } else {
    const { app, seen } = makeClient("idlc-interop-ts-reference-client");
    const { stream, finish } = await openStdio();
    await app.connectWith(stream, (ctx) => capabilities(ctx, seen));
    emit({ scenario: "done", agent_exit: await finish() });
  }
} catch (error) {
  emit({ scenario: "connection", failed: errorRecord(error) });
  exitCode = 1;
}
process.exit(exitCode);
