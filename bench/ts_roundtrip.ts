// The Node side of bench/ts_roundtrip.py: sequential round trips of
// `agent:directory:data:get` against a WebSocket server, through the generated
// `AgentDirectoryProxy.data()` (the runtime's peer, validation of the answer) and as raw
// JSON-RPC text over a `ws` socket (no runtime: one `send`, one `JSON.parse` per call),
// the two alternated run by run. Prints one JSON object: round trips per second per run.
//
//     node ts_roundtrip.js URL RUNS COUNT
import WebSocket from "ws";
import { connectWebSocket } from "@idlc/runtime/node";
import { AgentDirectoryProxy } from "./quixos_agent/index.js";

const [url, runsText, countText] = process.argv.slice(2);
const runs = Number(runsText ?? 7);
const count = Number(countText ?? 3000);

const peer = await connectWebSocket(url!);
const directory = new AgentDirectoryProxy(peer);

const socket = new WebSocket(url!);
await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
let answer: (text: string) => void = () => undefined;
socket.on("message", (data) => answer(data.toString()));
let nextId = 0;
function rawCall(): Promise<unknown> {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    answer = (text) => {
      const message = JSON.parse(text) as { id: number; result?: unknown };
      if (message.id !== id || message.result === undefined) reject(new Error(`unexpected answer ${text}`));
      else resolve(message.result);
    };
    socket.send(`{"jsonrpc":"2.0","id":${id},"method":"agent:directory:data:get"}`);
  });
}

async function rate(call: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await call();
  return count / (Number(process.hrtime.bigint() - start) / 1e9);
}

const proxy = (): Promise<unknown> => directory.data();
await rate(proxy); // warm-up of both paths (JIT, the server's caches)
await rate(rawCall);
const seen: { proxy: number[]; raw: number[] } = { proxy: [], raw: [] };
for (let run = 0; run < runs; run++) {
  // Alternated, and which goes first alternates too, so drift of the machine hits both.
  if (run % 2 === 0) {
    seen.proxy.push(await rate(proxy));
    seen.raw.push(await rate(rawCall));
  } else {
    seen.raw.push(await rate(rawCall));
    seen.proxy.push(await rate(proxy));
  }
}
socket.close();
await peer.close();
process.stdout.write(`${JSON.stringify(seen)}\n`);
