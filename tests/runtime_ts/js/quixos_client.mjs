// A Node client of the Python runtime: calls raw wire methods of the quixos directory
// (tests/runtime_ts/py_server.py) and prints what it saw as one JSON object on stdout, for
// the Python test to check. Usage: node quixos_client.mjs stdio PYTHON SERVER_SCRIPT
//                                   node quixos_client.mjs ws URL
//   node --experimental-websocket quixos_client.mjs browser URL
// "browser" uses only the root entry, as a browser does: its connectWebSocket over the
// global WebSocket (Node 20 has one behind that flag), without `ws` or AsyncLocalStorage.
import * as root from "../../../runtime-ts/dist/index.js";
import * as node from "../../../runtime-ts/dist/node/index.js";
import { defineInterface, record } from "./interface.mjs";

const [mode, ...rest] = process.argv.slice(2);
const { RpcError, Unsupported, stringifyJson } = root;
const { spawn } = node;
const connectWebSocket = mode === "browser" ? root.connectWebSocket : node.connectWebSocket;

// The client's own root: it takes the server's `test:tick` notifications, the first one
// slowly, so that ordering shows (docs/wire.md §13).
const Ticks = defineInterface("Ticks", [
  { wire: "test:tick", member: "tick", notify: true, decode: record({ n: "int" }) },
]);
const ticks = [];
class TickCounter extends Ticks {
  async tick({ n }, context) {
    // A notification handler calling the other side: its answer must not wait behind the
    // ticks this handler holds back (docs/wire.md §13, "No deadlock"), in every mode.
    if (n === 0) await context.caller.request("agent:directory:data:get", undefined);
    // Yields to the event loop a few times: later ticks and the answer are read meanwhile.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    ticks.push(n);
  }
}

const peer =
  mode === "stdio"
    ? spawn(rest[0], [rest[1]], { root: new TickCounter(), stderr: "inherit" })
    : await connectWebSocket(rest[0], { root: new TickCounter() });

async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (error) {
    if (error instanceof RpcError) {
      return { code: error.code, message: error.message, data: error.data ?? null, unsupported: error instanceof Unsupported };
    }
    return { thrown: String(error), name: error?.name };
  }
}

const seen = {};
if (mode !== "stdio") {
  // Headers reach the upgrade request: a browser's Origin that the server does not admit
  // is refused (docs/web.md), and the connection is never opened. A browser cannot send
  // headers at all: asking is an error.
  seen.refused = await outcome(connectWebSocket(rest[0], { headers: { Origin: "https://evil.example" } }));
}
const agentParams = { name: "writer", description: "d", instructions: "i", settings: "s" };
seen.createAgent = await outcome(peer.request("agent:directory:create-agent:call", agentParams));
seen.admit = await outcome(
  peer.request("agent:directory:admit:call", {
    agent: seen.createAgent.result,
    submission: {
      text: "hello",
      sourceKind: "user",
      sourceLabel: "node",
      createdAt: "2024-01-01T00:00:00Z",
      contexts: ["context:docs"],
      causalDepth: 0,
    },
    optionalWork: false,
  }),
);
const requestRef = seen.admit.result?.request;
seen.targeted = await outcome(peer.request("agent:request:admission:get", undefined, { target: requestRef }));
seen.unknownTarget = await outcome(peer.request("agent:request:admission:get", undefined, { target: "request-404" }));
seen.nonStringTarget = await outcome(peer.request("agent:request:admission:get", { $target: 7 }));
seen.unknownMethod = await outcome(peer.request("agent:directory:no-such:call", {}));
seen.unimplemented = await outcome(peer.request("agent:directory:reconcile-repair:call", { key: "k", text: "t", configuration: "c" }));
seen.badParams = await outcome(peer.request("agent:directory:create-agent:call", { ...agentParams, name: 7 }));

// Cancellation: aborting the signal sends $/cancel_request and rejects at once.
const controller = new AbortController();
const slow = peer.request("test:slow", {}, { signal: controller.signal });
controller.abort(new Error("no longer wanted"));
seen.slow = await outcome(slow);
seen.wasCancelled = await outcome(peer.request("test:was-cancelled", {}));

// Ordered notifications: the answer to test:ticks resumes only after every tick sent
// before it was handled.
const answer = await outcome(peer.request("test:ticks", { count: 20 }));
seen.ticks = { answer, handledBeforeAnswer: [...ticks] };

await peer.close();
seen.afterClose = await outcome(peer.request("agent:directory:data:get", undefined));
process.stdout.write(stringifyJson(seen) + "\n");
