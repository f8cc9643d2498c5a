"""Synthetic IDL schemas in the seeds' style, for benchmarks.

`schema(n)` has n interfaces of 12 members each (values, relations of every cardinality,
operations with inline-record, named-record, unit and atom-ref inputs), 3n named records
of 6–10 fields, a few atoms and imports — one file, one-line members like the seeds.
`write_schema_pair(folder, n)` writes the IDL/protobuf twins that the comparisons with
protoc and buf use.
"""

from __future__ import annotations

import random
from pathlib import Path

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


_PAIR_FIELD_TYPES = ["string", "bool", "uint32", "uint64", "optional<string>", "list<string>"]
_PAIR_PROTO_TYPES = ["string", "bool", "uint32", "uint64", "optional string", "repeated string"]


def write_schema_pair(folder: Path, n: int) -> tuple[list[Path], Path]:
    """N .idl files (one interface of 12 members, 3 records of 6–10 fields, 10 atoms and an
    import each) and one equivalent bench.proto (records → messages, atom refs → wrapper
    messages, one service per interface, one rpc per member), for bench/codegen.py and
    bench/frontend_vs_buf.py."""
    idl_files = []
    proto = ['syntax = "proto3";', "package bench;"]
    atoms = [f"Object{i}" for i in range(10)]
    for atom in atoms:
        proto.append(f"message {atom}Ref {{ string id = 1; }}")
    proto.append("message Empty {}")
    for i in range(n):
        lines = [f'external atom {atom} id "atom:bench:{atom.lower()}";' for atom in atoms]
        lines.append("import interface Remote;")
        for r in range(3):
            fields = []
            pfields = []
            for f in range(6 + (i + r) % 5):
                kind = (i + r + f) % (len(_PAIR_FIELD_TYPES) + 1)
                if kind == len(_PAIR_FIELD_TYPES):
                    fields.append(f"ref{f}:atom-ref<{atoms[f % 10]}>;")
                    pfields.append(f"{atoms[f % 10]}Ref ref{f} = {f + 1};")
                else:
                    fields.append(f"field{f}:{_PAIR_FIELD_TYPES[kind]};")
                    pfields.append(f"{_PAIR_PROTO_TYPES[kind]} field{f} = {f + 1};")
            lines.append(f"type Record{i}x{r} = record {{{''.join(fields)}}};")
            proto.append(f"message Record{i}x{r} {{ {' '.join(pfields)} }}")
        lines.append(
            f'interface Service{i} id "interface:bench:s{i}" revision "interface:bench:s{i}@1" {{'
        )
        service = [f"service Service{i} {{"]
        for j in range(12):
            member = f"member{j}"
            mid = f"bench:s{i}:{member}"
            if j % 4 == 0:
                lines.append(
                    f'  queryable value {member} id "{mid}" : Record{i}x{j % 3} '
                    f'{{get id "{mid}:get" execution snapshot;}}'
                )
                service.append(f"  rpc Member{j}(Empty) returns (Record{i}x{j % 3});")
            elif j % 4 == 1:
                lines.append(
                    f'  queryable relation {member} id "{mid}" : many-unique atom {atoms[j % 10]} '
                    f'{{resolve id "{mid}:resolve" execution snapshot;}}'
                )
                proto.append(f"message S{i}M{j}Out {{ repeated {atoms[j % 10]}Ref refs = 1; }}")
                service.append(f"  rpc Member{j}(Empty) returns (S{i}M{j}Out);")
            else:
                lines.append(
                    f'  operation {member} id "{mid}" : record {{name:string;count:uint32;'
                    f"target:atom-ref<{atoms[j % 10]}>;data:Record{i}x{j % 3};}} -> "
                    f'atom-ref<{atoms[(j + 1) % 10]}> {{call id "{mid}:call" execution transaction;}}'
                )
                proto.append(
                    f"message S{i}M{j}In {{ string name = 1; uint32 count = 2; "
                    f"{atoms[j % 10]}Ref target = 3; Record{i}x{j % 3} data = 4; }}"
                )
                service.append(f"  rpc Member{j}(S{i}M{j}In) returns ({atoms[(j + 1) % 10]}Ref);")
        lines.append("}")
        service.append("}")
        proto.extend(service)
        path = folder / f"service{i}.idl"
        path.write_text("\n".join(lines) + "\n")
        idl_files.append(path)
    proto_path = folder / "bench.proto"
    proto_path.write_text("\n".join(proto) + "\n")
    return idl_files, proto_path


if __name__ == "__main__":
    import sys

    sys.stdout.write(schema(int(sys.argv[1]) if len(sys.argv) > 1 else 10))
