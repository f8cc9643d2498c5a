// The dispatch tables of a served object (docs/wire.md §4): its interfaces are found as the
// `static idlcInterface` of the classes on its prototype chain, as a skeleton class carries
// it; a member is provided when the object's method is not the skeleton's own default.

import type { InterfaceSpec, MethodSpec } from "./contract.js";

export interface Entry {
  readonly spec: InterfaceSpec;
  readonly method: MethodSpec;
  /** The implementation overrides the member (or, for a required one, defines it). */
  readonly provided: boolean;
}

export interface Tables {
  readonly specs: readonly InterfaceSpec[];
  readonly requests: ReadonlyMap<string, Entry>;
  readonly notifications: ReadonlyMap<string, Entry>;
}

const cache = new WeakMap<object, Tables>();

/** The interfaces `object` implements, most derived first. */
export function specsOf(object: object): InterfaceSpec[] {
  const specs: InterfaceSpec[] = [];
  for (let proto = Object.getPrototypeOf(object); proto !== null; proto = Object.getPrototypeOf(proto)) {
    const constructor: unknown = Object.prototype.hasOwnProperty.call(proto, "constructor")
      ? (proto as { constructor: unknown }).constructor
      : undefined;
    if (typeof constructor !== "function") continue;
    // Own property only: a subclass inherits its base's static, which is the same spec.
    if (!Object.prototype.hasOwnProperty.call(constructor, "idlcInterface")) continue;
    const spec = (constructor as unknown as { idlcInterface: InterfaceSpec }).idlcInterface;
    if (!specs.includes(spec)) specs.push(spec);
  }
  return specs;
}

/** The tables of `object`, computed once per object. */
export function tablesOf(object: object): Tables {
  let tables = cache.get(object);
  if (tables === undefined) {
    tables = build(object);
    cache.set(object, tables);
  }
  return tables;
}

function build(object: object): Tables {
  const specs = specsOf(object);
  const requests = new Map<string, Entry>();
  const notifications = new Map<string, Entry>();
  for (const spec of specs) {
    const defaults = spec.skeleton.prototype as Record<string, unknown>;
    for (const method of spec.methods) {
      const table = method.notify ? notifications : requests;
      if (table.has(method.wire)) continue; // the most derived interface wins
      const own = (object as Record<string, unknown>)[method.member];
      const provided = typeof own === "function" && own !== defaults[method.member];
      table.set(method.wire, { spec, method, provided });
    }
  }
  return { specs, requests, notifications };
}
