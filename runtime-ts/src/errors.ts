// The errors that travel over the wire (docs/wire.md §6), as in the Python runtime
// (runtime/idlc_runtime/errors.py): handlers throw them, and a caller gets the same classes
// back, so `instanceof Unsupported` reads the same on both ends.

/** The codes the runtime itself produces (docs/wire.md §6). */
export const ErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  REQUEST_CANCELLED: -32800,
  UNKNOWN_TARGET: -32900,
} as const;

/** A JSON-RPC error: throw it from a handler to answer with this code, message and data. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.data = data;
  }
}

/** The member is not implemented: a skeleton's default body throws it (-32601). A caller
 * receives it for every -32601 answer. */
export class Unsupported extends RpcError {
  readonly method: string;

  constructor(method: string, message?: string, data?: unknown) {
    super(ErrorCode.METHOD_NOT_FOUND, message ?? `Method not supported: ${method}`, data);
    this.method = method;
  }
}

/** The remote answered, but not with something this side can accept (a result that does
 * not decode, a response over the size limit). Never sent. */
export class ProtocolError extends RpcError {
  constructor(message: string, data?: unknown) {
    super(ErrorCode.INTERNAL_ERROR, message, data);
  }
}

/** The connection ended: calls pending or started afterwards reject with it. */
export class ConnectionClosed extends Error {
  constructor(message = "connection closed") {
    super(message);
    this.name = "ConnectionClosed";
  }
}

/** A value does not decode into its type: `path` is where (`$.field[0]`), `reason` why.
 * Answered -32602 with `{path, reason}` as data when it comes from params. */
export class DecodeError extends Error {
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`${reason} - at \`${path}\``);
    this.name = "DecodeError";
    this.path = path;
    this.reason = reason;
  }
}
