// This side's calls waiting for their answers, numbered from 1 (docs/wire.md §3).

import { ConnectionClosed } from "./errors.js";
import { idKey, type RequestId } from "./envelope.js";

export interface PendingCall {
  readonly id: number;
  readonly method: string;
  /** Made inside a notification handler: its answer is not queued behind notifications
   * (docs/wire.md §13, "No deadlock"). */
  readonly exempt: boolean;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

export class PendingCalls {
  private next = 1;
  private readonly pending = new Map<string, PendingCall>();

  open(method: string, exempt: boolean): { call: PendingCall; promise: Promise<unknown> } {
    const id = this.next++;
    let call!: PendingCall;
    const promise = new Promise<unknown>((resolve, reject) => {
      call = { id, method, exempt, resolve, reject };
    });
    this.pending.set(idKey(id), call);
    return { call, promise };
  }

  /** The call `id` answers, no longer pending; `undefined` if there is none. */
  take(id: RequestId): PendingCall | undefined {
    const key = idKey(id);
    const call = this.pending.get(key);
    if (call !== undefined) this.pending.delete(key);
    return call;
  }

  get size(): number {
    return this.pending.size;
  }

  failAll(error: ConnectionClosed): void {
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const call of calls) call.reject(error);
  }
}
