// What a well-behaved proxy never sends, and cancellation, from Node to the Python quixos
// server, for tests/interop_ts: raw calls through the peer the generated proxies use.
//
//     node probe_client.js --connect URL | --spawn COMMAND [ARGS…]   [--cancel]
//
// `--cancel` needs a server with `test:slow` and `test:was-cancelled`
// (tests/runtime_ts/py_server.py: the quixos directory plus those). Prints one JSON object.
import { RpcError, codec, connectWebSocket, spawn, type Peer } from "@idlc/runtime/node";
import { AgentDirectoryProxy } from "./quixos_agent/index.js";

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return { result: (await promise) ?? null };
  } catch (error) {
    if (error instanceof RpcError) return { error: { code: error.code, message: error.message, data: error.data ?? null } };
    return { thrown: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

const argv = process.argv.slice(2);
const probeCancel = argv.includes("--cancel");
const args = argv.filter((arg) => arg !== "--cancel");
const peer: Peer =
  args[0] === "--connect" ? await connectWebSocket(args[1]!) : spawn(args[1]!, args.slice(2), { stderr: "inherit" });
const seen: Record<string, unknown> = {};
const agent = { name: "writer", description: "d", instructions: "i", settings: "s" };
const submission = { text: "hello", sourceKind: "user", sourceLabel: "probe", createdAt: "2025-01-01T12:00:00Z", contexts: [], causalDepth: 0 };

seen["badName"] = await outcome(peer.request("agent:directory:create-agent:call", { ...agent, name: 7 }));
seen["missingField"] = await outcome(peer.request("agent:directory:create-agent:call", { name: "x" }));
const writer = await peer.request("agent:directory:create-agent:call", agent);
seen["badNested"] = await outcome(
  peer.request("agent:directory:admit:call", { agent: writer, submission: { ...submission, causalDepth: -1 }, optionalWork: false }),
);
seen["badWrapped"] = await outcome(peer.request("agent:directory:notification-sent:call", { input: 7 }));
seen["unknownMethod"] = await outcome(peer.request("agent:directory:no-such:call", {}));
seen["unimplemented"] = await outcome(peer.request("agent:directory:reconcile-repair:call", { key: 1 }));
const admitted = (await peer.request("agent:directory:admit:call", { agent: writer, submission, optionalWork: false })) as {
  request: string;
};
seen["targeted"] = await outcome(peer.request("agent:request:admission:get", undefined, { target: admitted.request }));
seen["targetInParams"] = await outcome(peer.request("agent:request:spawned:get", { $target: admitted.request }));
seen["unknownTarget"] = await outcome(peer.request("agent:request:admission:get", undefined, { target: "request-404" }));

// A proxy's call aborted before its answer came rejects with the abort's reason.
const controller = new AbortController();
const aborted = new AgentDirectoryProxy(peer).data({ signal: controller.signal });
controller.abort(new Error("no longer wanted"));
seen["abortedProxyCall"] = await outcome(aborted);
if (probeCancel) {
  const slow = new AbortController();
  const call = peer.request("test:slow", {}, { signal: slow.signal });
  slow.abort(new Error("no longer wanted"));
  seen["slow"] = await outcome(call);
  seen["wasCancelled"] = await outcome(peer.request("test:was-cancelled", {}));
}
// The connection still serves after all that.
seen["dataAfter"] = await outcome(new AgentDirectoryProxy(peer).data().then((data) => data.sequence.toString()));
await peer.close();
process.stdout.write(`${codec.stringifyJson(seen)}\n`);
