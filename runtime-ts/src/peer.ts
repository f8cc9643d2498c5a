// A JSON-RPC 2.0 peer (docs/wire.md): calls the other side and serves it, over any
// Transport. This module ties the others together and keeps what belongs to the connection
// as a whole: messages come in from the transport (framed by it) within the handler bound
// (§11: a backlog here), are classified and checked by ./inbound.ts, and come back as
// answers to this side's calls (./calls.ts, delivered behind earlier notifications, §13) or
// go to ./handling.ts, which serves requests and notifications; closing (§10) is here too.

import type { CallContext, CallOptions, Caller } from "./contract.js";
import { PendingCalls, type PendingCall } from "./calls.js";
import {
  CANCEL_METHOD,
  encodeNotification,
  encodeRequest,
  errorMessage,
  type RequestId,
} from "./envelope.js";
import { ConnectionClosed, ErrorCode, ProtocolError, RpcError, Unsupported } from "./errors.js";
import type { Incoming } from "./framing.js";
import { stringifyJson } from "./json.js";
import { Handling } from "./handling.js";
import { Inbound, type Receiver } from "./inbound.js";
import { OrderedWorker, synchronousTracker, type ContextTracker } from "./ordered.js";
import type { Transport } from "./transport.js";

export const DEFAULT_MAX_MESSAGE_SIZE = 50 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_HANDLERS = 1024;

export interface Logger {
  debug(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** The console, without debug: a stdio server's console writes to stderr, never stdout. */
export const consoleLogger: Logger = {
  debug: () => {},
  warn: (message, ...details) => console.warn(`idlc: ${message}`, ...details),
  error: (message, ...details) => console.error(`idlc: ${message}`, ...details),
};

export interface PeerOptions {
  /** The longest message accepted, in UTF-8 bytes (docs/wire.md §2, §8). */
  readonly maxMessageSize?: number;
  /** Incoming requests and notifications handled at once; at the bound the transport is
   * paused (docs/wire.md §11). */
  readonly maxConcurrentHandlers?: number;
  /** Notification methods (wire names) whose handlers run concurrently, each on its own,
   * instead of in order (docs/wire.md §13, "Opting out"). */
  readonly concurrentNotifications?: Iterable<string>;
  /** Handle batches (docs/wire.md §7); when false an array is answered with one -32600. */
  readonly acceptBatches?: boolean;
  /** Read `$target` to route calls to keyed objects (docs/wire.md §5). */
  readonly routeTargets?: boolean;
  /** Send a failing handler's stack in the -32603's data. */
  readonly debug?: boolean;
  /** At the end of input, how long (ms) running handlers get to answer before they are
   * aborted (docs/wire.md §10). */
  readonly finishOnEof?: number;
  /** Told of a notification whose params do not decode (docs/wire.md §4). */
  readonly onUndecodableNotification?: (method: string, params: unknown, error: RpcError) => void;
  readonly logger?: Logger;
  /** How to tell a notification handler's calls (see ContextTracker); the Node entry
   * gives one built on AsyncLocalStorage. */
  readonly contextTracker?: ContextTracker;
  /** Called with the method of every incoming request before it is looked up or its params
   * decoded; an `RpcError` it throws is the answer (docs/wire.md §4, "Admission"). */
  readonly admitRequest?: (method: string) => void;
  /** Answers the methods the served object does not declare (params without `$target`,
   * `undefined` when absent); its result is sent as is. Throwing `Unsupported` keeps the
   * usual -32601. Without one, they are -32601 (notifications: ignored). */
  readonly fallback?: (method: string, params: unknown, notify: boolean, context: CallContext) => unknown;
  /** Hand `fallback` also the members the object declares but does not implement. */
  readonly fallbackForUnimplemented?: boolean;
}

/** Per-call options of `Peer.request`: CallOptions, and the key of the object called. */
export interface PeerCallOptions extends CallOptions {
  /** Sent as `$target` in params (docs/wire.md §5). */
  readonly target?: string;
}

export class Peer implements Caller {
  private readonly maxMessageSize: number;
  private readonly maxHandlers: number;
  private readonly log: Logger;
  private readonly tracker: ContextTracker;
  private readonly worker: OrderedWorker;
  private readonly inbound: Inbound;
  private readonly calls = new PendingCalls();
  private readonly connection = new AbortController();
  private readonly handling: Handling;
  private active = 0;
  private paused = false;
  private started = false;
  private inputEnded = false;
  private closing = false;
  private resolveClosed!: () => void;
  /** Settled once the connection is closed and every handler has answered or stopped. */
  readonly closed: Promise<void>;

  constructor(
    private readonly transport: Transport,
    private readonly options: PeerOptions = {},
  ) {
    this.maxMessageSize = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
    this.maxHandlers = options.maxConcurrentHandlers ?? DEFAULT_MAX_CONCURRENT_HANDLERS;
    this.log = options.logger ?? consoleLogger;
    this.tracker = options.contextTracker ?? synchronousTracker();
    this.worker = new OrderedWorker(this.tracker, (error) => this.log.error("a notification handler failed", error));
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    // Closures rather than `this`: what Inbound and Handling call stays private to the peer.
    this.handling = new Handling(
      {
        caller: this,
        // Calls through it are known to be a notification handler's (§13).
        notificationCaller: {
          request: (method, params, callOptions) => this.call(method, params, callOptions, true),
          notify: (method, params) => this.notify(method, params),
        },
        connectionSignal: this.connection.signal,
        send: (answer) => this.send(answer),
        handlerStarted: () => this.handlerStarted(),
        handlerEnded: () => this.handlerEnded(),
      },
      this.worker,
      {
        routeTargets: options.routeTargets ?? true,
        concurrent: new Set(options.concurrentNotifications ?? []),
        debug: options.debug ?? false,
        log: this.log,
        admitRequest: options.admitRequest,
        fallback: options.fallback,
        fallbackForUnimplemented: options.fallbackForUnimplemented ?? false,
        onUndecodableNotification: options.onUndecodableNotification,
      },
    );
    const receiver: Receiver = {
      send: (answer) => this.send(answer),
      failCall: (id, error) => this.failCall(id, error),
      onResponse: (id, isError, result, error) => this.onResponse(id, isError, result, error),
      onNotification: (method, params) => this.handling.onNotification(method, params),
      onRequest: (id, method, params, batch) => this.handling.onRequest(id, method, params, batch),
    };
    this.inbound = new Inbound(receiver, {
      maxMessageSize: this.maxMessageSize,
      acceptBatches: options.acceptBatches ?? true,
      log: this.log,
    });
  }

  /** Starts reading. Serve the root (`serve`) before, so that no call finds nothing. */
  start(): this {
    if (this.started) return this;
    this.started = true;
    this.transport.start({
      message: (incoming) => this.take(incoming),
      end: (error) => this.take({ kind: "end", error }),
    });
    return this;
  }

  /** Serves `root` to calls without `$target`. */
  serve(root: object): this {
    this.handling.serve(root);
    return this;
  }

  /** Serves `object` to calls with `"$target": key` on this connection (docs/wire.md §5). */
  register(key: string, object: object): void {
    this.handling.register(key, object);
  }

  unregister(key: string): void {
    this.handling.unregister(key);
  }

  get isClosed(): boolean {
    return this.closing;
  }

  /** Calls `method` and resolves with its JSON result. Rejects with `RpcError`
   * (`Unsupported` for -32601), `ConnectionClosed`, or the abort reason of `options.signal`,
   * which also sends `$/cancel_request` (docs/wire.md §9). */
  request(method: string, params: unknown, options?: PeerCallOptions): Promise<unknown> {
    return this.call(method, params, options, this.tracker.inside());
  }

  /** Sends a notification; rejects with ConnectionClosed once the peer is closing. */
  async notify(method: string, params: unknown, options?: { readonly target?: string }): Promise<void> {
    if (this.closing) throw new ConnectionClosed("the connection is closed");
    const text = encodeNotification(method, withTarget(params, options?.target));
    await this.write(text);
  }

  /** Fails pending calls, aborts running handlers and closes the transport. */
  async close(): Promise<void> {
    this.shutDown(new ConnectionClosed("the connection is closed"));
    await this.closed;
  }

  // ------------------------------------------------------------------ calling

  private call(method: string, params: unknown, options: PeerCallOptions | undefined, exempt: boolean): Promise<unknown> {
    if (this.closing || this.inputEnded) {
      return Promise.reject(new ConnectionClosed(this.closing ? "the connection is closed" : "the connection ended"));
    }
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    let sent: unknown;
    try {
      sent = withTarget(params, options?.target);
    } catch (error) {
      return Promise.reject(error);
    }
    const { call, promise } = this.calls.open(method, exempt);
    let text: string;
    try {
      text = encodeRequest(call.id, method, sent);
    } catch (error) {
      this.calls.take(call.id);
      return Promise.reject(error); // params that cannot be written (a cycle, …)
    }
    if (signal !== undefined) {
      const onAbort = () => {
        if (this.calls.take(call.id) === undefined) return; // answered meanwhile
        if (!this.closing && !this.inputEnded) {
          this.write(encodeNotification(CANCEL_METHOD, { requestId: call.id })).catch(() => {});
        }
        call.reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const forget = () => signal.removeEventListener("abort", onAbort);
      promise.then(forget, forget);
    }
    this.write(text).catch((error) => {
      if (this.calls.take(call.id) !== undefined) {
        call.reject(error instanceof ConnectionClosed ? error : new ConnectionClosed(`the connection closed during ${method}`));
      }
    });
    return promise;
  }

  private async write(text: string): Promise<void> {
    if (this.closing) throw new ConnectionClosed("the connection is closed");
    try {
      await this.transport.send(text);
    } catch (error) {
      throw error instanceof ConnectionClosed ? error : new ConnectionClosed(String(error));
    }
  }

  /** Writes an answer (or a batch's array); a transport gone by now is no one's error. */
  private send(message: object): void {
    if (this.closing) return;
    let text: string;
    try {
      text = stringifyJson(message);
    } catch (error) {
      // A result that cannot be written (a cycle, a function): -32603 instead.
      this.log.error("an answer could not be encoded", error);
      const id = Array.isArray(message) ? null : ((message as { id?: RequestId | null }).id ?? null);
      text = stringifyJson(errorMessage(id, ErrorCode.INTERNAL_ERROR, "Internal error: the result could not be encoded"));
    }
    let sent: void | Promise<void>;
    try {
      sent = this.transport.send(text);
    } catch {
      return; // the transport is gone: nobody reads the answer
    }
    if (sent === undefined) return;
    // The transport's buffer is full: no more messages are taken until it drains, so a
    // reader that stops reading holds this side back instead of growing its memory.
    this.outputWaiting = true;
    this.updateReading();
    const drained = () => {
      this.outputWaiting = false;
      this.updateReading();
    };
    sent.then(drained, drained);
  }

  // ------------------------------------------------------------------ answers to our calls

  /** A response this side cannot read fails the call it names (docs/wire.md §8); for
   * ./inbound.ts. */
  private failCall(id: RequestId | null, error: ProtocolError): void {
    const call = id === null ? undefined : this.calls.take(id);
    if (call === undefined) {
      this.log.warn(`dropped: ${error.message}`);
      return;
    }
    this.deliver(call, () => call.reject(error));
  }



  private onResponse(id: RequestId | null, isError: boolean, result: unknown, error: unknown): void {
    if (id === null) {
      // The other side's answer to a message it could not read: names no call (§8).
      this.log.warn("response without an id", error ?? result);
      return;
    }
    const call = this.calls.take(id);
    if (call === undefined) {
      this.log.debug(`a response to no pending call: ${String(id)}`);
      return;
    }
    if (isError) {
      const shape = error as { code: number | bigint; message: string; data?: unknown };
      const code = Number(shape.code);
      const failure =
        code === ErrorCode.METHOD_NOT_FOUND
          ? new Unsupported(call.method, shape.message, shape.data)
          : new RpcError(code, shape.message, shape.data);
      this.deliver(call, () => call.reject(failure));
    } else {
      this.deliver(call, () => call.resolve(result));
    }
  }

  /** Resumes a caller after the notifications that arrived before its answer (§13), or at
   * once when the call is a notification handler's own (it holds those notifications). */
  private deliver(call: PendingCall, settle: () => void): void {
    if (call.exempt || !this.worker.busy) {
      settle();
      return;
    }
    this.worker.enqueue({ run: settle, abandon: () => call.reject(new ConnectionClosed("the connection is closed")) });
  }

  /** The handler bound (docs/wire.md §11): at it, the peer takes no more messages. */
  private handlerStarted(): void {
    this.active++;
    this.updateReading();
  }

  private handlerEnded(): void {
    this.active--;
    this.updateReading();
    if (this.active === 0) this.whenIdle?.();
  }

  /** Whether the peer may take the next message: under the handler bound, and not waiting
   * for its output to drain (§11: the writer waits before reading more). */
  private get accepting(): boolean {
    return this.active < this.maxHandlers && !this.outputWaiting;
  }

  /** Pauses or resumes the transport as `accepting` says, and takes the backlog. */
  private updateReading(): void {
    if (!this.accepting) {
      if (!this.paused) {
        this.paused = true;
        this.transport.pause?.();
      }
    } else if (this.backlog.length > 0) {
      this.scheduleBacklog();
    } else if (this.paused) {
      this.paused = false;
      this.transport.resume?.();
    }
  }

  /** A message taken from the transport: handled now, or, while the peer is not accepting
   * (or behind messages already waiting), kept in arrival order (docs/wire.md §11). A
   * transport delivers a whole read at once, and pausing it stops only the next reads: the
   * backlog holds the rest of this one. */
  private take(item: Incoming | { readonly kind: "end"; readonly error: unknown }): void {
    if (this.backlog.length > 0 || !this.accepting) {
      this.backlog.push(item);
      this.updateReading();
      return;
    }
    this.handle(item);
  }

  private handle(item: Incoming | { readonly kind: "end"; readonly error: unknown }): void {
    if (item.kind === "end") this.onEnd(item.error);
    else this.inbound.take(item);
  }

  private scheduleBacklog(): void {
    if (this.backlogScheduled) return;
    this.backlogScheduled = true;
    // Not from inside the handler's answer: the next message starts from a clean stack.
    queueMicrotask(() =>
      this.tracker.outside(() => {
        this.backlogScheduled = false;
        while (this.backlog.length > 0 && this.accepting && !this.closing) {
          this.handle(this.backlog.shift()!);
        }
        if (this.backlog.length === 0) this.updateReading();
      }),
    );
  }

  private readonly backlog: (Incoming | { readonly kind: "end"; readonly error: unknown })[] = [];
  private backlogScheduled = false;
  private outputWaiting = false;

  /** Set at the end of input: called once no handler runs any more. */
  private whenIdle: (() => void) | undefined;

  // ------------------------------------------------------------------ closing

  private onEnd(error?: unknown): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    if (error !== undefined) this.log.debug("the transport failed", error);
    // Calls waiting for an answer fail at once; answers already in, queued behind
    // notifications, are still delivered in order (§10, §13).
    this.calls.failAll(new ConnectionClosed("the connection ended"));
    if (this.closing) return;
    // Running handlers get `finishOnEof` to answer: the other side may still read.
    const finished = new Promise<void>((resolve) => {
      if (this.active === 0) resolve();
      else this.whenIdle = resolve;
    });
    const grace = this.options.finishOnEof ?? 2000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, grace)));
    void Promise.race([finished, timeout]).then(() => {
      clearTimeout(timer);
      this.shutDown(new ConnectionClosed("the connection ended"));
    });
  }

  private shutDown(error: ConnectionClosed): void {
    if (this.closing) return;
    this.closing = true;
    this.calls.failAll(error);
    this.worker.stop(error);
    this.connection.abort(error);
    this.handling.abortAll(error);
    void Promise.resolve()
      .then(() => this.transport.close())
      .catch((failure) => this.log.debug("closing the transport failed", failure))
      .finally(() => this.resolveClosed());
  }
}

/** Params with `"$target"` added first (docs/wire.md §5); a unit input sends only it. */
function withTarget(params: unknown, target: string | undefined): unknown {
  if (target === undefined) return params;
  if (params === undefined || params === null) return { $target: target };
  if (typeof params !== "object" || Array.isArray(params)) {
    throw new TypeError("params of a targeted call must be a JSON object");
  }
  return { $target: target, ...(params as Record<string, unknown>) };
}
