/** The runtime API this runtime serves, from OLDEST_API_VERSION to API_VERSION. It changes
 * only when generated code needs something new of the runtime, or the runtime drops
 * something older generated code uses. */
export declare const API_VERSION = 1;
export declare const OLDEST_API_VERSION = 1;
/** This package's release (its package.json's version). */
export declare const RUNTIME_VERSION = "0.1.0";
/** A generated package was written for a runtime API this runtime does not serve. */
export declare class RuntimeApiMismatch extends Error {
    readonly packageName: string;
    readonly version: number;
    constructor(packageName: string, version: number);
}
/** Fails the loading of generated `packageName`, written against runtime API `version`,
 * when this runtime does not serve that version; the error names both. */
export declare function requireApi(version: number, packageName: string): void;
/** The wire's error, with its JSON-RPC code and optional data (docs/wire.md §6). */
export interface ErrorShape {
    readonly code: number;
    readonly message: string;
    readonly data?: unknown;
}
/** Per-call options a proxy method takes as its last argument. */
export interface CallOptions {
    /** Aborting it sends `$/cancel_request` for the call (docs/wire.md §9); the call then
     * rejects with the abort's reason. */
    readonly signal?: AbortSignal;
}
/**
 * Anything a proxy can call through: a `Peer`, or a wrapper around one (so wrappers need
 * no cast). `params` is the JSON value of the message's `params`, `undefined` for none.
 */
export interface Caller {
    request(method: string, params: unknown, options?: CallOptions): Promise<unknown>;
    notify(method: string, params: unknown): Promise<void>;
}
/** How an operation's input travels in `params` (docs/wire.md §4). */
export type InputShape = "record" | "variant" | "unit" | "wrapped";
/** What a handler receives besides its input: the connection's peer and a signal aborted
 * when the request is cancelled (`$/cancel_request`) or the connection closes. */
export interface CallContext {
    readonly caller: Caller;
    readonly signal: AbortSignal;
    /** The `$target` key the call was routed by, `undefined` for the root. */
    readonly target: string | undefined;
}
/** One member of an interface, as the dispatch table holds it. */
export interface MethodSpec {
    /** The method name on the wire (the binding id). */
    readonly wire: string;
    /** The member's name in the IDL, which is the method's name on the skeleton. */
    readonly member: string;
    readonly shape: InputShape;
    /** A notification member (no answer) rather than a request. */
    readonly notify: boolean;
    /** `required` members are abstract on the skeleton; the others answer -32601 unless
     * overridden. */
    readonly required: boolean;
    /** Params as received (with `$target` already removed) → the handler's input; throws
     * `DecodeError` (answered -32602 with its path). `undefined` params for a unit input. */
    decodeParams(params: unknown): unknown;
    /** The handler's result → its JSON value (`null` for unit). */
    encodeResult(result: unknown): unknown;
    /** Calls the member on an implementation. */
    invoke(implementation: object, input: unknown, context: CallContext): Promise<unknown>;
}
/** An interface's descriptor; every skeleton class carries it as `static idlcInterface`. */
export interface InterfaceSpec {
    readonly name: string;
    readonly id: string;
    readonly revision: string;
    readonly methods: readonly MethodSpec[];
    /** The skeleton class: a member an implementation does not override is not provided
     * (answered -32601 without decoding its params, docs/wire.md §4). */
    readonly skeleton: abstract new (...args: never[]) => object;
}
