// The connection's ordered worker (docs/wire.md §13): notification handlers run one after
// another in the order their notifications arrived, and an answer to one of this side's
// calls waits behind the notifications that arrived before it. Both are jobs of one queue;
// a job that resumes a caller is only a function call, so it costs the queue nothing.

/** Tells whether code runs inside a notification handler (or something it started), so
 * that the answer to a call it makes is not queued behind the notifications it holds back
 * (the "no deadlock" rule of §13). Node has AsyncLocalStorage for that ("@idlc/runtime/node"
 * passes one); a browser has no such thing, so the default sees only the handler's
 * synchronous part, and calls made through the handler's `context.caller` are always known. */
export interface ContextTracker {
  run<T>(body: () => T): T;
  inside(): boolean;
  /** Runs `body` outside any handler's context: messages taken from the backlog when a
   * notification handler ends are not that handler's. */
  outside<T>(body: () => T): T;
}

/** The browser's tracker: a call made before the handler's first `await` is seen. */
export function synchronousTracker(): ContextTracker {
  let depth = 0;
  return {
    run<T>(body: () => T): T {
      depth++;
      try {
        return body();
      } finally {
        depth--;
      }
    },
    inside: () => depth > 0,
    outside<T>(body: () => T): T {
      const saved = depth;
      depth = 0;
      try {
        return body();
      } finally {
        depth = saved;
      }
    },
  };
}

export interface Job {
  run(): unknown;
  /** The connection closed before the job ran. */
  abandon?(error: Error): void;
}

export class OrderedWorker {
  private readonly queue: Job[] = [];
  private running = false;
  private stopped = false;

  constructor(
    private readonly tracker: ContextTracker,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A job is running or waiting: an answer arriving now must wait its turn. */
  get busy(): boolean {
    return this.running || this.queue.length > 0;
  }

  enqueue(job: Job): void {
    if (this.stopped) {
      job.abandon?.(new Error("worker stopped"));
      return;
    }
    this.queue.push(job);
    if (!this.running) void this.drain();
  }

  /** Abandons every job not started yet: the connection is closing. */
  stop(error: Error): void {
    this.stopped = true;
    for (const job of this.queue.splice(0)) job.abandon?.(error);
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let job = this.queue.shift(); job !== undefined; job = this.queue.shift()) {
        try {
          // Only the job runs in the tracker's context: this loop's own awaits do not.
          await this.tracker.run(() => job!.run());
        } catch (error) {
          // A handler that throws is logged and does not stop the next one (§13).
          this.onError(error);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
