// Reads JSON lines {"package": name, "codec": name, "json": text} from stdin; decodes `text`
// (parseJson: 64-bit integers as bigints) with codec `codec` of the compiled package
// `package` and answers one line: {"ok": the value encoded again (stringifyJson)} or
// {"path", "reason"} of its DecodeError. argv: `name=./dist/name/index.js` per package.
import { createInterface } from "node:readline";

import { DecodeError, parseJson, stringifyJson } from "@idlc/runtime";

const packages = {};
for (const argument of process.argv.slice(2)) {
  const [name, path] = argument.split("=");
  packages[name] = await import(path);
}
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const request = JSON.parse(line);
  const codec = packages[request.package][request.codec];
  let answer;
  if (codec === undefined) {
    answer = { missing: request.codec };
  } else {
    try {
      answer = { ok: stringifyJson(codec.encode(codec.decode(parseJson(request.json)))) };
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      answer = { path: error.path, reason: error.reason };
    }
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
