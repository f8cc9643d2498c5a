// Decodes ACP values with the official TypeScript SDK's own schemas (the zod schemas its
// connections parse every incoming message with), for the differential tests of idlc's
// forward-compatible decoding (tests/interop/test_lenient_decoding.py).
//
//   node decode.mjs < requests > answers
//
// Each input line is {"def": NAME, "value": JSON} with NAME a `$defs` name of the v1
// schema; each output line is {"ok": true, "value": DECODED} or {"ok": false}.
import { createInterface } from "node:readline";
import * as schemas from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const { def, value } = JSON.parse(line);
  const schema = schemas[`z${def}`];
  if (schema === undefined) {
    process.stdout.write(JSON.stringify({ ok: false, unknown: def }) + "\n");
    continue;
  }
  const result = schema.safeParse(value);
  process.stdout.write(
    JSON.stringify(result.success ? { ok: true, value: result.data } : { ok: false }) + "\n",
  );
}
