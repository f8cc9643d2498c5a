// Reads JSON lines {"codec": name, "json": text} from stdin; decodes `text` (parseJson:
// 64-bit integers as bigints) with the seed package's codec `name` and answers one line:
// {"ok": the value encoded again (stringifyJson)} or {"path", "reason"} of its DecodeError.
import { createInterface } from "node:readline";

import { DecodeError, parseJson, stringifyJson } from "@idlc/runtime";

const seeds = await import(process.argv[2]);
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { codec, json } = JSON.parse(line);
  let answer;
  try {
    answer = { ok: stringifyJson(seeds[codec].encode(seeds[codec].decode(parseJson(json)))) };
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    answer = { path: error.path, reason: error.reason };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
