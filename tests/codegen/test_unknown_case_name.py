"""The class keeping an unknown tag of an `open variant` never takes a case's name
(docs/language.md, "Variants"; `naming.unknown_case_class_name`, acp-gaps G10)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.codegen import generate
from idlc.pipeline import compile_files
from idlc.targets.python import naming
from idlc_runtime import hooks
from tests.generated import generated_package

EVENT = """
type Event = open variant tag "kind" {
  "paid": record { amount: uint32; };
  "unknown": record { reason: optional<string>; };
};
"""


def test_a_case_named_unknown_moves_the_unknown_tag_class_aside() -> None:
    assert naming.unknown_case_class_name("Event", ["paid", None]) == "EventUnknown"
    assert naming.unknown_case_class_name("Event", ["paid", "unknown"]) == "EventUnknown_"
    # Any tag whose case class is `EventUnknown` counts, however it is spelled.
    for tag in ("Unknown", "UNKNOWN", "unknown_", "-unknown"):
        assert naming.unknown_case_class_name("Event", [tag]) == "EventUnknown_"
    # Tags that read like the alternative name do not take it: it ends with `_`.
    assert naming.unknown_case_class_name("Event", ["unknown_tag"]) == "EventUnknown"
    assert naming.case_class_name("Event", "unknown_") == "EventUnknown"


def test_an_open_variant_with_a_case_tagged_unknown_decodes_both(tmp_path: Path) -> None:
    with generated_package(tmp_path, "gen_unknown_case", EVENT) as package:
        decoder = msgspec.json.Decoder(package.Event, dec_hook=hooks.dec_hook)
        known = decoder.decode(b'{"kind": "unknown", "reason": "lost"}')
        assert type(known) is package.EventUnknown and known.reason == "lost"
        other = decoder.decode(b'{"kind": "refunded", "amount": 3}')
        assert type(other) is package.EventUnknown_
        assert isinstance(other, hooks.UnknownCase) and other.tag == "refunded"
        encoder = msgspec.json.Encoder(enc_hook=hooks.enc_hook)
        assert json.loads(encoder.encode(other)) == {"kind": "refunded", "amount": 3}
        assert json.loads(encoder.encode(known)) == {"kind": "unknown", "reason": "lost"}


# Tags close to the names involved, and a few arbitrary ones.
_TAGS = st.sampled_from(
    ["unknown", "Unknown", "unknown_", "unknown_tag", "unrecognized", "default", "_", "1", "x"]
) | st.text(alphabet="abUnknow_-1", min_size=1, max_size=9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tags=st.lists(_TAGS, min_size=0, max_size=5, unique=True),
    with_default=st.booleans(),
    shared=st.booleans(),
)
def test_no_tag_set_makes_the_unknown_class_collide(
    tags: list[str], with_default: bool, shared: bool
) -> None:
    suffixes = [naming.case_suffix(tag) for tag in tags] + (["Default"] if with_default else [])
    if len(set(suffixes)) < len(suffixes):
        return  # two cases of one Python name: E0113, whatever the unknown class is called
    cases = [f"  {json.dumps(tag)}: record {{ n{i}: uint32; }};" for i, tag in enumerate(tags)]
    if with_default:
        cases.append("  default: unit;")
    fields = " fields { note: optional<string>; }" if shared else ""
    idl = 'type Event = open variant tag "kind"' + fields + " {\n" + "\n".join(cases) + "\n};\n"
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "event.idl"
        source.write_text(idl, encoding="utf-8")
        compilation = compile_files([source])
        assert compilation.model is not None, [str(d.message) for d in compilation.diagnostics]
        generated = generate(compilation.model, "gen_event")
        assert not generated.has_errors, [str(d.message) for d in generated.diagnostics]
    unknown = naming.unknown_case_class_name("Event", tags)
    assert f"class {unknown}(" in generated.files["_types.py"]
    assert unknown not in {naming.case_class_name("Event", tag) for tag in tags}
