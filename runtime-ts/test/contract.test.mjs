// The runtime's side of the contract with generated code (src/contract.ts): the API
// versions it serves, and the check a generated package makes when it is loaded.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { API_VERSION, OLDEST_API_VERSION, RUNTIME_VERSION, RuntimeApiMismatch, requireApi } from "../dist/index.js";

test("the runtime says its own release", () => {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  assert.equal(RUNTIME_VERSION, manifest.version);
});

test("a package written for a served API loads", () => {
  for (let version = OLDEST_API_VERSION; version <= API_VERSION; version++) requireApi(version, "p");
});

test("a package written for an API not served fails, naming both versions and the fix", () => {
  assert.throws(
    () => requireApi(API_VERSION + 1, "future_pkg"),
    (error) =>
      error instanceof RuntimeApiMismatch &&
      error.packageName === "future_pkg" &&
      error.message.includes(`generated for runtime API ${API_VERSION + 1}`) &&
      error.message.includes(`@idlc/runtime ${RUNTIME_VERSION}`) &&
      error.message.endsWith("install a newer @idlc/runtime"),
  );
  assert.throws(
    () => requireApi(OLDEST_API_VERSION - 1, "old_pkg"),
    (error) => error instanceof RuntimeApiMismatch && error.message.endsWith("generate the package again with a newer idlc"),
  );
});
