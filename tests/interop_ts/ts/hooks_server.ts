// examples/quixos_server.ts with test hooks, for tests/interop_ts: its `Directory` plus one
// more interface, written by hand (an `InterfaceSpec` as generated code writes one), on the
// same root object:
//
// - `test:slow` tells the caller `test:started`, then waits until it is cancelled;
//   `test:was-cancelled` answers whether it was (within 10 s): the Python caller cancelling
//   its task aborts `context.signal`.
// - `test:cancel-python` calls the caller's `test:py-slow` with an AbortSignal and answers
//   how that call ended; `test:abort` (which the Python handler of `test:py-slow` calls once
//   it runs) aborts it: the Node side cancelling its own call to Python.
//
//     node hooks_server.js [--listen HOST:PORT] [--quiet]
import { type CallContext, type InterfaceSpec, type MethodSpec, type Peer } from "@idlc/runtime/node";
import { Directory, main } from "./quixos_server.js";

let markCancelled: () => void = () => undefined;
const cancelled = new Promise<true>((resolve) => (markCancelled = () => resolve(true)));
let pythonCall: AbortController | undefined;

type Hook = "testSlow" | "testWasCancelled" | "testCancelPython" | "testAbort";

/** One hook: a method of `HookedDirectory` named `member` (the peer serves what the object
 * defines), without params. */
function hook(wire: string, member: Hook): MethodSpec {
  return {
    wire,
    member,
    shape: "unit",
    notify: false,
    required: false,
    decodeParams: () => undefined,
    encodeResult: (result) => result ?? null,
    invoke: (implementation, _input, context) => (implementation as HookedDirectory)[member](context),
  };
}

class HookedDirectory extends Directory {
  static override readonly idlcInterface: InterfaceSpec = {
    name: "TestHooks",
    id: "test:hooks",
    revision: "test:hooks@1",
    skeleton: class {},
    methods: [
      hook("test:slow", "testSlow"),
      hook("test:was-cancelled", "testWasCancelled"),
      hook("test:cancel-python", "testCancelPython"),
      hook("test:abort", "testAbort"),
    ],
  };

  async testSlow(context: CallContext): Promise<string> {
    await context.caller.notify("test:started", {}); // the caller may cancel it now
    await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
    markCancelled();
    return "too late";
  }

  async testWasCancelled(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000)));
    const answer = await Promise.race([cancelled, late]);
    clearTimeout(timer);
    return answer;
  }

  async testCancelPython(context: CallContext): Promise<object> {
    pythonCall = new AbortController();
    try {
      return { answered: await context.caller.request("test:py-slow", {}, { signal: pythonCall.signal }) };
    } catch (error) {
      return { rejected: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
  }

  async testAbort(): Promise<boolean> {
    pythonCall?.abort(new Error("Node no longer wants it"));
    return pythonCall !== undefined;
  }
}

await main(process.argv.slice(2), (peer: Peer) => new HookedDirectory(peer));
