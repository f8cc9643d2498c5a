// A Node client of examples/quixos_server.py --listen, as a user would run it: raw wire
// methods through a Peer, a browser's Origin refused or admitted by the server's allow-list
// (docs/web.md). Usage: node example_client.mjs URL ALLOWED_ORIGIN
import { RpcError, stringifyJson } from "../../../runtime-ts/dist/index.js";
import { connectWebSocket } from "../../../runtime-ts/dist/node/index.js";

const [url, allowed] = process.argv.slice(2);

async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (error) {
    if (error instanceof RpcError) return { code: error.code, data: error.data ?? null };
    return { thrown: String(error), name: error?.name };
  }
}

const seen = {};
seen.refused = await outcome(connectWebSocket(url, { headers: { Origin: "https://elsewhere.example" } }));
const peer = await connectWebSocket(url, { headers: { Origin: allowed } });
seen.createAgent = await outcome(
  peer.request("agent:directory:create-agent:call", { name: "n", description: "d", instructions: "i", settings: "s" }),
);
seen.data = await outcome(peer.request("agent:directory:data:get", undefined));
seen.unimplemented = await outcome(peer.request("agent:directory:reconcile-repair:call", { key: "k", text: "t", configuration: "c" }));
seen.badParams = await outcome(peer.request("agent:directory:create-thread:call", { agent: "agent-1" }));
seen.unknownTarget = await outcome(peer.request("agent:request:state:get", undefined, { target: "request-9" }));
await peer.close();
process.stdout.write(stringifyJson(seen) + "\n");
