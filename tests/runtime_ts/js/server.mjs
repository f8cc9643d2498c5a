// A Node server of runtime-ts for the Python client tests (tests/runtime_ts/test_node_server.py).
// Its interfaces are written by hand (./interface.mjs), as the generator will write them.
//   node server.mjs stdio [--max BYTES] [--concurrent METHOD] [--no-batches] [--max-handlers N]
//   node server.mjs ws [the same options] [--origin ORIGIN] [--token T] [--max-connections N]   (prints "listening on ws://…" on stderr)
import { RpcError } from "../../../runtime-ts/dist/index.js";
import { serveStdio, serveWebSocket } from "../../../runtime-ts/dist/node/index.js";
import { defineInterface, record, unit } from "./interface.mjs";

const args = process.argv.slice(2);
const mode = args[0];
const option = (name) => {
  const index = args.indexOf(name);
  return index < 0 ? undefined : args[index + 1];
};
const options = {};
if (option("--max") !== undefined) options.maxMessageSize = Number(option("--max"));
if (option("--concurrent") !== undefined) options.concurrentNotifications = [option("--concurrent")];
if (args.includes("--no-batches")) options.acceptBatches = false;
if (option("--max-handlers") !== undefined) options.maxConcurrentHandlers = Number(option("--max-handlers"));

const Test = defineInterface("Test", [
  { wire: "test:echo", member: "echo", decode: record({ text: "string" }) },
  { wire: "test:add", member: "add", decode: record({ a: "int", b: "int" }) },
  { wire: "test:unprovided", member: "unprovided", decode: record({ text: "string" }) },
  { wire: "test:required", member: "required", required: true, shape: "unit" },
  { wire: "test:fail", member: "fail", shape: "unit" },
  { wire: "test:app-error", member: "appError", shape: "unit" },
  { wire: "test:slow", member: "slow", shape: "unit" },
  { wire: "test:sleep", member: "sleep", decode: record({ ms: "int" }) },
  { wire: "test:was-cancelled", member: "wasCancelled", shape: "unit" },
  { wire: "test:open", member: "open", decode: record({ key: "string" }) },
  { wire: "test:log", member: "log", notify: true, decode: record({ n: "int" }) },
  { wire: "test:log-call", member: "logCall", notify: true, decode: record({ n: "int" }) },
  { wire: "test:ignored", member: "ignored", notify: true, decode: record({ n: "int" }) },
  { wire: "test:state", member: "state", shape: "unit" },
  { wire: "test:release", member: "release", shape: "unit" },
  { wire: "test:wait-logged", member: "waitLogged", decode: record({ count: "int" }) },
]);

const Counter = defineInterface("Counter", [
  { wire: "counter:get", member: "get", shape: "unit" },
  { wire: "counter:bump", member: "bump", shape: "unit" },
]);

class CounterService extends Counter {
  value = 0;
  async get() {
    return this.value;
  }
  async bump() {
    return ++this.value;
  }
}

/** A promise with its resolve function. */
function signal() {
  let resolve;
  const promise = new Promise((done) => (resolve = done));
  return { promise, resolve };
}

const within = (promise, ms) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve("timed out"), ms).unref())]);

class TestService extends Test {
  constructor(peer) {
    super();
    this.peer = peer;
    this.cancelled = signal();
    this.gate = signal();
    this.started = [];
    this.handled = [];
    this.changed = signal();
  }
  async echo({ text }) {
    return text;
  }
  async add({ a, b }) {
    const sum = BigInt(a) + BigInt(b);
    return Number.isSafeInteger(Number(sum)) ? Number(sum) : sum;
  }
  // `unprovided` is left to the skeleton: -32601 without decoding its params.
  async required() {
    return "yes";
  }
  async fail() {
    throw new Error("a bug");
  }
  async appError() {
    throw new RpcError(4009, "Conflict", { why: "stale" });
  }
  slow(_input, context) {
    return new Promise((_resolve, reject) => {
      context.signal.addEventListener("abort", () => {
        this.cancelled.resolve(true);
        reject(context.signal.reason);
      });
    });
  }
  async sleep({ ms }) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return ms;
  }
  async wasCancelled() {
    return (await within(this.cancelled.promise, 10_000)) === true;
  }
  async open({ key }) {
    this.peer.register(key, new CounterService());
    return key;
  }
  // The first notification waits for test:release: the later ones wait behind it.
  async log({ n }) {
    this.started.push(n);
    if (n === 0) await this.gate.promise;
    this.done(n);
  }
  // Calls the other side from a notification handler, once through the handler's own
  // context and once through the connection's peer: neither answer may wait behind the
  // notification that is waiting for it (docs/wire.md §13, "No deadlock").
  async logCall({ n }, context) {
    this.started.push(n);
    const first = await context.caller.request("client:ping", { n });
    const second = await this.peer.request("client:ping", { n });
    this.done(`${n}:${first}:${second}`);
  }
  done(entry) {
    this.handled.push(entry);
    const changed = this.changed;
    this.changed = signal();
    changed.resolve();
  }
  async state() {
    return { started: this.started, handled: this.handled };
  }
  async release() {
    this.gate.resolve();
    return true;
  }
  async waitLogged({ count }) {
    while (this.handled.length < count) {
      if ((await within(this.changed.promise, 10_000)) === "timed out") break;
    }
    return this.handled;
  }
}

if (mode === "stdio") {
  await serveStdio((peer) => new TestService(peer), options);
} else {
  const origin = option("--origin");
  const token = option("--token");
  const most = option("--max-connections");
  const server = await serveWebSocket((peer) => new TestService(peer), {
    ...options,
    ...(origin === undefined ? {} : { allowedOrigins: [origin] }),
    ...(token === undefined ? {} : { bearerToken: token }),
    ...(most === undefined ? {} : { maxConnections: Number(most) }),
  });
  console.error(`listening on ${server.url}`);
  process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
}
