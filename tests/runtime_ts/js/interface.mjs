// A hand-written InterfaceSpec, standing in for generated code in these tests: the
// generator writes the same shape (runtime-ts/src/contract.ts). `defineInterface` makes the
// skeleton class (a default body that throws Unsupported for each optional member, none for
// a required one) and its `static idlcInterface`.
import { DecodeError, Unsupported } from "../../../runtime-ts/dist/index.js";

/** A decoder of a record whose fields are all of the given kinds ("string", "int": an int64,
 * refused past its top with msgspec's reason). */
export function record(fields) {
  return (params) => {
    if (params === null || typeof params !== "object" || Array.isArray(params)) {
      throw new DecodeError("$", `Expected \`object\`, got \`${params === null ? "null" : typeof params}\``);
    }
    const value = {};
    for (const [name, kind] of Object.entries(fields)) {
      if (!(name in params)) throw new DecodeError("$", `Object missing required field \`${name}\``);
      const field = params[name];
      const ok =
        kind === "string" ? typeof field === "string" : typeof field === "bigint" || Number.isInteger(field);
      if (!ok) throw new DecodeError(`$.${name}`, `Expected \`${kind}\`, got \`${typeof field}\``);
      // "int" is an int64, as the generated codecs check one.
      if (kind === "int" && typeof field === "bigint" && field >= 2n ** 63n) {
        throw new DecodeError(`$.${name}`, "Expected `int` <= 9223372036854775807");
      }
      value[name] = field;
    }
    return value;
  };
}

export const unit = () => undefined;

export function defineInterface(name, members) {
  class Skeleton {}
  for (const member of members) {
    if (!member.required) {
      Skeleton.prototype[member.member] = async function () {
        throw new Unsupported(member.wire);
      };
    }
  }
  const spec = {
    name,
    id: `test.${name}`,
    revision: "1",
    skeleton: Skeleton,
    methods: members.map((member) => ({
      wire: member.wire,
      member: member.member,
      shape: member.shape ?? "record",
      notify: member.notify ?? false,
      required: member.required ?? false,
      decodeParams: member.decode ?? unit,
      encodeResult: (result) => (result === undefined ? null : result),
      invoke: (implementation, input, context) => implementation[member.member](input, context),
    })),
  };
  Object.defineProperty(Skeleton, "idlcInterface", { value: spec });
  return Skeleton;
}
