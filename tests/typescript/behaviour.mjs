// The generated seed package at run time (compiled by tsc): what its proxies send and how
// they decode results, what its skeletons' dispatch tables do. The package: its
// compiled index.js (IDLC_SEEDS, default ./dist/seeds/index.js beside this file).
import assert from "node:assert/strict";
import { test } from "node:test";

import { DecodeError, ProtocolError, Unsupported } from "@idlc/runtime";

const seeds = await import(process.env.IDLC_SEEDS ?? "./dist/seeds/index.js");
const { AgentDirectory, AgentDirectoryProxy, AgentRequestProxy, ATOMS } = seeds;

function fakeCaller(results) {
  const sent = [];
  return {
    sent,
    async request(method, params, options) {
      sent.push({ method, params, options });
      return results.shift();
    },
    async notify(method, params) {
      sent.push({ method, params, notify: true });
    },
  };
}

test("a record input is the params object; $target is added when given", async () => {
  const caller = fakeCaller(["agent-1", "agent-2"]);
  const input = { name: "n", description: "d", instructions: "i", settings: "s" };
  assert.equal(await new AgentDirectoryProxy(caller).createAgent(input), "agent-1");
  const signal = new AbortController().signal;
  await new AgentDirectoryProxy(caller, "key").createAgent(input, { signal });
  assert.deepEqual(caller.sent[0], { method: "agent:directory:create-agent:call", params: input, options: undefined });
  assert.deepEqual(caller.sent[1].params, { ...input, $target: "key" });
  assert.equal(caller.sent[1].options.signal, signal);
});

test("another input travels as {input}, unit as no params", async () => {
  const caller = fakeCaller([null, null, true]);
  await new AgentDirectoryProxy(caller).notificationSent("r1");
  await new AgentDirectoryProxy(caller, "k").notificationSent("r2");
  assert.equal(await new AgentRequestProxy(caller).cancel(), true);
  assert.deepEqual(caller.sent[0].params, { input: "r1" });
  assert.deepEqual(caller.sent[1].params, { input: "r2", $target: "k" });
  assert.equal(caller.sent[2].params, undefined);
});

test("results are decoded: 64-bit integers as bigint, relations as Python reads them", async () => {
  const data = { sequence: 9007199254740993n, pending: 1, ordinaryPending: 2, notificationPending: 3, profiles: "p", availability: "a", extra: 1 };
  const caller = fakeCaller([data, ["a1", "a2"], null, "t1"]);
  const proxy = new AgentDirectoryProxy(caller);
  const { extra, ...declared } = data;
  assert.deepEqual(await proxy.data(), declared);
  assert.deepEqual(await proxy.agents(), ["a1", "a2"]);
  assert.equal(await proxy.defaultAgent(), null);
  assert.equal(await proxy.initialThread(), "t1");
});

test("a result that does not decode rejects with ProtocolError", async () => {
  const caller = fakeCaller([{ sequence: -1 }, ["a", "a"], 7]);
  const proxy = new AgentDirectoryProxy(caller);
  await assert.rejects(proxy.data(), (error) => error instanceof ProtocolError && error.data.path === "$.sequence");
  await assert.rejects(proxy.agents(), (error) => error instanceof ProtocolError && error.data.path === "$[1]");
  await assert.rejects(proxy.createAgent({ name: "", description: "", instructions: "", settings: "" }), ProtocolError);
});

test("the skeleton's dispatch table decodes params, encodes results, invokes members", async () => {
  const spec = AgentDirectory.idlcInterface;
  assert.equal(spec.id, AgentDirectory.INTERFACE_ID);
  assert.equal(spec.revision, "interface:org.quixos.agent:directory@1");
  assert.equal(spec.skeleton, AgentDirectory);
  const byMember = Object.fromEntries(spec.methods.map((method) => [method.member, method]));
  const create = byMember.createAgent;
  assert.equal(create.wire, "agent:directory:create-agent:call");
  assert.equal(create.shape, "record");
  assert.throws(() => create.decodeParams({ name: 1 }), (error) => error instanceof DecodeError && error.path === "$.name");
  assert.deepEqual(create.decodeParams({ name: "n", description: "d", instructions: "i", settings: "s", x: 1 }), { name: "n", description: "d", instructions: "i", settings: "s" });
  assert.equal(byMember.notificationSent.shape, "wrapped");
  assert.equal(byMember.notificationSent.decodeParams({ input: "r" }), "r");
  assert.equal(byMember.data.encodeResult({ sequence: 5n, pending: 1, ordinaryPending: 2, notificationPending: 3, profiles: "", availability: "" }).sequence, 5n);
  assert.equal(byMember.settle.encodeResult(undefined), null);

  class Directory extends AgentDirectory {
    async createAgent(input, context) {
      return `${input.name}@${context.target}`;
    }
  }
  const context = { caller: fakeCaller([]), signal: new AbortController().signal, target: "k" };
  const implementation = new Directory();
  assert.equal(await create.invoke(implementation, create.decodeParams({ name: "n", description: "", instructions: "", settings: "" }), context), "n@k");
  await assert.rejects(byMember.data.invoke(implementation, undefined, context), (error) => error instanceof Unsupported && error.method === "agent:directory:data:get" && error.code === -32601);
  assert.equal(Object.getPrototypeOf(implementation).createAgent === AgentDirectory.prototype.createAgent, false);
  assert.equal(implementation.data, AgentDirectory.prototype.data);
});

test("ATOMS lists the package's atoms by IDL name", () => {
  assert.equal(ATOMS.AgentObject, "atom:org.quixos.agent:agent");
  assert.equal(Object.keys(ATOMS).length, 7);
});
