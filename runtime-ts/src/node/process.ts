// Peers over processes: a spawned child's pipes, and this process's own stdin and stdout.

import { spawn as spawnChild, type SpawnOptions } from "node:child_process";
import { Peer, DEFAULT_MAX_MESSAGE_SIZE, type PeerOptions } from "../peer.js";
import { asyncTracker } from "./tracker.js";
import { StreamTransport } from "./stream.js";

/** PeerOptions with Node's tracker unless one is given. */
export function nodeOptions(options: PeerOptions | undefined): PeerOptions {
  return { ...options, contextTracker: options?.contextTracker ?? asyncTracker() };
}

export interface SpawnPeerOptions extends PeerOptions {
  /** Served to the child's calls. */
  readonly root?: object;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The child's stderr: inherited by default. */
  readonly stderr?: "inherit" | "ignore" | "pipe";
  /** After closing its stdin, how long (ms) the child gets to exit before it is killed. */
  readonly exitTimeout?: number;
}

/** Starts `command` and talks to it over its stdin and stdout (docs/wire.md §1, §10):
 * closing the peer closes the child's stdin, and the child is killed if it has not exited
 * `exitTimeout` ms later. The peer is started. */
export function spawn(command: string, args: readonly string[] = [], options: SpawnPeerOptions = {}): Peer {
  const spawnOptions: SpawnOptions = { stdio: ["pipe", "pipe", options.stderr ?? "inherit"] };
  if (options.cwd !== undefined) spawnOptions.cwd = options.cwd;
  if (options.env !== undefined) spawnOptions.env = options.env;
  const child = spawnChild(command, [...args], spawnOptions);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once("exit", () => resolve());
    child.once("error", () => resolve()); // it never started
  });
  const exitTimeout = options.exitTimeout ?? 5000;
  const transport = new StreamTransport(child.stdout!, child.stdin!, {
    maxMessageSize: options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE,
    onClose: async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), exitTimeout)));
      if ((await Promise.race([exited, late])) === "late") {
        child.kill("SIGKILL");
        await exited;
      }
      clearTimeout(timer);
    },
  });
  const peer = new Peer(transport, nodeOptions(options));
  if (options.root !== undefined) peer.serve(options.root);
  // The peer keeps the child's pipes; a child that fails to start ends the input.
  child.once("error", (error) => child.stdout?.destroy(error));
  return peer.start();
}

/** Serves `root` on this process's stdin and stdout until the input ends; nothing else may
 * write to stdout (console.log included: use console.error). `root` may be a function of
 * the peer, which may register keyed objects on it, as `serveWebSocket`'s factory does. */
export async function serveStdio(root: object | ((peer: Peer) => object), options: PeerOptions = {}): Promise<Peer> {
  const transport = new StreamTransport(process.stdin, process.stdout, {
    maxMessageSize: options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE,
    endOutput: false,
  });
  const peer = new Peer(transport, nodeOptions(options));
  peer.serve(typeof root === "function" ? (root as (peer: Peer) => object)(peer) : root).start();
  await peer.closed;
  return peer;
}
