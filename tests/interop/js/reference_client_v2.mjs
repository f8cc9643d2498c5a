// The official TypeScript SDK's experimental/v2 client against examples/acp_reference_agent.py
// at protocol version 2, one scenario per v2 session capability.
//
//   node reference_client_v2.mjs --cwd DIR --other-dir DIR -- AGENT_CMD [ARGS...]
//   node reference_client_v2.mjs --cwd DIR --connect ws://HOST:PORT/acp
//
// On stdio it runs the capability scenarios one after another on one connection; with
// --connect it opens two WebSocket connections to the same agent process and runs the
// ownership scenario (what one connection may do with the other's session). It prints one
// JSON object per line on stdout, {"scenario": NAME, ...what was observed}: it reports, the
// Python tests (tests/interop/test_reference_agent_v2.py) judge. The SDK parses what it
// receives with its own v2 schemas; the tests check every stdio message both ways against the
// vendored one.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";

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
  if (options.command.length === 0 && !options.connect) {
    throw new Error("usage: reference_client_v2.mjs --cwd DIR (--other-dir DIR -- AGENT_CMD... | --connect ws://HOST:PORT/acp)");
  }
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

const isIdle = (sessionId) => (p) =>
  p.sessionId === sessionId && p.update.sessionUpdate === "state_update" && p.update.state === "idle";

// One connection's client: what the agent sends it, how it answers permission requests and
// forms, and the helpers that read what it received.
function makeClient() {
  const seen = {
    // Every `session/update`'s params since the start, in order.
    all: [],
    waiters: [],
    permissions: [],
    // "allow", "reject", or "hold": keep the request unanswered until releaseHeld().
    permissionAnswer: "allow",
    held: [],
    onPermission: null,
    elicitations: [],
  };

  // The first update from index `from` on that `found` accepts; its index.
  function waitFor(found, from = 0) {
    for (let i = from; i < seen.all.length; i++) if (found(seen.all[i])) return Promise.resolve(i);
    return new Promise((resolve) => seen.waiters.push({ found, from, resolve }));
  }

  const app = acp
    .client()
    .onNotification("session/update", ({ params }) => {
      seen.all.push(params);
      const index = seen.all.length - 1;
      seen.waiters = seen.waiters.filter((waiter) => {
        if (index >= waiter.from && waiter.found(params)) {
          waiter.resolve(index);
          return false;
        }
        return true;
      });
    })
    .onRequest("session/request_permission", ({ params }) => {
      seen.permissions.push(params);
      seen.onPermission?.(params);
      if (seen.permissionAnswer === "hold") return new Promise((resolve) => seen.held.push(resolve));
      const kind = seen.permissionAnswer === "allow" ? "allow_once" : "reject_once";
      const option = params.options.find((o) => o.kind === kind);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onRequest("elicitation/create", ({ params }) => {
      seen.elicitations.push(params);
      return { action: "accept", content: { name: "Ada" } };
    });

  function releaseHeld() {
    for (const resolve of seen.held.splice(0)) resolve({ outcome: { outcome: "cancelled" } });
  }


  // A request's answer or error, with the updates that arrived while it was pending (the SDK
  // may hand a response over before the notifications just ahead of it: what the agent sent
  // before answering is judged on the wire).
  async function call(ctx, method, params) {
    const from = seen.all.length;
    let outcome;
    try {
      outcome = { result: await ctx.request(method, params) };
    } catch (error) {
      outcome = { error: errorRecord(error) };
    }
    return { ...outcome, updates: seen.all.slice(from).map((p) => p.update) };
  }

  // One v2 turn: the prompt's answer (the ack, or an error), then every update of the session
  // up to the idle one ending it.
  // `session/resume`'s answer, and the session's updates from the request to the state snapshot
  // the agent sends after any replay (tests/interop/test_reference_agent_v2.py checks on the
  // wire that the snapshot precedes the answer).
  async function resume(ctx, params) {
    const from = seen.all.length;
    const outcome = await call(ctx, "session/resume", params);
    if (outcome.error) return outcome;
    const isState = (p) => p.sessionId === params.sessionId && p.update.sessionUpdate === "state_update";
    const snapshot = await waitFor(isState, from);
    return { ...outcome, updates: seen.all.slice(from, snapshot + 1).filter((p) => p.sessionId === params.sessionId).map((p) => p.update) };
  }

  async function turn(ctx, sessionId, prompt) {
    const from = seen.all.length;
    let ack;
    try {
      ack = { result: await ctx.request("session/prompt", { sessionId, prompt }) };
    } catch (error) {
      return { error: errorRecord(error) };
    }
    // The turn's updates start with its user message; the idle update ending it carries a stop
    // reason (a state snapshot, such as a background list's change, does not).
    const start = await waitFor((p) => p.sessionId === sessionId && p.update.sessionUpdate === "user_message" && p.update.messageId === ack.result.messageId, from);
    const end = await waitFor((p) => isIdle(sessionId)(p) && p.update.stopReason != null, start);
    return { ...ack, updates: seen.all.slice(start, end + 1).filter((p) => p.sessionId === sessionId).map((p) => p.update) };
  }

  return { app, seen, waitFor, releaseHeld, call, resume, turn };
}

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").toString("base64");
const WAV = Buffer.from("RIFF....WAVEfmt ").toString("base64");

function text(value) {
  return { type: "text", text: value };
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

async function capabilities(ctx, { seen, waitFor, releaseHeld, call, resume, turn }) {
  const cwd = options.cwd;
  const newSession = (extra = {}) => ctx.request("session/new", { cwd, ...extra });
  const setOption = (sessionId, configId, value) =>
    call(ctx, "session/set_config_option", { sessionId, configId, type: "id", value });
  let main;

  // Ends a turn with `end(sessionId)` while it waits at a permission request the client leaves
  // unanswered: only the agent can end it.
  const endDuringTurn = async (end) => {
    const session = (await newSession()).sessionId;
    await setOption(session, "mode", "ask");
    seen.permissionAnswer = "hold";
    const asked = new Promise((resolve) => { seen.onPermission = resolve; });
    const from = seen.all.length;
    const ack = await ctx.request("session/prompt", { sessionId: session, prompt: [text("never kept")] });
    await asked;
    seen.onPermission = null;
    const ended = await end(session);
    // Whether it came before the ending's answer is judged on the wire.
    const idle = seen.all[await waitFor((p) => isIdle(session)(p) && p.update.stopReason != null, from)].update;
    releaseHeld();
    seen.permissionAnswer = "allow";
    const after = await turn(ctx, session, [text("ended now")]);
    return { sessionId: session, ack, ended, idle, prompt_after: after };
  };

  await runScenarios([
    ["initialize", async () => ({
      response: await ctx.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        info: { name: "idlc-interop-ts-reference-client-v2", version: "0.0.0" },
        capabilities: { elicitation: { form: {} } },
      }),
    })],
    ["before_sign_in", async () => ({
      new: await call(ctx, "session/new", { cwd }),
      list: await call(ctx, "session/list", {}),
      resume: await call(ctx, "session/resume", { sessionId: "ref-none", cwd }),
    })],
    ["login", async () => ({
      unknown_method: await call(ctx, "auth/login", { methodId: "no-such-method" }),
      sign_in: await call(ctx, "auth/login", { methodId: "local-user" }),
    })],
    ["session_new", async () => {
      const response = await newSession({ additionalDirectories: [options.otherDir] });
      main = response.sessionId;
      const second = await newSession();
      return { response, second_session_id: second.sessionId, relative_cwd: await call(ctx, "session/new", { cwd: "relative/dir" }) };
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
      const bad = await call(ctx, "session/prompt", { sessionId: main, prompt: [{ type: "image", mimeType: "image/png", data: "not base64!" }] });
      return { sessionId: main, sent: blocks, png_bytes: Buffer.from(PNG, "base64").length, wav_bytes: Buffer.from(WAV, "base64").length, bad_base64: bad, ...(await turn(ctx, main, blocks)) };
    }],
    ["mode", async () => {
      const unknown = await setOption(main, "mode", "no-such-mode");
      const set = await setOption(main, "mode", "ask");
      seen.permissions = [];
      seen.permissionAnswer = "allow";
      const allowed = await turn(ctx, main, [text("ask first")]);
      const allowedPermissions = seen.permissions;
      seen.permissions = [];
      seen.permissionAnswer = "reject";
      const rejected = await turn(ctx, main, [text("not this one")]);
      seen.permissionAnswer = "allow";
      const back = await setOption(main, "mode", "auto");
      return { sessionId: main, unknown, set, allowed, allowed_permissions: allowedPermissions, rejected, rejected_permissions: seen.permissions, back };
    }],
    ["set_config_option", async () => {
      const unknown = await setOption(main, "no-such-option", "x");
      const bad_value = await setOption(main, "reply", "sing");
      const set = await setOption(main, "reply", "count");
      const counted = await turn(ctx, main, [text("one"), text("two")]);
      const back = await setOption(main, "reply", "describe");
      return { sessionId: main, unknown, bad_value, set, counted, back };
    }],
    ["list", async () => {
      const elsewhere = await ctx.request("session/new", { cwd: options.otherDir });
      return {
        sessionId: main,
        elsewhere: elsewhere.sessionId,
        all: await ctx.request("session/list", {}),
        in_cwd: await ctx.request("session/list", { cwd }),
        in_other_dir: await ctx.request("session/list", { cwd: options.otherDir }),
        bad_cursor: await call(ctx, "session/list", { cursor: "not-a-cursor" }),
      };
    }],
    ["cancel", async () => endDuringTurn(async (sessionId) => {
      const from = seen.all.length;
      await ctx.notify("session/cancel", { sessionId });
      await waitFor(isIdle(sessionId), from);
      return {};
    })],
    ["close_during_turn", async () => ({
      ...(await endDuringTurn((sessionId) => call(ctx, "session/close", { sessionId }))),
      listed: await ctx.request("session/list", {}),
    })],
    ["delete_during_turn", async () => ({
      ...(await endDuringTurn((sessionId) => call(ctx, "session/delete", { sessionId }))),
      listed: await ctx.request("session/list", {}),
    })],
    ["resume_replay", async () => {
      await ctx.request("session/close", { sessionId: main });
      const closed_prompt = await call(ctx, "session/prompt", { sessionId: main, prompt: [text("closed")] });
      const wrong_cwd = await call(ctx, "session/resume", { sessionId: main, cwd: options.otherDir, replayFrom: { type: "start" } });
      const bad_cursor = await call(ctx, "session/resume", { sessionId: main, cwd, replayFrom: { type: "_later" } });
      const resumed = await resume(ctx, { sessionId: main, cwd, additionalDirectories: [], replayFrom: { type: "start" } });
      const after = await turn(ctx, main, [text("after resume")]);
      const listed = await ctx.request("session/list", { cwd });
      return { sessionId: main, closed_prompt, wrong_cwd, bad_cursor, resume: resumed, prompt_after: after, listed };
    }],
    ["resume_without_replay", async () => {
      await ctx.request("session/close", { sessionId: main });
      const resumed = await resume(ctx, { sessionId: main, cwd, additionalDirectories: [options.otherDir] });
      const after = await turn(ctx, main, [{ type: "resource_link", name: "plan.md", uri: `file://${options.otherDir}/plan.md` }]);
      return { sessionId: main, resume: resumed, prompt_after: after };
    }],
    ["plan", async () => ({ sessionId: main, ...(await turn(ctx, main, [text("/plan")])) })],
    ["terminal_in_background", async () => {
      const response = await newSession();
      const active = ctx.attachSession(response);
      const session = response.sessionId;
      const ran = await turn(ctx, session, [text("/watch")]);
      const terminalId = ran.updates.find((u) => u.sessionUpdate === "terminal_update").terminalId;
      const from = seen.all.length;
      // Listed once the agent reported it, and running: it printed its first line.
      await waitFor((p) => p.sessionId === session && p.update.sessionUpdate === "state_update" && (p.update.background ?? []).length > 0);
      const background_before = active.background;
      await waitFor((p) => p.sessionId === session && p.update.sessionUpdate === "terminal_output_chunk");
      const can_cancel = active.canCancelTerminal(terminalId);
      const cancelled = await active.cancelTerminal(terminalId);
      const exit = await waitFor((p) => p.sessionId === session && p.update.exitStatus != null, from);
      const emptied = await waitFor((p) => p.sessionId === session && p.update.sessionUpdate === "state_update" && Array.isArray(p.update.background) && p.update.background.length === 0, exit);
      const again = await call(ctx, "terminal/cancel", { sessionId: session, terminalId });
      const after = seen.all.slice(from, emptied + 1).filter((p) => p.sessionId === session).map((p) => p.update);
      // Every output chunk of the terminal, whenever it came (during the turn or after).
      const output = seen.all.filter((p) => p.update.sessionUpdate === "terminal_output_chunk" && p.update.terminalId === terminalId).map((p) => p.update.data);
      const result = { sessionId: session, terminalId, turn: ran, background_before, can_cancel, cancelled, after, output, background_after: active.background, can_cancel_after: active.canCancelTerminal(terminalId), again };
      active.dispose();
      return result;
    }],
    ["tool_call_in_background", async () => {
      const response = await newSession();
      const active = ctx.attachSession(response);
      const session = response.sessionId;
      const ran = await turn(ctx, session, [text("/remind")]);
      const toolCallId = ran.updates.find((u) => u.sessionUpdate === "tool_call_update").toolCallId;
      const listed = await waitFor((p) => p.sessionId === session && (p.update.background ?? []).some((w) => w.toolCallId === toolCallId));
      await waitFor((p) => p.sessionId === session && p.update.toolCallId === toolCallId && p.update.capabilities?.cancel != null);
      const can_cancel = active.canCancelToolCall(toolCallId);
      const from = seen.all.length;
      const cancelled = await active.cancelToolCall(toolCallId);
      const emptied = await waitFor((p) => p.sessionId === session && Array.isArray(p.update.background) && p.update.background.length === 0, from);
      const after = seen.all.slice(from, emptied + 1).filter((p) => p.sessionId === session).map((p) => p.update);
      const unknown = await call(ctx, "tool_call/cancel", { sessionId: session, toolCallId: "no-such-call" });
      const result = { sessionId: session, toolCallId, turn: ran, listed: seen.all[listed].update, can_cancel, cancelled, after, can_cancel_after: active.canCancelToolCall(toolCallId), unknown };
      active.dispose();
      return result;
    }],
    ["close_stops_background_work", async () => {
      const session = (await newSession()).sessionId;
      await turn(ctx, session, [text("/watch")]);
      await turn(ctx, session, [text("/remind")]);
      await waitFor((p) => p.sessionId === session && (p.update.background ?? []).length === 2);
      // What the close stopped is reported before its answer: judged on the wire.
      const closed = await call(ctx, "session/close", { sessionId: session });
      const prompt_after = await call(ctx, "session/prompt", { sessionId: session, prompt: [text("closed")] });
      return { sessionId: session, closed, prompt_after };
    }],
    ["elicitation", async () => {
      seen.elicitations = [];
      const asked = await turn(ctx, main, [text("/name")]);
      return { sessionId: main, asked, elicitations: seen.elicitations };
    }],
    ["delete", async () => {
      const session = (await newSession()).sessionId;
      const del = await call(ctx, "session/delete", { sessionId: session });
      const listed = await ctx.request("session/list", {});
      const prompt = await call(ctx, "session/prompt", { sessionId: session, prompt: [text("deleted")] });
      const resume = await call(ctx, "session/resume", { sessionId: session, cwd });
      return { sessionId: session, delete: del, listed, prompt_after_delete: prompt, resume_after_delete: resume };
    }],
    ["logout", async () => {
      const logout = await call(ctx, "auth/logout", {});
      const signed_out = {
        new: await call(ctx, "session/new", { cwd }),
        prompt: await call(ctx, "session/prompt", { sessionId: main, prompt: [text("signed out")] }),
        list: await call(ctx, "session/list", {}),
      };
      await ctx.request("auth/login", { methodId: "local-user" });
      const signed_in_again = await turn(ctx, main, [text("back again")]);
      return { sessionId: main, logout, signed_out, signed_in_again };
    }],
  ]);
}

async function signIn(ctx) {
  await ctx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "idlc-interop-ts-reference-client-v2", version: "0.0.0" },
    capabilities: {},
  });
  await ctx.request("auth/login", { methodId: "local-user" });
}

// Two connections to one agent process: B names A's session in every session method.
async function ownership(a, b) {
  const cwd = options.cwd;
  await runScenarios([
    ["two_connections", async () => {
      await signIn(a.ctx);
      await signIn(b.ctx);
      const mine = (await a.ctx.request("session/new", { cwd })).sessionId;
      const theirs = (await b.ctx.request("session/new", { cwd })).sessionId;
      const noted = await a.turn(a.ctx, mine, [text("A's secret")]);
      const fromB = b.seen.all.length;
      const other = {
        list: await b.call(b.ctx, "session/list", {}),
        resume: await b.call(b.ctx, "session/resume", { sessionId: mine, cwd, replayFrom: { type: "start" } }),
        prompt: await b.call(b.ctx, "session/prompt", { sessionId: mine, prompt: [text("B was here")] }),
        set_config_option: await b.call(b.ctx, "session/set_config_option", { sessionId: mine, configId: "reply", type: "id", value: "count" }),
        tool_call_cancel: await b.call(b.ctx, "tool_call/cancel", { sessionId: mine, toolCallId: "call-x" }),
        terminal_cancel: await b.call(b.ctx, "terminal/cancel", { sessionId: mine, terminalId: "term-x" }),
        close: await b.call(b.ctx, "session/close", { sessionId: mine }),
        delete: await b.call(b.ctx, "session/delete", { sessionId: mine }),
      };
      await b.ctx.notify("session/cancel", { sessionId: mine });
      // A turn of B's own session: B's updates until its end name only B's sessions.
      const own = await b.turn(b.ctx, theirs, [text("B's own")]);
      const b_named = [...new Set(b.seen.all.slice(fromB).map((p) => p.sessionId))];
      const owner = {
        list: await a.ctx.request("session/list", {}),
        prompt: await a.turn(a.ctx, mine, [text("still mine")]),
        resume: await a.resume(a.ctx, { sessionId: mine, cwd, replayFrom: { type: "start" } }),
      };
      return { mine, theirs, noted, other, own, b_named, owner };
    }],
  ]);
}

async function openWebSocket() {
  const { createWebSocketStream } = await import("@agentclientprotocol/sdk/experimental/ws-client");
  const { WebSocket } = await import("ws");
  return createWebSocketStream(options.connect, { WebSocket });
}

let exitCode = 0;
try {
  if (options.connect) {
    const a = makeClient();
    const b = makeClient();
    const streamA = await openWebSocket();
    const streamB = await openWebSocket();
    await a.app.connectWith(streamA, (ctxA) =>
      b.app.connectWith(streamB, (ctxB) => ownership({ ...a, ctx: ctxA }, { ...b, ctx: ctxB })),
    );
    emit({ scenario: "done" });
  } else {
    const client = makeClient();
    const [command, ...args] = options.command;
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
    const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    await client.app.connectWith(stream, (ctx) => capabilities(ctx, client));
    child.stdin.end();
    const agentExit = await withTimeout(exited, "agent exit").catch(() => {
      child.kill("SIGKILL");
      return { code: null, signal: "SIGKILL" };
    });
    emit({ scenario: "done", agent_exit: agentExit });
  }
} catch (error) {
  emit({ scenario: "connection", failed: errorRecord(error) });
  exitCode = 1;
}
process.exit(exitCode);
