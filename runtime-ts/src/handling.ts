// Serving the other side: a request's object found by `$target` (docs/wire.md §5), its
// member in the dispatch tables (./dispatch.ts), its params decoded, its handler run on its
// own and answered once — with its result, its error, or -32800 when cancelled (§9); a
// notification's handler run in order on the ordered worker, or on its own for the methods
// that opted out (§13).

import type { Batch } from "./batch.js";
import type { CallContext, Caller } from "./contract.js";
import { tablesOf, type Entry } from "./dispatch.js";
import { CANCEL_METHOD, errorMessage, idKey, isRequestId, resultMessage, type RequestId } from "./envelope.js";
import { DecodeError, ErrorCode, RpcError, Unsupported } from "./errors.js";
import type { OrderedWorker } from "./ordered.js";

/** What handling needs of the peer. */
export interface HandlingHost {
  /** The connection, for request handlers' `context.caller`. */
  readonly caller: Caller;
  /** The connection as notification handlers call it: their calls' answers are not queued
   * behind the notifications they hold (§13). */
  readonly notificationCaller: Caller;
  /** Aborted when the connection closes: notification handlers' `context.signal`. */
  readonly connectionSignal: AbortSignal;
  send(answer: object): void;
  /** A handler started or ended: the peer keeps the handler bound (§11). */
  handlerStarted(): void;
  handlerEnded(): void;
}

export interface HandlingOptions {
  readonly routeTargets: boolean;
  readonly concurrent: ReadonlySet<string>;
  readonly debug: boolean;
  readonly log: {
    debug(message: string, ...details: unknown[]): void;
    warn(message: string, ...details: unknown[]): void;
    error(message: string, ...details: unknown[]): void;
  };
  readonly admitRequest: ((method: string) => void) | undefined;
  readonly fallback: ((method: string, params: unknown, notify: boolean, context: CallContext) => unknown) | undefined;
  readonly fallbackForUnimplemented: boolean;
  readonly onUndecodableNotification: ((method: string, params: unknown, error: RpcError) => void) | undefined;
}

interface Running {
  readonly controller: AbortController;
  answered: boolean;
  readonly answer: (message: object) => void;
}

const CANCELLED = Symbol("cancelled");

export class Handling {
  private readonly running = new Map<string, Running>();
  private readonly keyed = new Map<string, object>();
  private root: object | undefined;

  constructor(
    private readonly host: HandlingHost,
    private readonly worker: OrderedWorker,
    private readonly options: HandlingOptions,
  ) {}

  serve(root: object): void {
    this.root = root;
  }

  register(key: string, object: object): void {
    this.keyed.set(key, object);
  }

  unregister(key: string): void {
    this.keyed.delete(key);
  }

  /** The connection is closing: every running handler's signal aborts, and nothing they
   * answer afterwards is sent. */
  abortAll(error: Error): void {
    for (const state of this.running.values()) {
      state.answered = true;
      state.controller.abort(error);
    }
    this.running.clear();
  }

  /** The object a call is for and its params without `$target` (docs/wire.md §5). */
  private route(params: unknown): { object: object; params: unknown; target: string | undefined } {
    if (
      this.options.routeTargets &&
      params !== null &&
      typeof params === "object" &&
      !Array.isArray(params) &&
      Object.prototype.hasOwnProperty.call(params, "$target")
    ) {
      const { $target: target, ...rest } = params as Record<string, unknown>;
      if (typeof target !== "string") {
        const reason = "$target must be a string";
        throw new RpcError(ErrorCode.INVALID_PARAMS, `Invalid params: ${reason}`, { path: "$.$target", reason });
      }
      const object = this.keyed.get(target);
      if (object === undefined) {
        throw new RpcError(ErrorCode.UNKNOWN_TARGET, `Unknown target: ${target}`, { target });
      }
      return { object, params: rest, target };
    }
    if (this.root === undefined) throw new RpcError(ErrorCode.METHOD_NOT_FOUND, "Method not found: nothing is served");
    return { object: this.root, params, target: undefined };
  }

  private decode(entry: Entry, params: unknown): unknown {
    try {
      return entry.method.decodeParams(params);
    } catch (error) {
      if (error instanceof DecodeError) {
        throw new RpcError(ErrorCode.INVALID_PARAMS, `Invalid params: ${error.message}`, {
          path: error.path,
          reason: error.reason,
        });
      }
      throw error;
    }
  }

  onRequest(id: RequestId, method: string, params: unknown, batch: Batch | null): void {
    const key = idKey(id);
    if (this.running.has(key)) {
      const text = `Invalid request: id ${JSON.stringify(typeof id === "bigint" ? id.toString() : id)} is already in use`;
      const answer = errorMessage(id, ErrorCode.INVALID_REQUEST, text);
      if (batch !== null) batch.immediate(answer);
      else this.host.send(answer);
      return;
    }
    batch?.expect();
    const controller = new AbortController();
    const state: Running = {
      controller,
      answered: false,
      answer: (message) => {
        if (state.answered) return;
        state.answered = true;
        this.running.delete(key);
        this.host.handlerEnded();
        if (batch !== null) batch.answer(message);
        else this.host.send(message);
      },
    };
    this.running.set(key, state);
    this.host.handlerStarted();
    void this.runRequest(method, params, controller.signal).then(
      (result) => state.answer(resultMessage(id, result)),
      (error) => {
        // Cancelled (answered -32800 then) or closed (nothing is sent): not the handler's
        // failure, so not logged either.
        if (error === CANCELLED || state.answered) return;
        state.answer(this.errorAnswer(id, method, error));
      },
    );
  }

  private async runRequest(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    // Before anything else, so that every request is refused alike (docs/wire.md §4).
    this.options.admitRequest?.(method);
    const routed = this.route(params);
    const entry = tablesOf(routed.object).requests.get(method);
    const context: CallContext = { caller: this.host.caller, signal, target: routed.target };
    const fallback = this.options.fallback;
    if (fallback !== undefined && (entry === undefined || (!entry.provided && this.options.fallbackForUnimplemented))) {
      const result = await fallback(method, routed.params, false, context);
      if (signal.aborted) throw CANCELLED;
      return result;
    }
    if (entry === undefined) throw new RpcError(ErrorCode.METHOD_NOT_FOUND, `Method not found: ${method}`);
    // Not provided: -32601 without decoding its params (docs/wire.md §4).
    if (!entry.provided) throw new Unsupported(method, `Method not found: ${method}`);
    const input = this.decode(entry, routed.params);
    const result = await entry.method.invoke(routed.object, input, context);
    if (signal.aborted) throw CANCELLED;
    return entry.method.encodeResult(result);
  }

  private errorAnswer(id: RequestId, method: string, error: unknown): object {
    if (error instanceof RpcError) return errorMessage(id, error.code, error.message, error.data);
    this.options.log.error(`the handler of ${method} failed`, error);
    const data = this.options.debug && error instanceof Error ? { traceback: error.stack ?? String(error) } : undefined;
    return errorMessage(id, ErrorCode.INTERNAL_ERROR, "Internal error", data);
  }

  private onCancel(params: unknown): void {
    if (params === null || typeof params !== "object") return;
    const requestId = (params as { requestId?: unknown }).requestId;
    if (!isRequestId(requestId)) return; // a cancel that does not decode is ignored (§9)
    const state = this.running.get(idKey(requestId));
    if (state === undefined) return;
    // Answered now: a handler cannot be stopped from outside, only told (its signal). What
    // it returns afterwards is dropped, so there is still exactly one answer (§9).
    state.controller.abort(new RpcError(ErrorCode.REQUEST_CANCELLED, "Request cancelled"));
    state.answer(errorMessage(requestId, ErrorCode.REQUEST_CANCELLED, "Request cancelled"));
  }

  onNotification(method: string, params: unknown): void {
    if (method === CANCEL_METHOD) {
      // Never behind the ordered worker: a slow notification must not delay a cancel.
      this.onCancel(params);
      return;
    }
    let routed: { object: object; params: unknown; target: string | undefined };
    try {
      routed = this.route(params);
    } catch (error) {
      this.options.log.debug(`a notification ${method} names nothing served`, error);
      return;
    }
    const entry = tablesOf(routed.object).notifications.get(method);
    const context: CallContext = { caller: this.host.notificationCaller, signal: this.host.connectionSignal, target: routed.target };
    const fallback = this.options.fallback;
    if (fallback !== undefined && (entry === undefined || (!entry.provided && this.options.fallbackForUnimplemented))) {
      this.runNotification(method, () => fallback(method, routed.params, true, context));
      return;
    }
    if (entry === undefined || !entry.provided) {
      this.options.log.debug(`a notification not served: ${method}`);
      return;
    }
    let input: unknown;
    try {
      input = this.decode(entry, routed.params);
    } catch (error) {
      const failure = error instanceof RpcError ? error : new RpcError(ErrorCode.INVALID_PARAMS, String(error));
      const hook = this.options.onUndecodableNotification;
      if (hook === undefined) {
        this.options.log.warn(`a notification ${method} whose params do not decode: ${failure.message}`);
      } else {
        try {
          hook(method, routed.params, failure);
        } catch (hookError) {
          this.options.log.error("onUndecodableNotification failed", hookError);
        }
      }
      return;
    }
    this.runNotification(method, () => entry.method.invoke(routed.object, input, context));
  }

  /** A notification's handler: in order on the ordered worker, or on its own for the
   * methods that opted out (docs/wire.md §13). */
  private runNotification(method: string, run: () => unknown): void {
    this.host.handlerStarted();
    if (this.options.concurrent.has(method)) {
      // Opted out of ordering (§13): a task of its own, as a request is.
      void Promise.resolve()
        .then(run)
        .catch((error) => this.options.log.error(`the handler of ${method} failed`, error))
        .finally(() => this.host.handlerEnded());
      return;
    }
    this.worker.enqueue({
      run: async () => {
        try {
          await run();
        } finally {
          this.host.handlerEnded();
        }
      },
      abandon: () => this.host.handlerEnded(),
    });
  }
}
