"""templates/typescript/module.ts.j2, compiled to Python by idlc.codegen.template_compiler.

Generated: do not edit. Edit the template and run `python -m idlc.codegen.template_compiler`;
idlc.codegen.template_loader uses this module only while SOURCE is the template's text.
"""

# fmt: off
# mypy: disable-error-code="no-any-return"
from __future__ import annotations

import functools
import types
from typing import Any

from idlc.codegen import template_builtins as _builtins
from idlc.codegen.typescript.expressions import FILTERS as _FILTERS

TEMPLATE = 'typescript/module.ts.j2'
SOURCE = '{#- One module of a TypeScript package: its imports, then what it defines. `$`-prefixed\n    names are the generated code\'s own (no IDL name has a `$`). #}\n// {{ module.doc }}\n{% if module.runtime %}\n\nimport {\n{% for name in module.runtime %}\n  {{ name }},\n{% endfor %}\n} from "@idlc/runtime";\n{% endif %}\n{% for group in module.imports %}\nimport {\n{% for name in group.names %}\n  {{ name }},\n{% endfor %}\n} from "{{ group.source }}";\n{% endfor %}\n{% macro field_members(fields, indent) %}\n{% for field in fields %}\n{{ field.doc | ts_doc(indent) }}{{ " " * indent }}{{ field.wire | ts_key }}{{ "" if field.presence == "required" else "?" }}: {{ field.type | ts_type }};\n{% endfor %}\n{% endmacro %}\n{% macro field_specs(fields) -%}\n[\n{% for field in fields %}\n  { name: {{ field.wire | ts_string }}, codec: {{ field.type | ts_codec(module.name) }}, presence: "{{ field.presence }}"\n  {{- (", default: " + field.default) if field.default is not none }}\n  {{- ", omitDefault: true" if field.omit_default }}\n  {{- (", fallback: " + field.fallback) if field.fallback is not none }}\n  {{- ", lenient: true" if field.lenient }}\n  {{- ", skipInvalid: true" if field.skip_invalid }}\n  {{- ", nullDefault: true" if field.null_default }} },\n{% endfor %}\n]\n{%- endmacro %}\n{% macro shared_type(variant) -%}\n{% if variant.shared %} & {\n{{ field_members(variant.shared, 6) }}    }{% endif %}\n{%- endmacro %}\n{% if module.require_api is not none %}\n\n// First of all: that the installed runtime serves the API this package is written against.\n$requireApi({{ module.require_api }}, {{ package.name | ts_string }});\n{% endif %}\n{% for ref in module.refs %}\n\n/** A reference to {{ ref.kind }} `{{ ref.declaration }}`: a string, distinct to the type checker. */\nexport type {{ ref.name }} = string & { readonly $idlcRef: {{ ref.declaration | ts_string }} };\nexport const {{ ref.codec }}: $c.Codec<{{ ref.name }}> = $c.ref<{{ ref.name }}>();\n{% endfor %}\n{% if module.name == "_refs" %}\n\n/** The package\'s atoms: IDL name → atom id. */\nexport const ATOMS = {\n{% for atom in module.atoms %}\n  {{ atom.name | ts_key }}: {{ atom.id | ts_string }},\n{% endfor %}\n} as const;\n{% endif %}\n{% for definition in module.definitions %}\n\n{% set kind = definition.__class__.__name__ %}\n{% if kind == "RecordPlan" %}\n{{ definition.doc | ts_doc }}export interface {{ definition.name }} {\n{{ field_members(definition.fields, 2) }}{% if definition.open %}\n  /** The members the record does not declare, kept as they came (an open record). */\n  [member: string]: unknown;\n{% endif %}\n}\nexport const {{ definition.codec }}: $c.ObjectCodec<{{ definition.name }}> = $c.record<{{ definition.name }}>({{ field_specs(definition.fields) | indent(0) }}{{ ", true" if definition.open else "" }});\n{% elif kind == "EnumPlan" %}\n{{ definition.doc | ts_doc }}export type {{ definition.name }} =\n{% for value in definition.values %}\n  | {{ value.value | ts_string }}\n{% endfor %}\n{% if definition.open %}\n  | (string & {})\n{% elif not definition.values %}\n  | never\n{% endif %}\n;\nexport const {{ definition.name }} = {\n{% for value in definition.values %}\n{{ value.doc | ts_doc(2) }}  {{ value.key | ts_key }}: {{ value.value | ts_string }},\n{% endfor %}\n} as const;\nexport const {{ definition.codec }}: $c.Codec<{{ definition.name }}> = $c.enumeration<{{ definition.name }}>(\n  [{% for value in definition.values %}{{ value.value | ts_string }}{{ ", " if not loop.last }}{% endfor %}],\n  {{ "true" if definition.open else "false" }},\n);\n{% elif kind == "VariantPlan" %}\n{{ definition.doc | ts_doc }}export type {{ definition.name }} =\n{% for case in definition.cases %}\n{{ case.doc | ts_doc(2) }}  | ({ {{ definition.tag | ts_key }}: {{ case.tag | ts_string }} }{{ shared_type(definition) }}{% if case.type is not none %} & {{ case.type | ts_type }}{% endif %})\n{% endfor %}\n{% if definition.default is not none %}\n{{ definition.default.doc | ts_doc(2) }}  | ({ {{ definition.tag | ts_key }}?: undefined }{{ shared_type(definition) }}{% if definition.default.type is not none %} & {{ definition.default.type | ts_type }}{% endif %})\n{% endif %}\n{% if definition.open %}\n  | ({ {{ definition.tag | ts_key }}: string }{{ shared_type(definition) }}{% if definition.unknown is not none %} & {{ definition.unknown | ts_type }}{% endif %} & { [member: string]: unknown })\n{% endif %}\n{% if not definition.cases and definition.default is none and not definition.open %}\n  | never\n{% endif %}\n;\nexport const {{ definition.codec }}: $c.Codec<{{ definition.name }}> = $c.variant<{{ definition.name }}>(\n  {{ definition.tag | ts_string }},\n  {\n{% for case in definition.cases %}\n    {{ case.tag | ts_string }}: {{ "null" if case.type is none else case.type | ts_codec(module.name) }},\n{% endfor %}\n  },\n  {\n    open: {{ "true" if definition.open else "false" }},\n{% if definition.shared %}\n    shared: $c.record({{ field_specs(definition.shared) | indent(4) }}),\n{% endif %}\n{% if definition.default is not none %}\n    default: {{ "null" if definition.default.type is none else definition.default.type | ts_codec(module.name) }},\n{% endif %}\n{% if definition.unknown is not none %}\n    unknown: {{ definition.unknown | ts_codec(module.name) }},\n{% endif %}\n  },\n);\n{% elif kind == "UnionPlan" %}\n{{ definition.doc | ts_doc }}export type {{ definition.name }} =\n{% for alternative in definition.alternatives %}\n  | {{ alternative | ts_type }}\n{% endfor %}\n{% if not definition.alternatives %}\n  | never\n{% endif %}\n;\nexport const {{ definition.codec }}: $c.Codec<{{ definition.name }}> = $c.union<{{ definition.name }}>([\n{% for alternative in definition.alternatives %}\n  {{ alternative | ts_codec(module.name) }},\n{% endfor %}\n]);\n{% elif kind == "AliasPlan" %}\n{{ definition.doc | ts_doc }}export type {{ definition.name }} = {{ definition.type | ts_type }};\nexport const {{ definition.codec }}: $c.Codec<{{ definition.name }}> = {{ definition.type | ts_codec(module.name) }};\n{% endif %}\n{% endfor %}\n{% set interface = module.interface %}\n{% if interface is not none %}\n{% macro input_param(method, name) -%}\n{% if method.input is not none %}{{ name }}: {{ method.input | ts_type }}, {% endif %}\n{%- endmacro %}\n{% macro input_codec(method) -%}\n{% if method.shape == "wrapped" %}$c.wrapped({{ method.input | ts_codec_now }}){% else %}{{ method.input | ts_codec_now }}{% endif %}\n{%- endmacro %}\n\n{{ interface.doc | ts_doc }}export abstract class {{ interface.name }} {\n  static readonly INTERFACE_ID = {{ interface.id | ts_string }};\n  static readonly REVISION = {{ interface.revision | ts_string }};\n  /** The dispatch table (docs/wire.md §4): one entry per member, in declaration order. */\n  static readonly idlcInterface: $InterfaceSpec = {\n    name: {{ interface.name | ts_string }},\n    id: {{ interface.id | ts_string }},\n    revision: {{ interface.revision | ts_string }},\n    skeleton: this,\n    methods: [\n{% for method in interface.methods %}\n      {\n        wire: {{ method.wire | ts_string }},\n        member: {{ method.name | ts_string }},\n        shape: "{{ method.shape }}",\n        notify: {{ "true" if method.notify else "false" }},\n        required: {{ "true" if method.required else "false" }},\n{% if method.input is none %}\n        decodeParams: () => undefined,\n{% else %}\n        decodeParams: (params) => {{ input_codec(method) }}.decode(params),\n{% endif %}\n{% if method.output | ts_result == "void" %}\n        encodeResult: () => null,\n{% else %}\n        encodeResult: (result) => {{ method.output | ts_codec_now }}.encode(result as {{ method.output | ts_type }}),\n{% endif %}\n        invoke: (implementation, {{ "input" if method.input is not none else "_input" }}, context) =>\n          (implementation as {{ interface.name }}).{{ method.name }}({% if method.input is not none %}input as {{ method.input | ts_type }}, {% endif %}context),\n      },\n{% endfor %}\n    ],\n  };\n{% for method in interface.methods %}\n\n{{ method.doc | ts_doc(2) }}{% if method.required %}\n  abstract {{ method.name }}({{ input_param(method, "input") }}context: $CallContext): Promise<{{ method.output | ts_result }}>;\n{% else %}\n  async {{ method.name }}({{ input_param(method, "_input") }}_context: $CallContext): Promise<{{ method.output | ts_result }}> {\n    throw new $Unsupported({{ method.wire | ts_string }});\n  }\n{% endif %}\n{% endfor %}\n}\n\n{{ interface.doc | ts_doc }}export class {{ interface.proxy }} {\n{% if interface.methods %}\n  readonly #peer: $Caller;\n  readonly #target: string | undefined;\n\n{% endif %}\n  /** Calls over `peer`, aimed at the object registered under `target` (`$target`, docs/wire.md §5) when given. */\n{% if interface.methods %}\n  constructor(peer: $Caller, target?: string) {\n    this.#peer = peer;\n    this.#target = target;\n  }\n{% else %}\n  constructor(_peer: $Caller, _target?: string) {}\n{% endif %}\n{% for method in interface.methods %}\n\n{% set params = "$c.callParams(" + (input_codec(method) + ".encode(input)" if method.input is not none else "undefined") + ", this.#target)" %}\n{{ method.doc | ts_doc(2) }}  async {{ method.name }}({{ input_param(method, "input") }}{{ "_options" if method.notify else "options" }}?: $CallOptions): Promise<{{ method.output | ts_result }}> {\n{% if method.notify %}\n    await this.#peer.notify({{ method.wire | ts_string }}, {{ params }});\n{% elif method.output | ts_result == "void" %}\n    await this.#peer.request({{ method.wire | ts_string }}, {{ params }}, options);\n{% else %}\n    const result = await this.#peer.request({{ method.wire | ts_string }}, {{ params }}, options);\n    return $c.decodeResult({{ method.output | ts_codec_now }}, result, {{ method.wire | ts_string }});\n{% endif %}\n  }\n{% endfor %}\n}\n{% endif %}\n'
OPTIONS = "[('autoescape', False), ('keep_trailing_newline', True), ('lstrip_blocks', True), ('trim_blocks', True)]"
IMPORTS = ()

_filter_ts_codec = _FILTERS['ts_codec']
_filter_ts_codec_now = _FILTERS['ts_codec_now']
_filter_ts_doc = _FILTERS['ts_doc']
_filter_ts_key = _FILTERS['ts_key']
_filter_ts_result = _FILTERS['ts_result']
_filter_ts_string = _FILTERS['ts_string']
_filter_ts_type = _FILTERS['ts_type']


def _root(context: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    j_module = context['module']
    j_package = context['package']
    j_interface: Any
    _out: list[str] = []
    _append = _out.append
    _append('// %s\n' % (j_module.doc,))
    if j_module.runtime:
        _append('\nimport {\n')
        for j_name in j_module.runtime:
            _append('  %s,\n' % (j_name,))
        _append('} from "@idlc/runtime";\n')
    for j_group in j_module.imports:
        _append('import {\n')
        for j_name_2 in j_group.names:
            _append('  %s,\n' % (j_name_2,))
        _append('} from "%s";\n' % (j_group.source,))
    def j_field_members(j_fields: Any, j_indent: Any) -> str:
        _out: list[str] = []
        _append = _out.append
        for j_field in j_fields:
            _append('%s%s%s%s: %s;\n' % (_filter_ts_doc(j_field.doc, j_indent), (' ' * j_indent), _filter_ts_key(j_field.wire), ('' if (j_field.presence == 'required') else '?'), _filter_ts_type(j_field.type),))
        return "".join(_out)
    def j_field_specs(j_fields_2: Any) -> str:
        _out: list[str] = []
        _append = _out.append
        _append('[\n')
        for j_field_2 in j_fields_2:
            _append('  { name: %s, codec: %s, presence: "%s"%s%s%s%s%s%s },\n' % (_filter_ts_string(j_field_2.wire), _filter_ts_codec(j_field_2.type, j_module.name), j_field_2.presence, ((', default: ' + j_field_2.default) if (not (j_field_2.default is None)) else ""), (', omitDefault: true' if j_field_2.omit_default else ""), ((', fallback: ' + j_field_2.fallback) if (not (j_field_2.fallback is None)) else ""), (', lenient: true' if j_field_2.lenient else ""), (', skipInvalid: true' if j_field_2.skip_invalid else ""), (', nullDefault: true' if j_field_2.null_default else ""),))
        _append(']')
        return "".join(_out)
    def j_shared_type(j_variant: Any) -> str:
        _out: list[str] = []
        _append = _out.append
        if j_variant.shared:
            _append(' & {\n%s    }' % (j_field_members(j_variant.shared, 6),))
        return "".join(_out)
    if (not (j_module.require_api is None)):
        _append('\n// First of all: that the installed runtime serves the API this package is written against.\n$requireApi(%s, %s);\n' % (j_module.require_api, _filter_ts_string(j_package.name),))
    for j_ref in j_module.refs:
        _append('\n/** A reference to %s `%s`: a string, distinct to the type checker. */\nexport type %s = string & { readonly $idlcRef: %s };\nexport const %s: $c.Codec<%s> = $c.ref<%s>();\n' % (j_ref.kind, j_ref.declaration, j_ref.name, _filter_ts_string(j_ref.declaration), j_ref.codec, j_ref.name, j_ref.name,))
    if (j_module.name == '_refs'):
        _append("\n/** The package's atoms: IDL name → atom id. */\nexport const ATOMS = {\n")
        for j_atom in j_module.atoms:
            _append('  %s: %s,\n' % (_filter_ts_key(j_atom.name), _filter_ts_string(j_atom.id),))
        _append('} as const;\n')
    for j_definition in j_module.definitions:
        j_kind: Any
        _append('\n')
        j_kind = j_definition.__class__.__name__
        if (j_kind == 'RecordPlan'):
            _append('%sexport interface %s {\n%s' % (_filter_ts_doc(j_definition.doc), j_definition.name, j_field_members(j_definition.fields, 2),))
            if j_definition.open:
                _append('  /** The members the record does not declare, kept as they came (an open record). */\n  [member: string]: unknown;\n')
            _append('}\nexport const %s: $c.ObjectCodec<%s> = $c.record<%s>(%s%s);\n' % (j_definition.codec, j_definition.name, j_definition.name, _builtins.indent(j_field_specs(j_definition.fields), 0), (', true' if j_definition.open else ''),))
        elif (j_kind == 'EnumPlan'):
            _append('%sexport type %s =\n' % (_filter_ts_doc(j_definition.doc), j_definition.name,))
            for j_value in j_definition.values:
                _append('  | %s\n' % (_filter_ts_string(j_value.value),))
            if j_definition.open:
                _append('  | (string & {})\n')
            elif (not j_definition.values):
                _append('  | never\n')
            _append(';\nexport const %s = {\n' % (j_definition.name,))
            for j_value_2 in j_definition.values:
                _append('%s  %s: %s,\n' % (_filter_ts_doc(j_value_2.doc, 2), _filter_ts_key(j_value_2.key), _filter_ts_string(j_value_2.value),))
            _append('} as const;\nexport const %s: $c.Codec<%s> = $c.enumeration<%s>(\n  [' % (j_definition.codec, j_definition.name, j_definition.name,))
            j_items = list(j_definition.values)
            for j_index, (j_value_3) in enumerate(j_items):
                _append('%s%s' % (_filter_ts_string(j_value_3.value), (', ' if (not (j_index == len(j_items) - 1)) else ""),))
            _append('],\n  %s,\n);\n' % (('true' if j_definition.open else 'false'),))
        elif (j_kind == 'VariantPlan'):
            _append('%sexport type %s =\n' % (_filter_ts_doc(j_definition.doc), j_definition.name,))
            for j_case in j_definition.cases:
                _append('%s  | ({ %s: %s }%s' % (_filter_ts_doc(j_case.doc, 2), _filter_ts_key(j_definition.tag), _filter_ts_string(j_case.tag), j_shared_type(j_definition),))
                if (not (j_case.type is None)):
                    _append(' & %s' % (_filter_ts_type(j_case.type),))
                _append(')\n')
            if (not (j_definition.default is None)):
                _append('%s  | ({ %s?: undefined }%s' % (_filter_ts_doc(j_definition.default.doc, 2), _filter_ts_key(j_definition.tag), j_shared_type(j_definition),))
                if (not (j_definition.default.type is None)):
                    _append(' & %s' % (_filter_ts_type(j_definition.default.type),))
                _append(')\n')
            if j_definition.open:
                _append('  | ({ %s: string }%s' % (_filter_ts_key(j_definition.tag), j_shared_type(j_definition),))
                if (not (j_definition.unknown is None)):
                    _append(' & %s' % (_filter_ts_type(j_definition.unknown),))
                _append(' & { [member: string]: unknown })\n')
            if (((not j_definition.cases) and (j_definition.default is None)) and (not j_definition.open)):
                _append('  | never\n')
            _append(';\nexport const %s: $c.Codec<%s> = $c.variant<%s>(\n  %s,\n  {\n' % (j_definition.codec, j_definition.name, j_definition.name, _filter_ts_string(j_definition.tag),))
            for j_case_2 in j_definition.cases:
                _append('    %s: %s,\n' % (_filter_ts_string(j_case_2.tag), ('null' if (j_case_2.type is None) else _filter_ts_codec(j_case_2.type, j_module.name)),))
            _append('  },\n  {\n    open: %s,\n' % (('true' if j_definition.open else 'false'),))
            if j_definition.shared:
                _append('    shared: $c.record(%s),\n' % (_builtins.indent(j_field_specs(j_definition.shared), 4),))
            if (not (j_definition.default is None)):
                _append('    default: %s,\n' % (('null' if (j_definition.default.type is None) else _filter_ts_codec(j_definition.default.type, j_module.name)),))
            if (not (j_definition.unknown is None)):
                _append('    unknown: %s,\n' % (_filter_ts_codec(j_definition.unknown, j_module.name),))
            _append('  },\n);\n')
        elif (j_kind == 'UnionPlan'):
            _append('%sexport type %s =\n' % (_filter_ts_doc(j_definition.doc), j_definition.name,))
            for j_alternative in j_definition.alternatives:
                _append('  | %s\n' % (_filter_ts_type(j_alternative),))
            if (not j_definition.alternatives):
                _append('  | never\n')
            _append(';\nexport const %s: $c.Codec<%s> = $c.union<%s>([\n' % (j_definition.codec, j_definition.name, j_definition.name,))
            for j_alternative_2 in j_definition.alternatives:
                _append('  %s,\n' % (_filter_ts_codec(j_alternative_2, j_module.name),))
            _append(']);\n')
        elif (j_kind == 'AliasPlan'):
            _append('%sexport type %s = %s;\nexport const %s: $c.Codec<%s> = %s;\n' % (_filter_ts_doc(j_definition.doc), j_definition.name, _filter_ts_type(j_definition.type), j_definition.codec, j_definition.name, _filter_ts_codec(j_definition.type, j_module.name),))
    j_interface = j_module.interface
    if (not (j_interface is None)):
        def j_input_param(j_method: Any, j_name_3: Any) -> str:
            _out: list[str] = []
            _append = _out.append
            if (not (j_method.input is None)):
                _append('%s: %s, ' % (j_name_3, _filter_ts_type(j_method.input),))
            return "".join(_out)
        def j_input_codec(j_method_2: Any) -> str:
            _out: list[str] = []
            _append = _out.append
            if (j_method_2.shape == 'wrapped'):
                _append('$c.wrapped(%s)' % (_filter_ts_codec_now(j_method_2.input),))
            else:
                _append(str(_filter_ts_codec_now(j_method_2.input)))
            return "".join(_out)
        _append('\n%sexport abstract class %s {\n  static readonly INTERFACE_ID = %s;\n  static readonly REVISION = %s;\n  /** The dispatch table (docs/wire.md §4): one entry per member, in declaration order. */\n  static readonly idlcInterface: $InterfaceSpec = {\n    name: %s,\n    id: %s,\n    revision: %s,\n    skeleton: this,\n    methods: [\n' % (_filter_ts_doc(j_interface.doc), j_interface.name, _filter_ts_string(j_interface.id), _filter_ts_string(j_interface.revision), _filter_ts_string(j_interface.name), _filter_ts_string(j_interface.id), _filter_ts_string(j_interface.revision),))
        for j_method_3 in j_interface.methods:
            _append('      {\n        wire: %s,\n        member: %s,\n        shape: "%s",\n        notify: %s,\n        required: %s,\n' % (_filter_ts_string(j_method_3.wire), _filter_ts_string(j_method_3.name), j_method_3.shape, ('true' if j_method_3.notify else 'false'), ('true' if j_method_3.required else 'false'),))
            if (j_method_3.input is None):
                _append('        decodeParams: () => undefined,\n')
            else:
                _append('        decodeParams: (params) => %s.decode(params),\n' % (j_input_codec(j_method_3),))
            if (_filter_ts_result(j_method_3.output) == 'void'):
                _append('        encodeResult: () => null,\n')
            else:
                _append('        encodeResult: (result) => %s.encode(result as %s),\n' % (_filter_ts_codec_now(j_method_3.output), _filter_ts_type(j_method_3.output),))
            _append('        invoke: (implementation, %s, context) =>\n          (implementation as %s).%s(' % (('input' if (not (j_method_3.input is None)) else '_input'), j_interface.name, j_method_3.name,))
            if (not (j_method_3.input is None)):
                _append('input as %s, ' % (_filter_ts_type(j_method_3.input),))
            _append('context),\n      },\n')
        _append('    ],\n  };\n')
        for j_method_4 in j_interface.methods:
            _append('\n%s' % (_filter_ts_doc(j_method_4.doc, 2),))
            if j_method_4.required:
                _append('  abstract %s(%scontext: $CallContext): Promise<%s>;\n' % (j_method_4.name, j_input_param(j_method_4, 'input'), _filter_ts_result(j_method_4.output),))
            else:
                _append('  async %s(%s_context: $CallContext): Promise<%s> {\n    throw new $Unsupported(%s);\n  }\n' % (j_method_4.name, j_input_param(j_method_4, '_input'), _filter_ts_result(j_method_4.output), _filter_ts_string(j_method_4.wire),))
        _append('}\n\n%sexport class %s {\n' % (_filter_ts_doc(j_interface.doc), j_interface.proxy,))
        if j_interface.methods:
            _append('  readonly #peer: $Caller;\n  readonly #target: string | undefined;\n\n')
        _append('  /** Calls over `peer`, aimed at the object registered under `target` (`$target`, docs/wire.md §5) when given. */\n')
        if j_interface.methods:
            _append('  constructor(peer: $Caller, target?: string) {\n    this.#peer = peer;\n    this.#target = target;\n  }\n')
        else:
            _append('  constructor(_peer: $Caller, _target?: string) {}\n')
        for j_method_5 in j_interface.methods:
            j_params: Any
            _append('\n')
            j_params = (('$c.callParams(' + ((j_input_codec(j_method_5) + '.encode(input)') if (not (j_method_5.input is None)) else 'undefined')) + ', this.#target)')
            _append('%s  async %s(%s%s?: $CallOptions): Promise<%s> {\n' % (_filter_ts_doc(j_method_5.doc, 2), j_method_5.name, j_input_param(j_method_5, 'input'), ('_options' if j_method_5.notify else 'options'), _filter_ts_result(j_method_5.output),))
            if j_method_5.notify:
                _append('    await this.#peer.notify(%s, %s);\n' % (_filter_ts_string(j_method_5.wire), j_params,))
            elif (_filter_ts_result(j_method_5.output) == 'void'):
                _append('    await this.#peer.request(%s, %s, options);\n' % (_filter_ts_string(j_method_5.wire), j_params,))
            else:
                _append('    const result = await this.#peer.request(%s, %s, options);\n    return $c.decodeResult(%s, result, %s);\n' % (_filter_ts_string(j_method_5.wire), j_params, _filter_ts_codec_now(j_method_5.output), _filter_ts_string(j_method_5.wire),))
            _append('  }\n')
        _append('}\n')
    return _out, {'field_members': j_field_members, 'field_specs': j_field_specs, 'shared_type': j_shared_type}


def render(**context: Any) -> str:
    return "".join(_root(context)[0])


@functools.cache
def exports() -> types.SimpleNamespace:
    """The template's macros, as `{% import %}` gives them (rendered once, without
    context)."""
    return types.SimpleNamespace(**_root({})[1])
