// An in-memory Quixos agent directory served over JSON-RPC by Node, on the skeletons that
// `idlc generate --target typescript` writes for the seeds (idl/quixos/*.idl): the same
// answers as examples/quixos_server.py for the same calls (its docstring states the rules).
//
// Build it beside the generated package, then run it with node (docs/typescript-mapping.md,
// "Node examples"):
//
//     node quixos_server.js                               # one client on stdin/stdout
//     node quixos_server.js --listen 127.0.0.1:8765       # WebSocket, ws://127.0.0.1:8765/ (port 0: any free)
//
// `--allow-origin ORIGIN` (repeatable) admits a browser origin; `--quiet` logs only where it
// listens. The Python server's `--tcp` and `--token-env` are not here (runtime-ts has no TCP
// server and no token authentication yet).
//
// Every admitted request is an `AgentRequest` registered on the connection under its
// reference (`$target`). Like the Python server it leaves `reconcileRepair` to the skeleton,
// which answers -32601. Nothing but the protocol goes to stdout; the log goes to stderr.

import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import { RpcError, serveStdio, serveWebSocket, type Peer, type PeerOptions } from "@idlc/runtime/node";
import {
  AgentDirectory,
  AgentRequest,
  type AgentAdmission,
  type AgentContextSubjectRef,
  type AgentDirectoryAdmitInput,
  type AgentDirectoryAdvertiseInput,
  type AgentDirectoryCreateAgentInput,
  type AgentDirectoryCreateThreadInput,
  type AgentDirectoryInitializeInput,
  type AgentDirectoryObjectRef,
  type AgentDirectorySettleInput,
  type AgentItemObjectRef,
  type AgentObjectRef,
  type AgentQuestionObjectRef,
  type AgentRequestAskInput,
  type AgentRequestClaimInput,
  type AgentRequestClaimOutput,
  type AgentRequestCorrectInput,
  type AgentRequestFinishInput,
  type AgentRequestObjectRef,
  type AgentRequestSteerInput,
  type AgentRequestTransitionInput,
  type AgentRequestUpsertItemInput,
  type AgentSubmission,
  type AgentThreadObjectRef,
  type DirectoryData,
  type ItemData,
  type RequestData,
  type RequestState,
} from "./quixos_agent/index.js";

/** An argument names an agent, thread or request this directory never made. */
export const UNKNOWN_OBJECT = 4004;
/** The request's state does not allow the action (stale attempt, finished, wrong thread). */
export const CONFLICT = 4009;
const MAX_CHILDREN = 3;
const MAX_GENERATION = 2 ** 32 - 1;
const DIRECTORY_REF = "directory" as AgentDirectoryObjectRef;

let quiet = false;
const log = (message: string): void => {
  if (!quiet) console.error(`quixos_server: ${message}`);
};

/** Python's `datetime.now(UTC).isoformat(timespec="seconds")`. */
const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, "+00:00");

/** Python's `repr` of a string, as the Python server's messages show one. */
const repr = (text: string): string => (text.includes("'") && !text.includes('"') ? `"${text}"` : `'${text.replace(/'/g, "\\'")}'`);

/** Python's `json.dumps(value, sort_keys=True)` of a flat object of strings and nulls. */
function pythonJson(value: Record<string, string | null>): string {
  const ascii = (text: string): string =>
    JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const members = Object.keys(value)
    .sort()
    .map((key) => `${ascii(key)}: ${value[key] === null ? "null" : ascii(value[key]!)}`);
  return `{${members.join(", ")}}`;
}

interface Agent {
  name: string;
  description: string;
  instructions: string;
  settings: string;
}

interface Links {
  related: AgentRequestObjectRef | undefined;
  retryOf: AgentRequestObjectRef | undefined;
  root: AgentRequestObjectRef | undefined;
  contexts: AgentContextSubjectRef[];
}

/** One admitted request, served under its reference. */
export class Request extends AgentRequest {
  readonly state: RequestState = {
    status: "pending",
    attempt: "",
    generation: 0,
    reason: "admitted",
    cancelRequested: false,
    retryCount: 0,
    notificationPending: false,
  };
  claimed = false;
  settled = false;
  published = false;
  spawnedCount = 0;
  readonly itemData = new Map<string, { ref: AgentItemObjectRef; data: ItemData }>();
  readonly questionRefs = new Map<string, AgentQuestionObjectRef>();

  constructor(
    readonly owner: Directory,
    readonly ref: AgentRequestObjectRef,
    readonly agent: AgentObjectRef,
    readonly threadRef: AgentThreadObjectRef,
    readonly data: RequestData,
    readonly links: Links,
    readonly optionalWork: boolean,
  ) {
    super();
  }

  get finished(): boolean {
    return this.state.endedAt !== undefined;
  }

  holds(attempt: string, generation: number): boolean {
    const state = this.state;
    return !this.finished && this.claimed && state.attempt === attempt && state.generation === generation;
  }

  private requireHolder(attempt: string, generation: number): void {
    if (!this.holds(attempt, generation)) {
      const { attempt: current, generation: now, status } = this.state;
      throw new RpcError(CONFLICT, `${this.ref} is not held by attempt ${repr(attempt)} at generation ${generation}`, {
        attempt: current,
        generation: now,
        status,
      });
    }
  }

  // Values and relations.
  override async spawned(): Promise<number> {
    return this.spawnedCount;
  }
  override async admission(): Promise<RequestData> {
    return this.data;
  }
  override async progress(): Promise<RequestState> {
    return this.state;
  }
  override async thread(): Promise<AgentThreadObjectRef> {
    return this.threadRef;
  }
  override async directory(): Promise<AgentDirectoryObjectRef> {
    return DIRECTORY_REF;
  }
  override async items(): Promise<readonly AgentItemObjectRef[]> {
    return [...this.itemData.values()].map((item) => item.ref);
  }
  override async questions(): Promise<readonly AgentQuestionObjectRef[]> {
    return [...this.questionRefs.values()];
  }
  override async contexts(): Promise<readonly AgentContextSubjectRef[]> {
    return this.links.contexts;
  }
  override async related(): Promise<AgentRequestObjectRef | null> {
    return this.links.related ?? null;
  }
  override async retryOf(): Promise<AgentRequestObjectRef | null> {
    return this.links.retryOf ?? null;
  }
  override async root(): Promise<AgentRequestObjectRef | null> {
    return this.links.root ?? null;
  }

  // The attempt's life.
  override async claim({ attempt, expectedGeneration, startedAt, recover }: AgentRequestClaimInput): Promise<AgentRequestClaimOutput> {
    const state = this.state;
    const held = this.claimed;
    if (this.finished || expectedGeneration !== state.generation || (held && !recover) || state.generation === MAX_GENERATION) {
      log(`${this.ref}: claim by ${repr(attempt)} refused (generation ${state.generation})`);
      return { claimed: false, generation: state.generation };
    }
    this.claimed = true;
    state.generation += 1;
    state.attempt = attempt;
    state.status = "running";
    state.reason = held ? "recovered" : "claimed";
    state.startedAt = startedAt;
    log(`${this.ref}: claimed by ${repr(attempt)} at generation ${state.generation}`);
    return { claimed: true, generation: state.generation };
  }

  override async transition({ attempt, generation, status, reason }: AgentRequestTransitionInput): Promise<boolean> {
    if (!this.holds(attempt, generation)) return false;
    Object.assign(this.state, { status, reason });
    return true;
  }

  override async finish(input: AgentRequestFinishInput): Promise<boolean> {
    if (!this.holds(input.attempt, input.generation)) return false;
    const { status, result, rawOutput, usage, reason, endedAt } = input;
    Object.assign(this.state, { status, result, rawOutput, usage, reason, endedAt });
    log(`${this.ref}: finished with status ${repr(status)}`);
    return true;
  }

  override async cancel(): Promise<boolean> {
    if (this.finished) return false;
    this.state.cancelRequested = true;
    if (!this.claimed) {
      // Nobody works on it yet, so nobody else would end it.
      Object.assign(this.state, { status: "cancelled", reason: "cancelled before it was claimed", endedAt: now() });
    }
    return true;
  }

  override async reserveChild(): Promise<boolean> {
    if (this.finished || this.state.cancelRequested || this.spawnedCount >= MAX_CHILDREN) return false;
    this.spawnedCount += 1;
    return true;
  }

  override async publishCompletion(): Promise<boolean> {
    if (!this.finished || this.published) return false;
    this.published = true;
    return true;
  }

  override async correct({ errors, maxCorrections, createdAt }: AgentRequestCorrectInput): Promise<AgentRequestObjectRef | null> {
    if (errors.length === 0 || !this.finished || this.state.retryCount >= maxCorrections) return null;
    const listing = errors.map((error) => `- ${error}`).join("\n");
    const submission: AgentSubmission = {
      text: `${this.data.text}\n\nCorrect these errors:\n${listing}`,
      sourceKind: "correction",
      sourceLabel: this.ref,
      createdAt,
      contexts: [...this.links.contexts].sort(),
      retryOf: this.ref,
      root: this.links.root ?? this.ref,
      causalDepth: this.data.causalDepth + 1,
    };
    if (this.data.data !== undefined) submission.data = this.data.data;
    const correction = this.owner.addRequest(this.agent, this.threadRef, submission, false);
    correction.state.retryCount = this.state.retryCount + 1;
    return correction.ref;
  }

  // What an attempt makes.
  override async steer({ attempt, generation, key, text, profile, createdAt }: AgentRequestSteerInput): Promise<AgentItemObjectRef> {
    this.requireHolder(attempt, generation);
    const existing = this.itemData.get(key)?.data;
    const data: ItemData = {
      key,
      kind: "steering",
      text,
      phase: "pending",
      sequence: this.owner.nextSequence(),
      version: existing !== undefined ? existing.version + 1n : 1n,
      createdAt: existing?.createdAt ?? createdAt,
      updatedAt: createdAt,
    };
    if (profile !== undefined) data.activity = profile;
    return this.storeItem(key, data);
  }

  override async upsertItem({ attempt, generation, data }: AgentRequestUpsertItemInput): Promise<AgentItemObjectRef> {
    this.requireHolder(attempt, generation);
    return this.storeItem(data.key, data);
  }

  private storeItem(key: string, data: ItemData): AgentItemObjectRef {
    const ref = `${this.ref}/item/${key}` as AgentItemObjectRef;
    this.itemData.set(key, { ref, data });
    return ref;
  }

  override async ask({ attempt, generation, key }: AgentRequestAskInput): Promise<AgentQuestionObjectRef> {
    this.requireHolder(attempt, generation);
    const ref = `${this.ref}/question/${key}` as AgentQuestionObjectRef;
    this.questionRefs.set(key, ref);
    return ref;
  }
}

/** The root object of one connection: agents, threads and the requests admitted. */
export class Directory extends AgentDirectory {
  readonly #agents = new Map<AgentObjectRef, Agent>();
  readonly #threads = new Map<AgentThreadObjectRef, AgentObjectRef>();
  readonly #requests = new Map<AgentRequestObjectRef, Request>();
  readonly #minted = new Map<string, number>();
  #sequence = 0n;
  #profiles = "";
  #availability = "available";
  #defaultAgent: AgentObjectRef | null = null;
  #initialThread: AgentThreadObjectRef | null = null;

  /** `peer`: the connection, on which admitted requests are registered. */
  constructor(readonly peer: Peer) {
    super();
  }

  #mint(kind: string): string {
    const number = (this.#minted.get(kind) ?? 0) + 1;
    this.#minted.set(kind, number);
    return `${kind}-${number}`;
  }

  nextSequence(): bigint {
    return ++this.#sequence;
  }

  #request(ref: AgentRequestObjectRef): Request {
    const request = this.#requests.get(ref);
    if (request === undefined) throw new RpcError(UNKNOWN_OBJECT, `Unknown request: ${ref}`, { request: ref });
    return request;
  }

  // Values and relations.
  override async data(): Promise<DirectoryData> {
    const pending = [...this.#requests.values()].filter((request) => !request.finished);
    return {
      sequence: this.#sequence,
      pending: pending.length,
      ordinaryPending: pending.filter((request) => !request.optionalWork).length,
      notificationPending: (await this.notifications()).length,
      profiles: this.#profiles,
      availability: this.#availability,
    };
  }
  override async agents(): Promise<readonly AgentObjectRef[]> {
    return [...this.#agents.keys()];
  }
  override async threads(): Promise<readonly AgentThreadObjectRef[]> {
    return [...this.#threads.keys()];
  }
  override async pending(): Promise<readonly AgentRequestObjectRef[]> {
    return [...this.#requests.values()].filter((request) => !request.finished).map((request) => request.ref);
  }
  override async notifications(): Promise<readonly AgentRequestObjectRef[]> {
    return [...this.#requests.values()].filter((request) => request.state.notificationPending).map((request) => request.ref);
  }
  override async defaultAgent(): Promise<AgentObjectRef | null> {
    return this.#defaultAgent;
  }
  override async initialThread(): Promise<AgentThreadObjectRef | null> {
    return this.#initialThread;
  }

  // Operations.
  override async createAgent({ name, description, instructions, settings }: AgentDirectoryCreateAgentInput): Promise<AgentObjectRef> {
    const ref = this.#mint("agent") as AgentObjectRef;
    this.#agents.set(ref, { name, description, instructions, settings });
    log(`created ${ref} (${name})`);
    return ref;
  }

  override async createThread({ agent }: AgentDirectoryCreateThreadInput): Promise<AgentThreadObjectRef> {
    if (!this.#agents.has(agent)) throw new RpcError(UNKNOWN_OBJECT, `Unknown agent: ${agent}`, { agent });
    return this.#addThread(agent);
  }

  #addThread(agent: AgentObjectRef): AgentThreadObjectRef {
    // Title, kind, creation time and contexts are not observable through the interface.
    const ref = this.#mint("thread") as AgentThreadObjectRef;
    this.#threads.set(ref, agent);
    log(`created ${ref} for ${agent}`);
    return ref;
  }

  override async initialize({ instructions, settings }: AgentDirectoryInitializeInput): Promise<void> {
    if (this.#defaultAgent === null) {
      const description = "The directory's default agent";
      this.#defaultAgent = await this.createAgent({ name: "default", description, instructions, settings });
    } else {
      Object.assign(this.#agents.get(this.#defaultAgent)!, { instructions, settings });
    }
    this.#initialThread ??= this.#addThread(this.#defaultAgent);
  }

  override async advertise({ profiles, availability }: AgentDirectoryAdvertiseInput): Promise<void> {
    this.#profiles = profiles;
    this.#availability = availability;
  }

  override async admit({ agent, thread, submission, optionalWork }: AgentDirectoryAdmitInput): Promise<AgentAdmission> {
    const refusal = this.#refusal(agent, thread, submission, optionalWork);
    if (refusal !== null) {
      log(`declined a submission for ${agent}: ${refusal}`);
      return { accepted: false, reason: refusal };
    }
    const on = thread ?? this.#addThread(agent);
    const request = this.addRequest(agent, on, submission, optionalWork);
    return { accepted: true, thread: on, request: request.ref };
  }

  #refusal(agent: AgentObjectRef, thread: AgentThreadObjectRef | undefined, submission: AgentSubmission, optionalWork: boolean): string | null {
    if (!this.#agents.has(agent)) return `unknown agent ${agent}`;
    if (thread !== undefined) {
      const owner = this.#threads.get(thread);
      if (owner === undefined) return `unknown thread ${thread}`;
      if (owner !== agent) return `${thread} belongs to ${owner}, not ${agent}`;
    }
    for (const [name, ref] of [["related", submission.related], ["retryOf", submission.retryOf], ["root", submission.root]] as const) {
      if (ref !== undefined && !this.#requests.has(ref)) return `unknown ${name} request ${ref}`;
    }
    if (optionalWork && this.#availability !== "available") return `optional work declined: the directory is ${this.#availability}`;
    return null;
  }

  /** Creates a request and serves it, on this directory's connection, under its reference. */
  addRequest(agent: AgentObjectRef, thread: AgentThreadObjectRef, submission: AgentSubmission, optionalWork: boolean): Request {
    const { instructions, settings } = this.#agents.get(agent)!;
    const configuration = pythonJson({ instructions, settings, profile: submission.profile ?? null });
    const data: RequestData = {
      text: submission.text,
      configuration,
      configurationDigest: createHash("sha256").update(configuration, "utf8").digest("hex"),
      responseKind: submission.response ?? "text",
      sequence: this.nextSequence(),
      createdAt: submission.createdAt,
      sourceKind: submission.sourceKind,
      sourceLabel: submission.sourceLabel,
      causalDepth: submission.causalDepth,
      interactive: submission.sourceKind === "user",
    };
    if (submission.data !== undefined) data.data = submission.data;
    if (submission.publication !== undefined) data.publication = submission.publication;
    const { related, retryOf, root } = submission;
    const links: Links = { related, retryOf, root, contexts: [...new Set(submission.contexts)] };
    const ref = this.#mint("request") as AgentRequestObjectRef;
    const request = new Request(this, ref, agent, thread, data, links, optionalWork);
    this.#requests.set(ref, request);
    this.peer.register(ref, request);
    log(`admitted ${ref} on ${thread}`);
    return request;
  }

  override async settle({ request, thread, notify }: AgentDirectorySettleInput): Promise<void> {
    const settled = this.#request(request);
    if (settled.threadRef !== thread) throw new RpcError(CONFLICT, `${request} is on ${settled.threadRef}, not on ${thread}`);
    if (!settled.finished) throw new RpcError(CONFLICT, `${request} has not finished`, { status: settled.state.status });
    settled.settled = true;
    settled.state.notificationPending = notify;
  }

  override async notificationSent(input: AgentRequestObjectRef): Promise<void> {
    this.#request(input).state.notificationPending = false;
  }
}

/** `HOST:PORT`, the host maybe an IPv6 address in brackets. */
function address(text: string): { host: string; port: number } {
  const at = text.lastIndexOf(":");
  let host = text.slice(0, at);
  const port = text.slice(at + 1);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (at < 0 || !host || !/^\d+$/.test(port) || Number(port) > 65535) {
    throw new Error(`expected HOST:PORT, got ${JSON.stringify(text)}`);
  }
  return { host, port: Number(port) };
}

/** Serves `root` (a directory per connection by default) as the command line says: stdio,
 * or WebSocket with `--listen HOST:PORT` (`--allow-origin ORIGIN`, repeatable: the browser
 * origins it admits, none by default); `--quiet` logs nothing but where it listens. */
export async function main(
  argv: readonly string[],
  root: (peer: Peer) => object = (peer) => new Directory(peer),
  options: PeerOptions = {},
): Promise<void> {
  let listen: { host: string; port: number } | undefined;
  const allowedOrigins: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--quiet") quiet = true;
    else if (arg === "--listen") listen = address(argv[++i] ?? "");
    else if (arg === "--allow-origin" && argv[i + 1] !== undefined) allowedOrigins.push(argv[++i]!);
    else throw new Error(`unknown argument ${JSON.stringify(arg)} (usage: [--listen HOST:PORT [--allow-origin ORIGIN]…] [--quiet])`);
  }
  if (listen === undefined) {
    await serveStdio(root, options);
    return;
  }
  const server = await serveWebSocket(root, { ...options, ...listen, allowedOrigins });
  // Printed even with --quiet: scripts and tests read it to learn the port (given 0).
  console.error(`quixos_server: listening on ${server.url}`);
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`quixos_server: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  });
}
