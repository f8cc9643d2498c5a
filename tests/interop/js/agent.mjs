// An ACP agent written with the official TypeScript SDK (@agentclientprotocol/sdk), serving
// on stdio (remote_agent.mjs serves it over streamable HTTP and WebSocket) and behaving like examples/acp_echo_agent.py:
// - initialize: protocol version 1, no session/load, text-only prompts;
// - session/prompt: every text block comes back as an agent_message_chunk, ~100 ms apart; then
//   a tool call reading README.md in the session's cwd, a permission request and, if allowed
//   and the client offered fs.readTextFile, fs/read_text_file and a tool_call_update carrying
//   the file's first line; the turn ends with end_turn, or cancelled after session/cancel;
// - a prompt that is the one text block NEWS gets, if the client advertised `session.notices`
//   and `session.compaction`, the news scenario's notice and compaction updates (the same as
//   tests/interop/py_official_agent.py sends) and ends with end_turn;
// - a prompt that is the one text block NEWER gets updates as a newer agent may send them
//   (NEWER_UPDATES: values this schema version does not know, in places the schema marks
//   default-on-error or skip-invalid-items, and an update kind it does not know at all) and
//   ends with end_turn (tests/interop/test_newer_peer.py).
import { randomUUID } from "node:crypto";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk";

const CHUNK_INTERVAL_MS = 100;

let clientCapabilities = {};
const sessions = new Map(); // sessionId -> { cwd, turn: AbortController | null }

// Waits `ms`, or less if the turn is cancelled; says whether it was.
function pause(ms, signal) {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(false);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

// Resolves with the promise's value, or with `undefined` as soon as the turn is cancelled.
function unlessCancelled(promise, signal) {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

// A session created with `_meta` gets `_meta` on everything the agent sends for it, naming
// another session: the client must go by the real `sessionId` (the meta_shadow scenario).
const SHADOW_META = { sessionId: "shadow-from-agent" };

const NEWS_UPDATES = [
  { sessionUpdate: "notice", severity: "warning", title: "Context almost full", description: "compacting soon" },
  { sessionUpdate: "compaction_update", compactionId: "c-1", status: "in_progress" },
  {
    sessionUpdate: "compaction_summary_chunk",
    compactionId: "c-1",
    content: { type: "text", text: "summary, first part" },
  },
  {
    sessionUpdate: "compaction_update",
    compactionId: "c-1",
    status: "completed",
    summary: [{ type: "text", text: "the whole summary" }],
    _meta: { tokensBefore: 1000, tokensAfter: 100 },
  },
];

const NEWER_UPDATES = [
  { sessionUpdate: "tool_call", toolCallId: "t-1", title: "Browse", kind: "browse", status: "queued" },
  {
    sessionUpdate: "tool_call_update",
    toolCallId: "t-1",
    status: "completed",
    locations: [{ path: "/a.py", line: 3 }, { line: 4 }, { path: "/b.py", line: "end" }],
  },
  { sessionUpdate: "notice", severity: "fatal", title: "Heads up", description: { rich: true } },
  { sessionUpdate: "weather", forecast: "rain" },
  {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: "after", annotations: { audience: ["user", "robot"], priority: "high" } },
  },
];

function onlyText(prompt, text) {
  const texts = prompt.filter((block) => block.type === "text").map((block) => block.text);
  return texts.length === 1 && texts[0] === text;
}

function wantsNews(prompt) {
  const texts = prompt.filter((block) => block.type === "text").map((block) => block.text);
  const session = clientCapabilities.session;
  return texts.length === 1 && texts[0] === "NEWS" && session?.notices != null && session?.compaction != null;
}

async function runTurn(client, sessionId, session, prompt, signal) {
  const meta = session.shadow ? { _meta: SHADOW_META } : {};
  const update = (u) => client.notify(acp.methods.client.session.update, { sessionId, update: u, ...meta });
  if (wantsNews(prompt)) {
    for (const u of NEWS_UPDATES) await update(u);
    return "end_turn";
  }
  if (onlyText(prompt, "NEWER")) {
    for (const u of NEWER_UPDATES) await update(u);
    return "end_turn";
  }
  let first = true;
  for (const block of prompt) {
    if (block.type !== "text") continue;
    if (!first && (await pause(CHUNK_INTERVAL_MS, signal))) return "cancelled";
    first = false;
    if (signal.aborted) return "cancelled";
    await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: block.text } });
  }
  if (signal.aborted) return "cancelled";

  const readme = path.join(session.cwd, "README.md");
  const toolCallId = `read-${randomUUID()}`;
  await update({
    sessionUpdate: "tool_call",
    toolCallId,
    title: "Read README.md",
    kind: "read",
    status: "pending",
    locations: [{ path: readme }],
  });
  const answer = await unlessCancelled(
    client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId, title: "Read README.md", kind: "read", status: "pending" },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
      ...meta,
    }),
    signal,
  );
  if (answer === undefined || signal.aborted || answer.outcome.outcome === "cancelled") {
    await update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
    return "cancelled";
  }
  const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
  if (!allowed || !clientCapabilities.fs?.readTextFile) {
    await update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
    return "end_turn";
  }
  await update({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
  const file = await unlessCancelled(
    client.request(acp.methods.client.fs.readTextFile, { sessionId, path: readme, ...meta }),
    signal,
  );
  if (file === undefined) {
    await update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
    return "cancelled";
  }
  const firstLine = file.content.split("\n", 1)[0];
  await update({
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: firstLine } }],
  });
  return signal.aborted ? "cancelled" : "end_turn";
}

export const app = acp
  .agent({ name: "idlc-interop-ts-agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientCapabilities = params.clientCapabilities ?? {};
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
      },
      agentInfo: { name: "idlc-interop-ts-agent", version: "0.0.0" },
      authMethods: [],
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `ts-${randomUUID()}`;
    sessions.set(sessionId, { cwd: params.cwd, turn: null, shadow: params._meta != null });
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (!session) throw acp.RequestError.invalidParams(undefined, `unknown session ${params.sessionId}`);
    session.turn?.abort();
    const turn = new AbortController();
    session.turn = turn;
    try {
      const stopReason = await runTurn(client, params.sessionId, session, params.prompt, turn.signal);
      return { stopReason };
    } finally {
      if (session.turn === turn) session.turn = null;
    }
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    sessions.get(params.sessionId)?.turn?.abort();
  });

// Run as a program it serves stdio; remote_agent.mjs imports `app` to serve it over the web.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
  await connection.closed;
}
