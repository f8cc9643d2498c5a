"""templates/_types.py.j2, compiled to Python by idlc.codegen.template_compiler.

Generated: do not edit. Edit the template and run `python -m idlc.codegen.template_compiler`;
idlc.codegen.template_loader uses this module only while SOURCE is the template's text.
"""

# fmt: off
# mypy: disable-error-code="no-any-return"
from __future__ import annotations

import functools
import types
from typing import Any

from idlc.codegen.filters import FILTERS as _FILTERS

TEMPLATE = '_types.py.j2'
SOURCE = '{#- The definitions of types: bounded integers, classes, aliases, decoding registrations.\n    Each macro writes whole lines, ending with a line break. -#}\n\n{% macro integer_alias(alias) %}\n{% if alias.checked_by_hooks %}\nif typing.TYPE_CHECKING:\n    {{ alias.name }} = int\nelse:\n    {{ alias.name }} = _hooks.UInt64\n{% else %}\n{{ (alias.name + " = typing.Annotated[") | wrap(["int", "msgspec.Meta(ge=" ~ alias.low ~ ", le=" ~ alias.high ~ ")"], "]") }}\n{% endif %}\n{% endmacro %}\n\n{#- Classes, two blank lines before each, each kind with its bases. -#}\n{% macro classes(classes) %}\n{% for class in classes %}\n\n\n{% set opening = "class " + class.name + "(" %}\n{% if class.kind == "struct" %}\n{% set tag = ["tag_field=" + class.tag_field, "tag=" + class.tag] if class.tag else [] %}\n{{ opening | wrap([class.parent or "msgspec.Struct"] + class.choices + ["kw_only=True", "omit_defaults=True"] + tag, "):") }}\n{% elif class.kind == "enum" %}\n{{ opening | bracket_body(["_hooks.OpenEnum" if class.open else "enum.Enum"], "):") }}\n{% elif class.kind == "marker" %}\n{{ opening | bracket_body((["list[typing.Any]"] if class.of_lists else []) + ["_hooks.VariantBase" if class.marks == "variant" else ("_hooks.CatchAllUnionBase" if class.catch_all else "_hooks.UnionBase")], "):") }}\n{% elif class.kind == "unknown" %}\n{{ opening | bracket_body(["_hooks.UnknownCase"] + class.choices, "):") }}\n{% else %}\n{{ opening | bracket_body(["_hooks.OpenRecord"] + class.choices, "):") }}\n{% endif %}\n{% set doc = class.doc | docstring(4) %}\n{% set has_body = class.fields or class.members or class.kind in ("marker", "unknown", "open") %}\n{% if doc %}\n    {{ doc }}\n{% if has_body %}\n\n{% endif %}\n{% elif not has_body %}\n    pass\n{% endif %}\n{% if class.kind in ("marker", "unknown") %}\n    __slots__ = ()\n{% endif %}\n{% if class.kind == "open" %}\n    __idlc_fields__ = {{ class.fields_class }}\n{% endif %}\n{% if class.shared %}\n    _idlc_fields: {{ class.shared }}\n{% for field in class.fields %}\n\n    @property\n    def {{ field.attribute }}(self) -> {{ field.annotation }}:\n{% set doc = field.doc | docstring(8) if field.doc else "" %}\n{% if doc %}\n        {{ doc }}\n{% endif %}\n        return self._idlc_fields.{{ field.attribute }}\n{% endfor %}\n{% endif %}\n{% if class.typed %}\n{% if class.shared and class.fields %}\n\n{% endif %}\n    _idlc_typed: {{ class.typed }}\n{% for field in class.typed_fields %}\n\n    @property\n    def {{ field.attribute }}(self) -> {{ field.annotation }}:\n{% set doc = field.doc | docstring(8) if field.doc else "" %}\n{% if doc %}\n        {{ doc }}\n{% endif %}\n        return self._idlc_typed.{{ field.attribute }}\n{% endfor %}\n{% endif %}\n{% for field in class.fields if not class.shared %}\n{% set head = field.attribute + ": " + field.annotation %}\n{% if field.factory %}\n    {{ head | assign_call("msgspec.field(", ["default_factory=" + field.factory] + (["name=" + field.wire | python_string] if field.renamed else []), ")", 4) }}\n{% elif field.renamed %}\n    {{ head | assign_call("msgspec.field(", (["default=" + field.default] if field.default else []) + ["name=" + field.wire | python_string], ")", 4) }}\n{% elif field.default %}\n    {{ head }} = {{ field.default }}\n{% else %}\n    {{ head }}\n{% endif %}\n{% if field.doc %}\n{% set doc = field.doc | docstring(4) %}\n{% if doc %}\n    {{ doc }}\n{% endif %}\n{% endif %}\n{% endfor %}\n{% for member in class.members %}\n    {{ member.name }} = {{ member.value }}\n{% set doc = member.doc | docstring(4) %}\n{% if doc %}\n    {{ doc }}\n{% endif %}\n{% endfor %}\n{% endfor %}\n{% endmacro %}\n\n{% macro alias(alias) %}\n{% if alias.runtime %}\nif typing.TYPE_CHECKING:\n    {{ (alias.name + ": typing.TypeAlias") | union_value(alias.alternatives, 4) }}\nelse:\n    {{ alias.name }} = {{ alias.runtime }}\n{% else %}\n{{ (alias.name + ": typing.TypeAlias") | union_value(alias.alternatives) }}\n{% endif %}\n{% set doc = alias.doc | docstring(0) %}\n{% if doc %}\n{{ doc }}\n{% endif %}\n{% endmacro %}\n\n{% macro registration(info) %}\n{% if info.kind == "variant" %}\n{{ (info.base + ".__idlc_variant__ = _hooks.VariantInfo(") | wrap([\n    "tag_field=" + info.tag_field,\n    "cases={" | wrap(info.cases | each("{0.tag}: {0.class_name}"), "}", 4, item=True),\n    "default=" + (info.default or "None"),\n    "unknown=" + (info.unknown or "None"),\n] + (["fields=" + info.fields] if info.fields else []) + (["unknown_type=" + info.unknown_type] if info.unknown_type else []), ")") }}\n{% elif info.kind == "union" %}\n{{ (info.base + ".__idlc_union__ = _hooks.UnionInfo(") | wrap([\n    "alternatives=(" | wrap(info.alternatives, ")", 4, item=True),\n], ")") }}\n{% else %}\n{% set arguments = [info.class_name] %}\n{% for keyword, names in [("lenient", info.lenient), ("skip_invalid", info.skip_invalid), ("null_default", info.null_default)] if names %}\n{% do arguments.append(tuple_of(keyword + "=", names)) %}\n{% endfor %}\n{{ "_hooks.forward_compatible(" | wrap(arguments, ")") }}\n{% endif %}\n{% endmacro %}\n\n{#- `prefix` and a tuple of names, as an argument of a call at indentation 0 (the prefix\n    counts in the line\'s width). #}\n{% macro tuple_of(prefix, names) -%}\n{% if names | length == 1 %}{{ prefix }}({{ names[0] }},){% else %}{{ (prefix + "(") | wrap(names, ")", 4, item=True) }}{% endif %}\n{%- endmacro %}\n'
OPTIONS = "[('autoescape', False), ('extensions', ['jinja2.ext.do']), ('keep_trailing_newline', True), ('lstrip_blocks', True), ('trim_blocks', True)]"
IMPORTS = ()

_filter_assign_call = _FILTERS['assign_call']
_filter_bracket_body = _FILTERS['bracket_body']
_filter_docstring = _FILTERS['docstring']
_filter_each = _FILTERS['each']
_filter_python_string = _FILTERS['python_string']
_filter_union_value = _FILTERS['union_value']
_filter_wrap = _FILTERS['wrap']


def _root(context: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    _out: list[str] = []
    _append = _out.append
    def j_integer_alias(j_alias_2: Any) -> str:
        _out: list[str] = []
        _append = _out.append
        if j_alias_2.checked_by_hooks:
            _append('if typing.TYPE_CHECKING:\n    %s = int\nelse:\n    %s = _hooks.UInt64\n' % (j_alias_2.name, j_alias_2.name,))
        else:
            _append('%s\n' % (_filter_wrap((j_alias_2.name + ' = typing.Annotated['), ['int', (str('msgspec.Meta(ge=') + str(j_alias_2.low) + str(', le=') + str(j_alias_2.high) + str(')'))], ']'),))
        return "".join(_out)
    def j_classes(j_classes_2: Any) -> str:
        _out: list[str] = []
        _append = _out.append
        for j_class in j_classes_2:
            j_opening: Any
            j_tag: Any
            j_doc: Any
            j_has_body: Any
            _append('\n\n')
            j_opening = (('class ' + j_class.name) + '(')
            if (j_class.kind == 'struct'):
                j_tag = ([('tag_field=' + j_class.tag_field), ('tag=' + j_class.tag)] if j_class.tag else [])
                _append('%s\n' % (_filter_wrap(j_opening, ((([(j_class.parent or 'msgspec.Struct')] + j_class.choices) + ['kw_only=True', 'omit_defaults=True']) + j_tag), '):'),))
            elif (j_class.kind == 'enum'):
                _append('%s\n' % (_filter_bracket_body(j_opening, [('_hooks.OpenEnum' if j_class.open else 'enum.Enum')], '):'),))
            elif (j_class.kind == 'marker'):
                _append('%s\n' % (_filter_bracket_body(j_opening, ((['list[typing.Any]'] if j_class.of_lists else []) + [('_hooks.VariantBase' if (j_class.marks == 'variant') else ('_hooks.CatchAllUnionBase' if j_class.catch_all else '_hooks.UnionBase'))]), '):'),))
            elif (j_class.kind == 'unknown'):
                _append('%s\n' % (_filter_bracket_body(j_opening, (['_hooks.UnknownCase'] + j_class.choices), '):'),))
            else:
                _append('%s\n' % (_filter_bracket_body(j_opening, (['_hooks.OpenRecord'] + j_class.choices), '):'),))
            j_doc = _filter_docstring(j_class.doc, 4)
            j_has_body = ((j_class.fields or j_class.members) or (j_class.kind in ('marker', 'unknown', 'open', )))
            if j_doc:
                _append('    %s\n' % (j_doc,))
                if j_has_body:
                    _append('\n')
            elif (not j_has_body):
                _append('    pass\n')
            if (j_class.kind in ('marker', 'unknown', )):
                _append('    __slots__ = ()\n')
            if (j_class.kind == 'open'):
                _append('    __idlc_fields__ = %s\n' % (j_class.fields_class,))
            if j_class.shared:
                _append('    _idlc_fields: %s\n' % (j_class.shared,))
                for j_field in j_class.fields:
                    j_doc_2: Any
                    _append('\n    @property\n    def %s(self) -> %s:\n' % (j_field.attribute, j_field.annotation,))
                    j_doc_2 = (_filter_docstring(j_field.doc, 8) if j_field.doc else '')
                    if j_doc_2:
                        _append('        %s\n' % (j_doc_2,))
                    _append('        return self._idlc_fields.%s\n' % (j_field.attribute,))
            if j_class.typed:
                if (j_class.shared and j_class.fields):
                    _append('\n')
                _append('    _idlc_typed: %s\n' % (j_class.typed,))
                for j_field_2 in j_class.typed_fields:
                    j_doc_3: Any
                    _append('\n    @property\n    def %s(self) -> %s:\n' % (j_field_2.attribute, j_field_2.annotation,))
                    j_doc_3 = (_filter_docstring(j_field_2.doc, 8) if j_field_2.doc else '')
                    if j_doc_3:
                        _append('        %s\n' % (j_doc_3,))
                    _append('        return self._idlc_typed.%s\n' % (j_field_2.attribute,))
            for j_field_3 in j_class.fields:
                if not (not j_class.shared):
                    continue
                j_head: Any
                j_doc_4: Any
                j_head = ((j_field_3.attribute + ': ') + j_field_3.annotation)
                if j_field_3.factory:
                    _append('    %s\n' % (_filter_assign_call(j_head, 'msgspec.field(', ([('default_factory=' + j_field_3.factory)] + ([('name=' + _filter_python_string(j_field_3.wire))] if j_field_3.renamed else [])), ')', 4),))
                elif j_field_3.renamed:
                    _append('    %s\n' % (_filter_assign_call(j_head, 'msgspec.field(', (([('default=' + j_field_3.default)] if j_field_3.default else []) + [('name=' + _filter_python_string(j_field_3.wire))]), ')', 4),))
                elif j_field_3.default:
                    _append('    %s = %s\n' % (j_head, j_field_3.default,))
                else:
                    _append('    %s\n' % (j_head,))
                if j_field_3.doc:
                    j_doc_4 = _filter_docstring(j_field_3.doc, 4)
                    if j_doc_4:
                        _append('    %s\n' % (j_doc_4,))
            for j_member in j_class.members:
                j_doc_5: Any
                _append('    %s = %s\n' % (j_member.name, j_member.value,))
                j_doc_5 = _filter_docstring(j_member.doc, 4)
                if j_doc_5:
                    _append('    %s\n' % (j_doc_5,))
        return "".join(_out)
    _append('\n')
    def j_alias(j_alias_3: Any) -> str:
        j_doc_6: Any
        _out: list[str] = []
        _append = _out.append
        if j_alias_3.runtime:
            _append('if typing.TYPE_CHECKING:\n    %s\nelse:\n    %s = %s\n' % (_filter_union_value((j_alias_3.name + ': typing.TypeAlias'), j_alias_3.alternatives, 4), j_alias_3.name, j_alias_3.runtime,))
        else:
            _append('%s\n' % (_filter_union_value((j_alias_3.name + ': typing.TypeAlias'), j_alias_3.alternatives),))
        j_doc_6 = _filter_docstring(j_alias_3.doc, 0)
        if j_doc_6:
            _append('%s\n' % (j_doc_6,))
        return "".join(_out)
    _append('\n')
    def j_registration(j_info: Any) -> str:
        j_arguments: Any
        _out: list[str] = []
        _append = _out.append
        if (j_info.kind == 'variant'):
            _append('%s\n' % (_filter_wrap((j_info.base + '.__idlc_variant__ = _hooks.VariantInfo('), (([('tag_field=' + j_info.tag_field), _filter_wrap('cases={', _filter_each(j_info.cases, '{0.tag}: {0.class_name}'), '}', 4, item=True), ('default=' + (j_info.default or 'None')), ('unknown=' + (j_info.unknown or 'None'))] + ([('fields=' + j_info.fields)] if j_info.fields else [])) + ([('unknown_type=' + j_info.unknown_type)] if j_info.unknown_type else [])), ')'),))
        elif (j_info.kind == 'union'):
            _append('%s\n' % (_filter_wrap((j_info.base + '.__idlc_union__ = _hooks.UnionInfo('), [_filter_wrap('alternatives=(', j_info.alternatives, ')', 4, item=True)], ')'),))
        else:
            j_arguments = [j_info.class_name]
            for j_keyword, j_names in [('lenient', j_info.lenient, ), ('skip_invalid', j_info.skip_invalid, ), ('null_default', j_info.null_default, )]:
                if not j_names:
                    continue
                j_arguments.append(j_tuple_of((j_keyword + '='), j_names))
            _append('%s\n' % (_filter_wrap('_hooks.forward_compatible(', j_arguments, ')'),))
        return "".join(_out)
    def j_tuple_of(j_prefix: Any, j_names_2: Any) -> str:
        _out: list[str] = []
        _append = _out.append
        if (len(j_names_2) == 1):
            _append('%s(%s,)' % (j_prefix, j_names_2[0],))
        else:
            _append(str(_filter_wrap((j_prefix + '('), j_names_2, ')', 4, item=True)))
        return "".join(_out)
    return _out, {'integer_alias': j_integer_alias, 'classes': j_classes, 'alias': j_alias, 'registration': j_registration, 'tuple_of': j_tuple_of}


def render(**context: Any) -> str:
    return "".join(_root(context)[0])


@functools.cache
def exports() -> types.SimpleNamespace:
    """The template's macros, as `{% import %}` gives them (rendered once, without
    context)."""
    return types.SimpleNamespace(**_root({})[1])
