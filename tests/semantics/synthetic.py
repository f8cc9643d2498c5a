"""A large schema in the seeds' style, for performance tests and benchmarks."""

from __future__ import annotations


def synthetic_schema(interfaces: int) -> str:
    """`interfaces` interfaces, each with its own typedefs, in the style of the seeds."""
    parts = [
        'external atom ThingObject id "atom:org.example.synthetic:thing";\n',
        'external atom OtherObject id "atom:org.example.synthetic:other";\n',
        "import interface Elsewhere;\n",
    ]
    for index in range(interfaces):
        name = f"Service{index}"
        prefix = f"synthetic:service{index}"
        parts.append(
            f"type {name}Data = record {{text:string;data:optional<string>;sequence:uint64;"
            f"pending:uint32;createdAt:string;contexts:list<interface-ref<Elsewhere>>;"
            f"related:optional<atom-ref<ThingObject>>;control:optional<record {{attempt:string;"
            f"generation:uint32;status:string;reason:string;}}>;}};\n"
        )
        parts.append(
            f"type {name}State = record {{status:string;attempt:string;generation:uint32;"
            f"reason:string;result:optional<string>;cancelRequested:bool;retryCount:uint32;}};\n"
        )
        parts.append(
            f'interface {name} id "interface:{prefix}" revision "interface:{prefix}@1" {{\n'
        )
        for member in range(12):
            parts.append(
                f'  queryable value data{member} id "{prefix}:data{member}" : {name}Data '
                f'{{get id "{prefix}:data{member}:get" execution snapshot;}}\n'
            )
            parts.append(
                f'  queryable relation things{member} id "{prefix}:things{member}" : '
                f"many-unique atom ThingObject "
                f'{{resolve id "{prefix}:things{member}:resolve" execution snapshot;}}\n'
            )
            parts.append(
                f'  operation act{member} id "{prefix}:act{member}" : record {{agent:atom-ref<'
                f"OtherObject>;thread:optional<atom-ref<ThingObject>>;state:{name}State;"
                f"optionalWork:bool;}} -> {name}Data "
                f'{{call id "{prefix}:act{member}:call" execution transaction;}}\n'
            )
        parts.append("}\n")
    return "".join(parts)
