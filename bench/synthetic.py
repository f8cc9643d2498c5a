"""Synthetic IDL schemas in the seeds' style, for benchmarks.

`schema(n)` has n interfaces of 12 members each (values, relations of every cardinality,
operations with inline-record, named-record, unit and atom-ref inputs), 3n named records
of 6–10 fields, a few atoms and imports — one file, one-line members like the seeds.
"""

from __future__ import annotations

import random

_FIELD_TYPES = [
    "string",
    "bool",
    "uint32",
    "uint64",
    "optional<string>",
    "list<string>",
    "optional<atom-ref<Atom{a}>>",
    "list<interface-ref<Imported{i}>>",
]


def schema(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    atoms = max(7, n // 10)
    imports = max(2, n // 50)
    out: list[str] = []
    for a in range(atoms):
        out.append(f'external atom Atom{a} id "atom:org.bench:atom{a}";\n')
    out.append("\n")
    for i in range(imports):
        out.append(f"import interface Imported{i};\n")
    for r in range(3 * n):
        fields = []
        for f in range(rng.randint(6, 10)):
            kind = rng.choice(_FIELD_TYPES).format(a=rng.randrange(atoms), i=rng.randrange(imports))
            fields.append(f"field{f}Name:{kind};")
        out.append(f"type Record{r} = record {{{''.join(fields)}}};\n")
    for i in range(n):
        base = f"bench:iface{i}"
        out.append(
            f'interface Interface{i} id "interface:org.bench:iface{i}" '
            f'revision "interface:org.bench:iface{i}@1" {{\n'
        )
        members = []
        for m in range(3):
            members.append(
                f'  queryable value value{m} id "{base}:value{m}" : Record{rng.randrange(3 * n)} '
                f'{{get id "{base}:value{m}:get" execution snapshot;}}\n'
            )
        for m, cardinality in enumerate(["many-unique", "optional-one", "exactly-one"]):
            members.append(
                f'  queryable relation relation{m} id "{base}:relation{m}" : {cardinality} '
                f"atom Atom{rng.randrange(atoms)} "
                f'{{resolve id "{base}:relation{m}:resolve" execution snapshot;}}\n'
            )
        for m in range(6):
            shape = m % 4
            if shape == 0:
                input_type = "record {name:string;count:uint32;flag:bool;note:optional<string>;}"
            elif shape == 1:
                input_type = f"Record{rng.randrange(3 * n)}"
            elif shape == 2:
                input_type = "unit"
            else:
                input_type = f"atom-ref<Atom{rng.randrange(atoms)}>"
            output_type = rng.choice(
                [
                    "unit",
                    "bool",
                    f"atom-ref<Atom{rng.randrange(atoms)}>",
                    "record {ok:bool;generation:uint32;}",
                ]
            )
            members.append(
                f'  operation operation{m} id "{base}:operation{m}" : {input_type} -> {output_type} '
                f'{{call id "{base}:operation{m}:call" execution transaction;}}\n'
            )
        out.extend(members)
        out.append("}\n")
    return "".join(out)


if __name__ == "__main__":
    import sys

    sys.stdout.write(schema(int(sys.argv[1]) if len(sys.argv) > 1 else 10))
