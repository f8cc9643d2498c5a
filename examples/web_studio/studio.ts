// A web studio page: the browser calls the Python quixos server over WebSocket through the
// TypeScript that `idlc generate --target typescript` writes (docs/typescript-mapping.md,
// "In a browser"). Build it beside the generated package:
//
//   idlc generate idl/quixos/*.idl --target typescript --out build/web_studio --package quixos_agent
//   cp examples/web_studio/studio.ts examples/web_studio/index.html build/web_studio/
//   tsc -p build/web_studio        (a tsconfig.json as the docs show)
//
// and open index.html?server=ws://127.0.0.1:8765/ from a server whose origin the quixos
// server admits (`--allow-origin`). The page shows what the server answered and resolves
// `window.studioDone` with the same text (the browser test waits on it).
import { RpcError, connectWebSocket } from "@idlc/runtime";
import {
  AgentDirectoryProxy,
  AgentRequestProxy,
  type AgentRequestObjectRef,
} from "./quixos_agent/index.js";

async function run(server: string): Promise<string> {
  const peer = await connectWebSocket(server);
  try {
    const directory = new AgentDirectoryProxy(peer);
    const lines: string[] = [];
    await directory.initialize({ instructions: "Be brief.", settings: "{}" });
    const agent = await directory.defaultAgent();
    if (agent === null) throw new Error("the directory has no default agent");
    lines.push(`default agent: ${agent}`);
    const thread = await directory.initialThread();
    const admission = await directory.admit({
      agent,
      thread: thread ?? undefined,
      optionalWork: false,
      submission: {
        text: "Show me the studio",
        sourceKind: "browser",
        sourceLabel: "web studio",
        createdAt: new Date(0).toISOString(),
        contexts: [],
        causalDepth: 0,
      },
    });
    lines.push(`admitted: ${admission.accepted}`);
    if (admission.request !== undefined && admission.request !== null) {
      // A keyed object: the request the directory registered under its reference ($target).
      const request = new AgentRequestProxy(peer, admission.request);
      const data = await request.admission();
      lines.push(`request text: ${data.text}`);
      lines.push(`request sequence: ${typeof data.sequence} ${data.sequence}`);
    }
    const data = await directory.data();
    lines.push(`pending: ${data.pending}`);
    try {
      // A request the directory never made: the server's error comes back as an RpcError.
      await directory.notificationSent("request:none" as AgentRequestObjectRef);
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      lines.push(`refused: ${error.code}`);
    }
    return lines.join("\n");
  } finally {
    await peer.close();
  }
}

declare global {
  interface Window {
    studioDone: Promise<string>;
  }
}

const output = document.getElementById("result") as HTMLElement;
const server = new URLSearchParams(location.search).get("server") ?? "ws://127.0.0.1:8765/";
window.studioDone = run(server).then(
  (text) => {
    output.textContent = text;
    output.dataset.state = "done";
    return text;
  },
  (error: unknown) => {
    const text = `error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    output.textContent = text;
    output.dataset.state = "failed";
    return text;
  },
);
