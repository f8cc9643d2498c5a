"""Interfaces as views: the skeleton's and the proxy's methods and the dispatch table.

One module per interface holds the skeleton, the proxy, the adapter functions the table
invokes, and the inline types of its members (with the params wrappers of inputs that are
not objects, docs/wire.md §4).
"""

from __future__ import annotations

from idlc.codegen.build_types import TypeBuilder
from idlc.codegen.expressions import ModuleContext
from idlc.codegen.layout import python_string
from idlc.codegen.typeexpr import NONE, TypeExpr, generic
from idlc.codegen.views import (
    ClassView,
    Doc,
    FieldView,
    InterfaceView,
    MethodView,
    ModuleView,
    doc_of,
)
from idlc.semantics import model as m
from idlc.targets.python.mapping import MemberNames

_EXECUTION = {m.Execution.SNAPSHOT: "SNAPSHOT", m.Execution.TRANSACTION: "TRANSACTION"}


def _params_wrapper(name: str, wire: str, annotation: TypeExpr) -> ClassView:
    """The `{"input": …}` params of a member whose input is not an object."""
    input_field = FieldView("input", annotation, "input", False, None, None, None)
    note = f"The params of `{wire}`: its input under `input`."
    return ClassView(name, "struct", Doc(None, note), [input_field])


def _method(
    builder: TypeBuilder, ctx: ModuleContext, names: MemberNames, member: m.Member
) -> MethodView:
    input_style = names.input_style  # "none" for a value or a relation
    params: list[FieldView] = []
    input_annotation: TypeExpr | None = None
    params_type = NONE
    if isinstance(member, m.Value):
        returns = result_type = ctx.expr(member.type)
    elif isinstance(member, m.Relation):
        target = member.target
        ref = ctx.ref(target.atom if isinstance(target, m.AtomTarget) else target.interface)
        if member.cardinality is m.Cardinality.EXACTLY_ONE:
            returns = result_type = ref
        elif member.cardinality is m.Cardinality.OPTIONAL_ONE:
            returns = result_type = ref.or_none()
        else:
            returns = generic("frozenset", ref)
            result_type = generic("_hooks.UniqueSet", ref)
    else:
        returns = result_type = ctx.expr(member.output)
        input_type = member.input
        if input_style == "fields":  # an inline closed record: its fields are keywords
            params_type = ctx.expr(input_type)
            params = [builder.field_view(ctx, field_) for field_ in names.input_fields]
        elif input_style == "object":
            params_type = input_annotation = ctx.expr(input_type)
        elif input_style == "wrapped":
            input_annotation = ctx.expr(input_type)
            wrapper = names.params
            assert wrapper is not None  # the plan names one for every wrapped input
            params_type = TypeExpr(wrapper)
            ctx.module.classes.append(_params_wrapper(wrapper, member.binding.id, input_annotation))
            ctx.module.public.append(wrapper)
    execution = member.binding.execution
    return MethodView(
        name=names.method,
        wire=python_string(member.binding.id),
        doc=doc_of(member.doc),
        required=member.required,
        notify=member.binding.notify,
        input_style=input_style,
        params=params,
        input=input_annotation,
        params_type=params_type,
        returns=returns,
        result_type=result_type,
        invoke=names.invoke,
        execution=_EXECUTION[execution] if execution else None,
    )


def build_interface(builder: TypeBuilder, module: ModuleView, interface: m.Interface) -> None:
    ctx = builder.context(module)
    builder.define_all(module, builder.plan.interface_definitions[interface.name])
    names = builder.plan.interfaces[interface.name]
    methods = [
        _method(builder, ctx, names.members[member.name], member) for member in interface.members
    ]
    name, proxy = names.skeleton, names.proxy
    module.interface = InterfaceView(
        name=name,
        idl_name=interface.name,
        proxy=proxy,
        doc=doc_of(interface.doc),
        id=interface.id,
        revision=interface.revision,
        methods=methods,
    )
    module.public.extend([name, proxy])
