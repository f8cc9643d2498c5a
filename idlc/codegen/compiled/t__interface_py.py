"""templates/_interface.py.j2, compiled to Python by idlc.codegen.template_compiler.

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

TEMPLATE = '_interface.py.j2'
SOURCE = '{#- An interface: the skeleton a server implements, the proxy a client calls, the adapter\n    functions and the dispatch table the runtime serves it with (docs/wire.md). Each macro\n    writes whole lines, ending with a line break. -#}\n\n{#- `methods`: each method with its signature, docstring and input forms (`definition`). -#}\n{% macro skeleton(interface, methods) %}\nclass {{ interface.name }}(abc.ABC):\n{% set doc = interface.doc | docstring(4) %}\n{% if doc %}\n    {{ doc }}\n\n{% endif %}\n    INTERFACE_ID: typing.ClassVar[str] = {{ interface.id | python_string }}\n    REVISION: typing.ClassVar[str] = {{ interface.revision | python_string }}\n    __idlc_interface__: typing.ClassVar[_rt.InterfaceSpec]\n{% for method, signature, doc, sends, arguments in methods %}\n\n{% if method.required %}\n    @abc.abstractmethod\n{% endif %}\n{% if method.required and not doc %}\n    {{ signature }} ...\n{% else %}\n    {{ signature }}\n{% endif %}\n{% if doc %}\n        {{ doc }}\n{% endif %}\n{% if method.required %}\n{% elif method.notify %}\n        return None\n{% else %}\n        raise Unsupported({{ method.wire }})\n{% endif %}\n{% endfor %}\n{%- endmacro %}\n\n{% macro proxy(interface, methods) %}\nclass {{ interface.proxy }}:\n    """Calls `{{ interface.name }}` on the other end of a connection.\n\n    `target` aims every call at the object served under that key instead of the root.\n    """\n\n    __slots__ = ("_peer", "_target")\n\n    def __init__(self, peer: _rt.Caller, target: str | None = None) -> None:\n        self._peer = peer\n        self._target = target\n{% for method, signature, doc, sends, arguments in methods %}\n\n    {{ signature }}\n{% if doc %}\n        {{ doc }}\n{% endif %}\n{% if method.notify %}\n        {{ "await self._peer.notify(" | wrap([method.wire, sends, "target=self._target"], ")", 8) }}\n{% elif method.casts_result %}\n        {{ "return typing.cast(" | wrap([\n            method.returns | python_string,\n            "await self._peer.request(" | wrap([method.wire, sends, method.result_type, "target=self._target"], ")", 12, item=True),\n        ], ")", 8) }}\n{% elif method.returns_value %}\n        {{ "return await self._peer.request(" | wrap([method.wire, sends, method.result_type, "target=self._target"], ")", 8) }}\n{% else %}\n        {{ "await self._peer.request(" | wrap([method.wire, sends, method.result_type, "target=self._target"], ")", 8) }}\n{% endif %}\n{% endfor %}\n{%- endmacro %}\n\n{#- The adapters the dispatch table calls: decoded params in, the member\'s result out. -#}\n{% macro invokes(interface, methods) %}\n{% for method, _, _, _, arguments in methods %}\n\n\n{{ ("async def " + method.invoke + "(") | wrap(["impl: " + interface.name, "params: " + method.params_type], ") -> " + method.returns + ":") }}\n    {{ (("return await impl." if method.returns_value else "await impl.") + method.name + "(") | wrap(arguments, ")", 4) }}\n{% endfor %}\n{%- endmacro %}\n\n{% macro dispatch_table(interface) %}\n{% if interface.methods %}\n_METHODS = (\n{% for method in interface.methods %}\n    _rt.MethodSpec(\n        wire={{ method.wire }},\n        member={{ method.name | python_string }},\n        shape=_rt.InputShape.{{ method.shape }},\n        params_type={{ method.params_type }},\n        result_type={{ method.result_type }},\n        invoke={{ method.invoke }},\n        execution={{ ("_rt.Execution." + method.execution) if method.execution else "None" }},\n        notify={{ method.notify }},\n        required={{ method.required }},\n    ),\n{% endfor %}\n)\n{% else %}\n{#- mypy cannot infer the type of an empty tuple. -#}\n_METHODS: tuple[_rt.MethodSpec, ...] = ()\n{% endif %}\n{{ interface.name }}.__idlc_interface__ = _rt.InterfaceSpec(\n    name={{ interface.idl_name | python_string }},\n    id={{ interface.id | python_string }},\n    revision={{ interface.revision | python_string }},\n    methods=_METHODS,\n    skeleton={{ interface.name }},\n)\n{% endmacro %}\n\n{#- The whole interface, from the macros above. -#}\n{% macro definition(interface) %}\n{# Each method\'s signature, docstring and input forms, written once for the skeleton, the\n   proxy and the adapters alike: `async def name(self, *, field: T = default, …) -> R:` or\n   `(self, input: T)`. Where the proxy casts its result, what it sends as params is one\n   level deeper, inside typing.cast. #}\n{% set methods = [] %}\n{% for method in interface.methods %}\n{#- How the method\'s input is written (docs/wire.md §4), in its three places: the\n    `parameters` of its signature, the params the proxy `sends`, and the `arguments` the\n    adapter passes on from the decoded params. Set here, in the loop\'s own scope, rather\n    than by a macro on a namespace: this runs for every method of a large schema. #}\n{% if method.input_style == "fields" %}\n{% set parameters = ["self"] + (["*"] if method.params else []) + method.params | each(\n    "{0.attribute}: {0.annotation} = {0.argument_default}",\n    when="argument_default",\n    otherwise="{0.attribute}: {0.annotation}",\n) %}\n{% set sends = (method.params_type + "(") | wrap(method.params | each("{0.attribute}={0.attribute}"), ")", 16 if method.casts_result else 12, item=True) %}\n{% set arguments = method.params | each("{0.attribute}=params.{0.attribute}") %}\n{% elif method.input_style == "object" %}\n{% set parameters = ["self", "input: " + method.input] %}\n{% set sends = "input" %}\n{% set arguments = ["params"] %}\n{% elif method.input_style == "wrapped" %}\n{% set parameters = ["self", "input: " + method.input] %}\n{% set sends = method.params_type + "(input=input)" %}\n{% set arguments = ["params.input"] %}\n{% else %}\n{% set parameters = ["self"] %}\n{% set sends = "None" %}\n{% set arguments = [] %}\n{% endif %}\n{% set signature = ("async def " + method.name + "(") | wrap(parameters, ") -> " + method.returns + ":", 4) %}\n{% do methods.append((method, signature, method.doc | docstring(8), sends, arguments)) %}\n{% endfor %}\n{{ skeleton(interface, methods) }}\n{#- (each of these macros ends its last line) #}\n\n\n{{ proxy(interface, methods) }}\n{#- #}\n{{ invokes(interface, methods) }}\n{#- #}\n\n\n{{ dispatch_table(interface) }}\n{%- endmacro %}\n'
OPTIONS = "[('autoescape', False), ('extensions', ['jinja2.ext.do']), ('keep_trailing_newline', True), ('lstrip_blocks', True), ('trim_blocks', True)]"
IMPORTS = ()

_filter_docstring = _FILTERS['docstring']
_filter_each = _FILTERS['each']
_filter_python_string = _FILTERS['python_string']
_filter_wrap = _FILTERS['wrap']


def _root(context: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    _out: list[str] = []
    _append = _out.append
    def j_skeleton(j_interface: Any, j_methods: Any) -> str:
        j_doc: Any
        _out: list[str] = []
        _append = _out.append
        _append('class %s(abc.ABC):\n' % (j_interface.name,))
        j_doc = _filter_docstring(j_interface.doc, 4)
        if j_doc:
            _append('    %s\n\n' % (j_doc,))
        _append('    INTERFACE_ID: typing.ClassVar[str] = %s\n    REVISION: typing.ClassVar[str] = %s\n    __idlc_interface__: typing.ClassVar[_rt.InterfaceSpec]\n' % (_filter_python_string(j_interface.id), _filter_python_string(j_interface.revision),))
        for j_method, j_signature, j_doc_2, j_sends, j_arguments in j_methods:
            _append('\n')
            if j_method.required:
                _append('    @abc.abstractmethod\n')
            if (j_method.required and (not j_doc_2)):
                _append('    %s ...\n' % (j_signature,))
            else:
                _append('    %s\n' % (j_signature,))
            if j_doc_2:
                _append('        %s\n' % (j_doc_2,))
            if j_method.required:
                pass
            elif j_method.notify:
                _append('        return None\n')
            else:
                _append('        raise Unsupported(%s)\n' % (j_method.wire,))
        return "".join(_out)
    _append('\n')
    def j_proxy(j_interface_2: Any, j_methods_2: Any) -> str:
        _out: list[str] = []
        _append = _out.append
        _append('class %s:\n    """Calls `%s` on the other end of a connection.\n\n    `target` aims every call at the object served under that key instead of the root.\n    """\n\n    __slots__ = ("_peer", "_target")\n\n    def __init__(self, peer: _rt.Caller, target: str | None = None) -> None:\n        self._peer = peer\n        self._target = target\n' % (j_interface_2.proxy, j_interface_2.name,))
        for j_method_2, j_signature_2, j_doc_3, j_sends_2, j_arguments_2 in j_methods_2:
            _append('\n    %s\n' % (j_signature_2,))
            if j_doc_3:
                _append('        %s\n' % (j_doc_3,))
            if j_method_2.notify:
                _append('        %s\n' % (_filter_wrap('await self._peer.notify(', [j_method_2.wire, j_sends_2, 'target=self._target'], ')', 8),))
            elif j_method_2.casts_result:
                _append('        %s\n' % (_filter_wrap('return typing.cast(', [_filter_python_string(j_method_2.returns), _filter_wrap('await self._peer.request(', [j_method_2.wire, j_sends_2, j_method_2.result_type, 'target=self._target'], ')', 12, item=True)], ')', 8),))
            elif j_method_2.returns_value:
                _append('        %s\n' % (_filter_wrap('return await self._peer.request(', [j_method_2.wire, j_sends_2, j_method_2.result_type, 'target=self._target'], ')', 8),))
            else:
                _append('        %s\n' % (_filter_wrap('await self._peer.request(', [j_method_2.wire, j_sends_2, j_method_2.result_type, 'target=self._target'], ')', 8),))
        return "".join(_out)
    def j_invokes(j_interface_3: Any, j_methods_3: Any) -> str:
        _out: list[str] = []
        _append = _out.append
        for j_method_3, j__, j__, j__, j_arguments_3 in j_methods_3:
            _append('\n\n%s\n    %s\n' % (_filter_wrap((('async def ' + j_method_3.invoke) + '('), [('impl: ' + j_interface_3.name), ('params: ' + j_method_3.params_type)], ((') -> ' + j_method_3.returns) + ':')), _filter_wrap(((('return await impl.' if j_method_3.returns_value else 'await impl.') + j_method_3.name) + '('), j_arguments_3, ')', 4),))
        return "".join(_out)
    _append('\n')
    def j_dispatch_table(j_interface_4: Any) -> str:
        _out: list[str] = []
        _append = _out.append
        if j_interface_4.methods:
            _append('_METHODS = (\n')
            for j_method_4 in j_interface_4.methods:
                _append('    _rt.MethodSpec(\n        wire=%s,\n        member=%s,\n        shape=_rt.InputShape.%s,\n        params_type=%s,\n        result_type=%s,\n        invoke=%s,\n        execution=%s,\n        notify=%s,\n        required=%s,\n    ),\n' % (j_method_4.wire, _filter_python_string(j_method_4.name), j_method_4.shape, j_method_4.params_type, j_method_4.result_type, j_method_4.invoke, (('_rt.Execution.' + j_method_4.execution) if j_method_4.execution else 'None'), j_method_4.notify, j_method_4.required,))
            _append(')\n')
        else:
            _append('_METHODS: tuple[_rt.MethodSpec, ...] = ()\n')
        _append('%s.__idlc_interface__ = _rt.InterfaceSpec(\n    name=%s,\n    id=%s,\n    revision=%s,\n    methods=_METHODS,\n    skeleton=%s,\n)\n' % (j_interface_4.name, _filter_python_string(j_interface_4.idl_name), _filter_python_string(j_interface_4.id), _filter_python_string(j_interface_4.revision), j_interface_4.name,))
        return "".join(_out)
    def j_definition(j_interface_5: Any) -> str:
        j_methods_4: Any
        _out: list[str] = []
        _append = _out.append
        j_methods_4 = []
        for j_method_5 in j_interface_5.methods:
            j_parameters: Any
            j_sends_3: Any
            j_arguments_4: Any
            j_signature_3: Any
            if (j_method_5.input_style == 'fields'):
                j_parameters = ((['self'] + (['*'] if j_method_5.params else [])) + _filter_each(j_method_5.params, '{0.attribute}: {0.annotation} = {0.argument_default}', when='argument_default', otherwise='{0.attribute}: {0.annotation}'))
                j_sends_3 = _filter_wrap((j_method_5.params_type + '('), _filter_each(j_method_5.params, '{0.attribute}={0.attribute}'), ')', (16 if j_method_5.casts_result else 12), item=True)
                j_arguments_4 = _filter_each(j_method_5.params, '{0.attribute}=params.{0.attribute}')
            elif (j_method_5.input_style == 'object'):
                j_parameters = ['self', ('input: ' + j_method_5.input)]
                j_sends_3 = 'input'
                j_arguments_4 = ['params']
            elif (j_method_5.input_style == 'wrapped'):
                j_parameters = ['self', ('input: ' + j_method_5.input)]
                j_sends_3 = (j_method_5.params_type + '(input=input)')
                j_arguments_4 = ['params.input']
            else:
                j_parameters = ['self']
                j_sends_3 = 'None'
                j_arguments_4 = []
            j_signature_3 = _filter_wrap((('async def ' + j_method_5.name) + '('), j_parameters, ((') -> ' + j_method_5.returns) + ':'), 4)
            j_methods_4.append((j_method_5, j_signature_3, _filter_docstring(j_method_5.doc, 8), j_sends_3, j_arguments_4, ))
        _append('%s\n\n%s%s\n\n%s' % (j_skeleton(j_interface_5, j_methods_4), j_proxy(j_interface_5, j_methods_4), j_invokes(j_interface_5, j_methods_4), j_dispatch_table(j_interface_5),))
        return "".join(_out)
    return _out, {'skeleton': j_skeleton, 'proxy': j_proxy, 'invokes': j_invokes, 'dispatch_table': j_dispatch_table, 'definition': j_definition}


def render(**context: Any) -> str:
    return "".join(_root(context)[0])


@functools.cache
def exports() -> types.SimpleNamespace:
    """The template's macros, as `{% import %}` gives them (rendered once, without
    context)."""
    return types.SimpleNamespace(**_root({})[1])
