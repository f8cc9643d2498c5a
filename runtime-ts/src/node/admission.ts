// Who may open a WebSocket to a server (docs/web.md, "Admission"), as the Python server
// decides (runtime/idlc_runtime/web/admission.py): a Host this server serves (DNS
// rebinding), an Origin allowed (cross-site WebSocket hijacking), the bearer token when one
// is required, headers that count once given once. A refusal is the HTTP answer to the
// upgrade: no socket is opened and no root is made.

import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

export interface Refusal {
  readonly status: number;
  readonly reason: string;
  readonly headers?: Record<string, string>;
}

/** The names a loopback server answers to when `allowedHosts` is not given. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
/** With two of these, servers and proxies disagree on which one counts. */
const SINGLE_HEADERS = ["origin", "host", "authorization"] as const;

/** The name part of a Host header (`[::1]:80` → `[::1]`, `a.example:80` → `a.example`). */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith("[")) {
    const end = lower.indexOf("]");
    return end < 0 ? lower : lower.slice(0, end + 1);
  }
  return lower.split(":")[0]!.replace(/\.+$/, "");
}

/** The host names a request may name (`undefined`: any): `allowedHosts` when given (`"*"`:
 * any); else a loopback server answers to the loopback names only, a server on another
 * address to that address literally, one on every address to any. */
export function servedHosts(allowedHosts: Iterable<string> | undefined, serverHost: string): ReadonlySet<string> | undefined {
  if (allowedHosts !== undefined) {
    const names = new Set([...allowedHosts].map(hostName));
    return names.has("*") ? undefined : names;
  }
  const version = isIP(serverHost);
  if (version === 0) return new Set([hostName(serverHost)]);
  if (serverHost === "0.0.0.0" || serverHost === "::") return undefined;
  if (serverHost.startsWith("127.") || serverHost === "::1") return LOOPBACK_HOSTS;
  return new Set([version === 6 ? `[${serverHost}]` : serverHost]);
}

export interface AdmissionRules {
  readonly hosts: ReadonlySet<string> | undefined;
  readonly origins: ReadonlySet<string>;
  /** Required as `Authorization: Bearer <token>` when given. */
  readonly token: string | undefined;
}

/** Why `request` is refused, or `undefined` when it is admitted. */
export function refusal(request: IncomingMessage, rules: AdmissionRules): Refusal | undefined {
  for (const name of SINGLE_HEADERS) {
    if ((request.headersDistinct[name]?.length ?? 0) > 1) {
      return { status: 400, reason: `the ${name[0]!.toUpperCase()}${name.slice(1)} header is repeated` };
    }
  }
  if (rules.hosts !== undefined) {
    const host = request.headers.host;
    if (host === undefined) return { status: 400, reason: "the Host header is missing" };
    if (!rules.hosts.has(hostName(host))) return { status: 421, reason: `host ${JSON.stringify(host)} is not served here` };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !rules.origins.has("*") && !rules.origins.has(origin)) {
    return { status: 403, reason: `origin ${JSON.stringify(origin)} is not allowed` };
  }
  if (rules.token !== undefined) {
    const given = request.headers.authorization;
    if (given === undefined) {
      return { status: 401, reason: "a bearer token is required", headers: { "WWW-Authenticate": "Bearer" } };
    }
    const [scheme = "", ...rest] = given.split(" ");
    const credentials = Buffer.from(rest.join(" ").trim());
    const expected = Buffer.from(rules.token);
    // Compared in constant time: the time taken says nothing of how much matched.
    const same = credentials.length === expected.length && timingSafeEqual(credentials, expected);
    if (scheme.toLowerCase() !== "bearer" || !same) {
      return { status: 403, reason: "the bearer token is not valid" };
    }
  }
  return undefined;
}
