// A walk through every member of the Quixos agent interfaces from Node, through the proxies
// that `idlc generate --target typescript` writes for the seeds (idl/quixos/*.idl): the
// directory (the connection's root object) through `AgentDirectoryProxy`, then admitted
// requests through `new AgentRequestProxy(peer, ref)`, which adds `"$target"` to every call.
// The calls are examples/quixos_client.py's.
//
// Build it beside the generated package, then run it with node (docs/typescript-mapping.md,
// "Node examples"):
//
//     node quixos_client.js --connect ws://127.0.0.1:8765/          # a server started with --listen
//     node quixos_client.js --spawn python examples/quixos_server.py  # a server on its stdin/stdout
//     node quixos_client.js                                           # the same, from the repository root
//
// It prints one JSON object on stdout: for each step, `{"result": …}` (the decoded value as
// JSON again, lists of references sorted) or `{"error": {code, message, data}}`.

import { delimiter } from "node:path";
import { pathToFileURL } from "node:url";
import { RpcError, Unsupported, codec, connectWebSocket, spawn, type Peer } from "@idlc/runtime/node";
import {
  AgentAdmissionCodec,
  AgentDirectoryProxy,
  AgentRequestClaimOutputCodec,
  AgentRequestProxy,
  DirectoryDataCodec,
  RequestDataCodec,
  RequestStateCodec,
  type AgentContextSubjectRef,
  type AgentRequestObjectRef,
  type AgentSubmission,
  type ItemData,
} from "./quixos_agent/index.js";

const WHEN = "2025-01-01T12:00:00Z";

type Seen = Record<string, unknown>;

/** What one call answered, as JSON: its result through `encode`, or its error. */
async function outcome<T>(promise: Promise<T>, encode: (value: T) => unknown = (value) => value): Promise<unknown> {
  try {
    const value = await promise;
    return { result: value === undefined ? null : encode(value) };
  } catch (error) {
    if (error instanceof RpcError) {
      return { error: { code: error.code, message: error.message, data: error.data ?? null, unsupported: error instanceof Unsupported } };
    }
    throw error;
  }
}

const sorted = (refs: readonly string[]): string[] => [...refs].sort();

function submission(text: string, links: Partial<AgentSubmission> = {}): AgentSubmission {
  return {
    text,
    sourceKind: "user",
    sourceLabel: "walkthrough",
    createdAt: WHEN,
    contexts: ["context:docs" as AgentContextSubjectRef],
    causalDepth: 0,
    ...links,
  };
}

/** Calls every member of both interfaces; what each answered, by step. */
export async function walk(peer: Peer): Promise<Seen> {
  const seen: Seen = {};
  const directory = new AgentDirectoryProxy(peer);

  seen["data"] = await outcome(directory.data(), DirectoryDataCodec.encode);
  seen["defaultAgent before initialize"] = await outcome(directory.defaultAgent());
  seen["initialize"] = await outcome(directory.initialize({ instructions: "Be brief.", settings: '{"model": "small"}' }));
  seen["defaultAgent"] = await outcome(directory.defaultAgent());
  seen["initialThread"] = await outcome(directory.initialThread());

  const writer = await directory.createAgent({
    name: "writer",
    description: "Writes release notes",
    instructions: "Write clearly.",
    settings: "{}",
  });
  seen["createAgent"] = { result: writer };
  const thread = await directory.createThread({ agent: writer, title: "Release 1.0", kind: "chat", createdAt: WHEN, contexts: [] });
  seen["createThread"] = { result: thread };
  seen["agents"] = await outcome(directory.agents(), sorted);
  seen["threads"] = await outcome(directory.threads(), sorted);

  const admission = await directory.admit({ agent: writer, thread, submission: submission("Draft the notes"), optionalWork: false });
  seen["admit"] = { result: AgentAdmissionCodec.encode(admission) };
  if (!admission.accepted || admission.request === undefined) throw new Error("the submission was refused");
  const ref = admission.request;
  seen["pending"] = await outcome(directory.pending(), sorted);

  seen["advertise busy"] = await outcome(directory.advertise({ profiles: "fast,careful", availability: "busy" }));
  seen["admit optional while busy"] = await outcome(
    directory.admit({ agent: writer, submission: submission("Tidy up"), optionalWork: true }),
    AgentAdmissionCodec.encode,
  );
  seen["advertise available"] = await outcome(directory.advertise({ profiles: "fast,careful", availability: "available" }));
  seen["data after advertise"] = await outcome(directory.data(), DirectoryDataCodec.encode);

  // The request is a keyed object: every call carries `"$target": ref`.
  const request = new AgentRequestProxy(peer, ref);
  seen["admission"] = await outcome(request.admission(), RequestDataCodec.encode);
  seen["progress"] = await outcome(request.progress(), RequestStateCodec.encode);
  seen["thread"] = await outcome(request.thread());
  seen["directory"] = await outcome(request.directory());
  seen["contexts"] = await outcome(request.contexts(), sorted);
  seen["related"] = await outcome(request.related());
  seen["retryOf"] = await outcome(request.retryOf());
  seen["root"] = await outcome(request.root());

  const first = await request.claim({ attempt: "worker-a", expectedGeneration: 0, startedAt: WHEN, recover: false });
  seen["claim worker-a"] = { result: AgentRequestClaimOutputCodec.encode(first) };
  seen["claim worker-b stale"] = await outcome(
    request.claim({ attempt: "worker-b", expectedGeneration: 0, startedAt: WHEN, recover: false }),
    AgentRequestClaimOutputCodec.encode,
  );
  const generation = first.generation;

  seen["transition worker-b"] = await outcome(request.transition({ attempt: "worker-b", generation, status: "x", reason: "" }));
  seen["transition worker-a"] = await outcome(
    request.transition({ attempt: "worker-a", generation, status: "writing", reason: "drafting" }),
  );
  seen["steer"] = await outcome(request.steer({ attempt: "worker-a", generation, key: "tone", text: "Friendlier", createdAt: WHEN }));
  seen["steer stale"] = await outcome(request.steer({ attempt: "worker-b", generation, key: "x", text: "", createdAt: WHEN }));
  const outline: ItemData = {
    key: "outline",
    kind: "note",
    text: "1. Features 2. Fixes",
    phase: "done",
    sequence: 1n,
    version: 1n,
    createdAt: WHEN,
    updatedAt: WHEN,
    control: { attempt: "worker-a", generation, status: "writing", reason: "" },
  };
  seen["upsertItem"] = await outcome(request.upsertItem({ attempt: "worker-a", generation, data: outline }));
  seen["ask"] = await outcome(
    request.ask({
      attempt: "worker-a",
      generation,
      key: "audience",
      title: "Who reads these notes?",
      options: '["users", "developers"]',
      createdAt: WHEN,
      expiresAt: "2025-01-02T12:00:00Z",
    }),
  );
  seen["items"] = await outcome(request.items(), sorted);
  seen["questions"] = await outcome(request.questions(), sorted);
  seen["reserveChild"] = await outcome(request.reserveChild());
  seen["spawned"] = await outcome(request.spawned());

  seen["finish generation 0"] = await outcome(
    request.finish({ attempt: "worker-a", generation: 0, status: "completed", reason: "", endedAt: WHEN }),
  );
  seen["finish"] = await outcome(
    request.finish({
      attempt: "worker-a",
      generation,
      status: "completed",
      result: "Release 1.0 brings ...",
      usage: '{"tokens": 420}',
      reason: "done",
      endedAt: WHEN,
    }),
  );
  seen["progress finished"] = await outcome(request.progress(), RequestStateCodec.encode);
  seen["pending after finish"] = await outcome(directory.pending(), sorted);
  seen["publishCompletion"] = await outcome(request.publishCompletion());
  seen["publishCompletion again"] = await outcome(request.publishCompletion());

  seen["settle wrong thread"] = await outcome(
    directory.settle({ request: ref, thread: "thread-404" as typeof thread, interactive: false, notify: true }),
  );
  seen["settle"] = await outcome(directory.settle({ request: ref, thread, interactive: false, notify: true }));
  seen["notifications"] = await outcome(directory.notifications(), sorted);
  seen["data with a notification"] = await outcome(directory.data(), DirectoryDataCodec.encode);
  seen["notificationSent"] = await outcome(directory.notificationSent(ref));
  seen["notifications after"] = await outcome(directory.notifications(), sorted);
  seen["notificationSent unknown"] = await outcome(directory.notificationSent("request-404" as AgentRequestObjectRef));

  const correction = await request.correct({ errors: ["Version number is wrong"], maxCorrections: 2, createdAt: WHEN });
  seen["correct"] = { result: correction };
  if (correction === null) throw new Error("no correction was admitted");
  const followUp = new AgentRequestProxy(peer, correction);
  seen["followUp admission"] = await outcome(followUp.admission(), RequestDataCodec.encode);
  seen["followUp retryOf"] = await outcome(followUp.retryOf());
  seen["followUp root"] = await outcome(followUp.root());
  seen["followUp reserveChild"] = await outcome(followUp.reserveChild());
  seen["followUp cancel"] = await outcome(followUp.cancel());
  seen["followUp progress"] = await outcome(followUp.progress(), RequestStateCodec.encode);
  seen["followUp cancel again"] = await outcome(followUp.cancel());

  // What the server does not implement (-32601), and a target that names nothing (-32900).
  seen["reconcileRepair"] = await outcome(
    directory.reconcileRepair({
      key: "k",
      text: "",
      configuration: "",
      createdAt: WHEN,
      confirmedAt: WHEN,
      publication: "",
      attempt: "",
      generation: 0,
      startedAt: WHEN,
    }),
  );
  seen["unknown target"] = await outcome(new AgentRequestProxy(peer, "request-404").progress());
  return seen;
}

async function main(argv: readonly string[]): Promise<void> {
  const [mode, ...rest] = argv;
  let peer: Peer;
  if (mode === "--connect" && rest[0] !== undefined) {
    peer = await connectWebSocket(rest[0]);
  } else if (mode === "--spawn" && rest[0] !== undefined) {
    peer = spawn(rest[0], rest.slice(1), { stderr: "inherit" });
  } else if (mode === undefined) {
    // From the repository root: the Python server, with the committed `generated/` package.
    const pythonPath = ["generated", process.env["PYTHONPATH"]].filter(Boolean).join(delimiter);
    const env = { ...process.env, PYTHONPATH: pythonPath };
    peer = spawn(process.env["PYTHON"] ?? "python3", ["examples/quixos_server.py", "--quiet"], { env });
  } else {
    throw new Error("usage: node quixos_client.js [--connect URL | --spawn COMMAND [ARGS…]]");
  }
  try {
    process.stdout.write(`${codec.stringifyJson(await walk(peer))}\n`);
  } finally {
    await peer.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`quixos_client: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
