// The peer over memory and over a real child process (runtime-ts/src/peer.ts): ordering of
// answers behind notifications (docs/wire.md §13), cancellation (§9) and closing (§10).
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConnectionClosed, RpcError, Unsupported, memoryPair } from "../../../../runtime-ts/dist/index.js";
import { spawn } from "../../../../runtime-ts/dist/node/index.js";
import { defineInterface, record } from "../interface.mjs";

function gate() {
  let open;
  const promise = new Promise((resolve) => (open = resolve));
  return { promise, open };
}

const Client = defineInterface("Client", [
  { wire: "cl:note", member: "note", notify: true, decode: record({ n: "int" }) },
  { wire: "cl:after", member: "after", notify: true },
]);
const Service = defineInterface("Service", [
  { wire: "svc:run", member: "run", shape: "unit" },
  { wire: "svc:slow", member: "slow", shape: "unit" },
  { wire: "svc:left", member: "left", shape: "unit" },
]);

test("an answer resumes its caller only after the notifications before it", async () => {
  const held = gate();
  const after = gate();
  const handled = [];
  class ClientImpl extends Client {
    async note({ n }) {
      if (n === 0) await held.promise;
      if (n === 1) throw new Error("a failing handler does not stop the next");
      handled.push(n);
    }
    async after() {
      after.open();
    }
  }
  class ServiceImpl extends Service {
    async run(_input, context) {
      for (const n of [0, 1, 2]) await context.caller.notify("cl:note", { n });
      // Sent after the answer: when it is handled (concurrently), the answer is in.
      setTimeout(() => void context.caller.notify("cl:after", undefined), 0);
      return "done";
    }
  }
  const quiet = { debug() {}, warn() {}, error() {} };
  const [client, server] = memoryPair(
    [new ClientImpl(), new ServiceImpl()],
    [{ concurrentNotifications: ["cl:after"], logger: quiet }, {}],
  );
  let settled = false;
  const answer = client.request("svc:run", undefined).then((result) => {
    settled = true;
    return result;
  });
  await after.promise;
  assert.equal(settled, false, "the answer came in, but waits behind notification 0");
  held.open();
  assert.equal(await answer, "done");
  assert.deepEqual(handled, [0, 2]);
  await client.close();
  await server.closed;
});

test("aborting a call sends $/cancel_request: the handler's signal aborts", async () => {
  const aborted = gate();
  class ServiceImpl extends Service {
    slow(_input, context) {
      return new Promise(() => context.signal.addEventListener("abort", () => aborted.open(context.signal.reason)));
    }
  }
  const [client, server] = memoryPair([undefined, new ServiceImpl()]);
  const controller = new AbortController();
  const call = client.request("svc:slow", undefined, { signal: controller.signal });
  await new Promise((resolve) => setTimeout(resolve, 0)); // the request is on its way
  controller.abort(new Error("stop"));
  await assert.rejects(call, { message: "stop" });
  const reason = await aborted.promise;
  assert.ok(reason instanceof RpcError && reason.code === -32800);
  await client.close();
  await server.closed;
});

test("keyed objects, unprovided members, closing", async () => {
  class ServiceImpl extends Service {
    async run(_input, context) {
      return context.target ?? "root";
    }
  }
  const [client, server] = memoryPair([undefined, new ServiceImpl()]);
  server.register("k", new ServiceImpl());
  assert.equal(await client.request("svc:run", undefined), "root");
  assert.equal(await client.request("svc:run", undefined, { target: "k" }), "k");
  await assert.rejects(client.request("svc:left", {}), Unsupported);
  await assert.rejects(client.request("svc:run", undefined, { target: "nope" }), { code: -32900, data: { target: "nope" } });
  const pending = client.request("svc:slow", undefined);
  await client.close();
  await assert.rejects(pending, ConnectionClosed);
  await assert.rejects(client.request("svc:run", undefined), ConnectionClosed);
  await assert.rejects(client.notify("cl:note", { n: 1 }), ConnectionClosed);
  await server.closed; // the other side saw the end of its input
});

test("the end of input fails pending calls with ConnectionClosed; the child is gone", async () => {
  // A child that reads one line and exits without answering.
  const child = spawn(process.execPath, ["-e", "process.stdin.once('data', () => process.exit(0))"]);
  await assert.rejects(child.request("anything", {}), ConnectionClosed);
  await child.closed;
  await assert.rejects(child.request("anything", {}), ConnectionClosed);
});

test("closing a spawned peer closes the child's stdin and waits for it", async () => {
  const child = spawn(process.execPath, ["-e", "process.stdin.resume(); process.stdin.on('end', () => process.exit(0))"]);
  await child.close();
  await child.closed;
});

test("admitRequest refuses every request alike, before lookup or decoding", async () => {
  class ServiceImpl extends Service {
    async run() {
      return "ran";
    }
  }
  let open = false;
  const admitRequest = (method) => {
    if (!open) throw new RpcError(-32000, "Authentication required", { method });
  };
  const [client, server] = memoryPair([undefined, new ServiceImpl()], [{}, { admitRequest }]);
  for (const method of ["svc:run", "svc:left", "no:such"]) {
    await assert.rejects(client.request(method, { bad: 1 }), { code: -32000, data: { method } });
  }
  open = true;
  assert.equal(await client.request("svc:run", undefined), "ran");
  await client.close();
  await server.closed;
});

test("fallback answers undeclared methods (and, when told, unimplemented ones)", async () => {
  const notes = [];
  const done = gate();
  const fallback = async (method, params, notify, context) => {
    if (notify) {
      notes.push([method, params, context.target]);
      done.open();
      return undefined;
    }
    if (method === "ext:refuse") throw new Unsupported(method);
    return { method, params, target: context.target ?? null };
  };
  class ServiceImpl extends Service {}
  const [client, server] = memoryPair(
    [undefined, new ServiceImpl()],
    [{}, { fallback, fallbackForUnimplemented: true }],
  );
  server.register("k", new ServiceImpl());
  assert.deepEqual(await client.request("ext:thing", { a: 1 }), { method: "ext:thing", params: { a: 1 }, target: null });
  assert.deepEqual(await client.request("svc:left", undefined, { target: "k" }), { method: "svc:left", params: {}, target: "k" });
  await assert.rejects(client.request("ext:refuse", {}), Unsupported);
  await client.notify("ext:note", { n: 1 });
  await done.promise;
  assert.deepEqual(notes, [["ext:note", { n: 1 }, undefined]]);
  await client.close();
  await server.closed;
});

test("a notification whose params do not decode goes to onUndecodableNotification", async () => {
  const told = gate();
  const Notes = defineInterface("Notes", [{ wire: "n:note", member: "note", notify: true, decode: record({ n: "int" }) }]);
  class NotesImpl extends Notes {
    async note() {
      assert.fail("must not run");
    }
  }
  const onUndecodableNotification = (method, params, error) => told.open({ method, params, code: error.code, data: error.data });
  const [client, server] = memoryPair([undefined, new NotesImpl()], [{}, { onUndecodableNotification }]);
  await client.notify("n:note", { n: "one" });
  assert.deepEqual(await told.promise, { method: "n:note", params: { n: "one" }, code: -32602, data: { path: "$.n", reason: "Expected `int`, got `string`" } });
  await client.close();
  await server.closed;
});

test("a child that cannot start ends the connection: calls reject with ConnectionClosed", async () => {
  const child = spawn("/nonexistent/idlc-test-command", []);
  await assert.rejects(child.request("anything", {}), ConnectionClosed);
  await child.closed;
});
