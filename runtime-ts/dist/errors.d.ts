/** The codes the runtime itself produces (docs/wire.md §6). */
export declare const ErrorCode: {
    readonly PARSE_ERROR: -32700;
    readonly INVALID_REQUEST: -32600;
    readonly METHOD_NOT_FOUND: -32601;
    readonly INVALID_PARAMS: -32602;
    readonly INTERNAL_ERROR: -32603;
    readonly REQUEST_CANCELLED: -32800;
    readonly UNKNOWN_TARGET: -32900;
};
/** A JSON-RPC error: throw it from a handler to answer with this code, message and data. */
export declare class RpcError extends Error {
    readonly code: number;
    readonly data: unknown;
    constructor(code: number, message: string, data?: unknown);
}
/** The member is not implemented: a skeleton's default body throws it (-32601). A caller
 * receives it for every -32601 answer. */
export declare class Unsupported extends RpcError {
    readonly method: string;
    constructor(method: string, message?: string, data?: unknown);
}
/** The remote answered, but not with something this side can accept (a result that does
 * not decode, a response over the size limit). Never sent. */
export declare class ProtocolError extends RpcError {
    constructor(message: string, data?: unknown);
}
/** The connection ended: calls pending or started afterwards reject with it. */
export declare class ConnectionClosed extends Error {
    constructor(message?: string);
}
/** A value does not decode into its type: `path` is where (`$.field[0]`), `reason` why.
 * Answered -32602 with `{path, reason}` as data when it comes from params. */
export declare class DecodeError extends Error {
    readonly path: string;
    readonly reason: string;
    constructor(path: string, reason: string);
}
