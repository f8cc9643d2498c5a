// The ordered worker's tracker on Node (see ../ordered.ts): AsyncLocalStorage follows a
// notification handler into everything it awaits and every task it starts, so the answer
// to any call it makes is delivered at once instead of behind the notifications it holds.

import { AsyncLocalStorage } from "node:async_hooks";
import type { ContextTracker } from "../ordered.js";

export function asyncTracker(): ContextTracker {
  const storage = new AsyncLocalStorage<true>();
  return {
    run: (body) => storage.run(true, body),
    inside: () => storage.getStore() === true,
    outside: (body) => storage.exit(body),
  };
}
