// The ordered worker (runtime-ts/src/ordered.ts, docs/wire.md §13).
import assert from "node:assert/strict";
import { test } from "node:test";
import { OrderedWorker, synchronousTracker } from "../../../../runtime-ts/dist/index.js";
import { asyncTracker } from "../../../../runtime-ts/dist/node/index.js";

function gate() {
  let open;
  const promise = new Promise((resolve) => (open = resolve));
  return { promise, open };
}

test("jobs run one after another in order, whatever they await", async () => {
  const errors = [];
  const worker = new OrderedWorker(synchronousTracker(), (error) => errors.push(error));
  const log = [];
  const first = gate();
  const done = gate();
  worker.enqueue({ run: async () => { log.push("1 start"); await first.promise; log.push("1 end"); } });
  worker.enqueue({ run: () => log.push("2") });
  worker.enqueue({ run: async () => { throw new Error("a failing handler"); } });
  worker.enqueue({ run: () => { log.push("4"); done.open(); } });
  assert.equal(worker.busy, true);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(log, ["1 start"]); // 2 waits behind 1
  first.open();
  await done.promise;
  assert.deepEqual(log, ["1 start", "1 end", "2", "4"]);
  assert.equal(errors.length, 1); // logged, and the next job still ran
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(worker.busy, false);
});

test("stopping abandons the jobs not started", async () => {
  const worker = new OrderedWorker(synchronousTracker(), () => {});
  const hold = gate();
  const abandoned = [];
  worker.enqueue({ run: () => hold.promise });
  worker.enqueue({ run: () => assert.fail("must not run"), abandon: (error) => abandoned.push(error.message) });
  worker.stop(new Error("closed"));
  worker.enqueue({ run: () => assert.fail("must not run"), abandon: () => abandoned.push("late") });
  hold.open();
  await hold.promise;
  assert.deepEqual(abandoned, ["closed", "late"]);
});

test("the synchronous tracker sees a job's synchronous part only", async () => {
  const tracker = synchronousTracker();
  const worker = new OrderedWorker(tracker, () => {});
  const seen = [];
  const done = gate();
  worker.enqueue({
    run: async () => {
      seen.push(tracker.inside());
      await null;
      seen.push(tracker.inside());
      done.open();
    },
  });
  await done.promise;
  assert.deepEqual(seen, [true, false]);
  assert.equal(tracker.inside(), false);
});

test("Node's tracker follows a job into what it awaits and the tasks it starts", async () => {
  const tracker = asyncTracker();
  const worker = new OrderedWorker(tracker, () => {});
  const seen = [];
  const done = gate();
  worker.enqueue({
    run: async () => {
      seen.push(tracker.inside());
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen.push(tracker.inside());
      setImmediate(() => {
        seen.push(tracker.inside());
        done.open();
      });
    },
  });
  await done.promise;
  assert.deepEqual(seen, [true, true, true]);
  assert.equal(tracker.inside(), false);
});

test("outside() leaves a handler's context, for both trackers", async () => {
  for (const tracker of [synchronousTracker(), asyncTracker()]) {
    const seen = await tracker.run(async () => [tracker.inside(), tracker.outside(() => tracker.inside()), tracker.inside()]);
    assert.deepEqual(seen, [true, false, true]);
  }
});
