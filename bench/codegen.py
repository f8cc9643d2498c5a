"""Benchmark: `idlc generate` against `protoc --python_out --pyi_out --grpc_python_out`.

Writes synthetic schemas in the seeds' style (N interfaces of 12 members, 3N records of 6–10
fields, atoms and imports) and the equivalent .proto (records → messages, atom refs →
wrapper messages, one service per interface, one rpc per member), then times both as whole
processes, alternated, median of REPEAT runs. Also times an up-to-date
`idlc generate --check` on the seeds.

    /work/venv/bin/python bench/codegen.py [N ...]
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 3
FIELD_TYPES = ["string", "bool", "uint32", "uint64", "optional<string>", "list<string>"]
PROTO_TYPES = ["string", "bool", "uint32", "uint64", "optional string", "repeated string"]


def write_schema(folder: Path, n: int) -> tuple[list[Path], Path]:
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
                kind = (i + r + f) % (len(FIELD_TYPES) + 1)
                if kind == len(FIELD_TYPES):
                    fields.append(f"ref{f}:atom-ref<{atoms[f % 10]}>;")
                    pfields.append(f"{atoms[f % 10]}Ref ref{f} = {f + 1};")
                else:
                    fields.append(f"field{f}:{FIELD_TYPES[kind]};")
                    pfields.append(f"{PROTO_TYPES[kind]} field{f} = {f + 1};")
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


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}… failed:\n{result.stdout}\n{result.stderr}")
    return elapsed


def run(n: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        idl_files, proto = write_schema(folder, n)
        idlc_times, protoc_times = [], []
        for _ in range(REPEAT):
            out = folder / "idlc_out"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            idlc_times.append(
                timed(
                    [sys.executable, "-m", "idlc", "generate", *map(str, idl_files),
                     "--out", str(out), "--package", "bench_pkg"],
                    ROOT,
                )
            )
            pout = folder / "protoc_out"
            shutil.rmtree(pout, ignore_errors=True)
            pout.mkdir()
            protoc_times.append(
                timed(
                    [sys.executable, "-m", "grpc_tools.protoc", f"-I{folder}",
                     f"--python_out={pout}", f"--pyi_out={pout}", f"--grpc_python_out={pout}",
                     str(proto)],
                    folder,
                )
            )
        return statistics.median(idlc_times), statistics.median(protoc_times)


def check_seeds() -> float:
    command = [
        sys.executable, "-m", "idlc", "generate", "idl/quixos/agent_directory.idl",
        "idl/quixos/agent_request.idl", "--out", "generated", "--package", "quixos_agent",
        "--check",
    ]
    return statistics.median(timed(command, ROOT) for _ in range(5))


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:]] or [10, 100, 1000]
    targets = {10: 1.5, 100: 1.0, 1000: 0.5}
    print(f"{'N':>6} {'idlc s':>9} {'protoc s':>9} {'ratio':>7} {'target':>7}")
    for n in sizes:
        idlc_time, protoc_time = run(n)
        ratio = idlc_time / protoc_time
        print(f"{n:>6} {idlc_time:>9.3f} {protoc_time:>9.3f} {ratio:>7.2f} {targets.get(n, float('nan')):>7}")
    print(f"idlc generate --check on the seeds: {check_seeds():.3f} s (target ≤ 0.3 s)")


if __name__ == "__main__":
    main()
