"""The templates of `templates/` compiled to plain Python modules (`idlc/codegen/compiled/`),
so that `idlc generate` renders without importing Jinja2 (a sixth of a small run's start-up).

Used at idlc's development time only: `python -m idlc.codegen.template_compiler` writes
the modules, which are committed; `idlc.codegen.template_loader` uses one at run time only
while the template it was made from is unchanged, and Jinja2 renders it otherwise. The
templates stay the source of truth: this parses each with the very environment idlc
renders it with (so whitespace control and the `do` tag are Jinja2's own work) and writes
its tree as Python, node by node. A construct it does not translate is an error naming the
template, the line and the construct, never output of its own making.

Semantics kept, and how:

- `{{ x }}` writes `str(x)` (`%s`); a name or attribute that does not exist raises
  (KeyError for a context variable, NameError/AttributeError otherwise) where Jinja2's
  StrictUndefined would have raised on use.
- Scopes: a `for` body and a macro body are scopes of their own, as in Jinja2; a name set
  in one is a Python variable of its own, and one read in the scope that sets it must have
  been set on every path before (else Jinja2 would read the outer value: not translated).
- `loop.first`, `loop.last`, `loop.index`, `loop.index0`, `loop.length` of the innermost
  loop of the same function; loops with an `if` filter cannot use them. Such a loop runs over
  a list made of its iterable when it starts (Jinja2 reads it as it goes), which differs
  only for a template that changes the iterable inside its own loop.
- A macro reads a name its template sets only where that name is set outside any `if` (it
  runs when called, when which branch was taken is not known here).
- An inline `if` without `else` only where its value is written (`{{ }}` or `~`): Jinja2's
  plain Undefined there writes "".
- Filters: idlc's own (`idlc.codegen.filters`, `idlc.codegen.typescript.expressions`; none
  of them `@pass_context` or the like) and Jinja2's `length` and `indent`
  (`idlc.codegen.template_builtins`); tests: `none`.
- `x.name` is Python's attribute access: the Python templates' environment reads attributes
  so too (`env.getattr = getattr`); the TypeScript one would fall back to `x["name"]` and then
  to an Undefined, which the compiled code does not (its view models are no mappings: it
  raises where Jinja2 would have gone on). `x[0]`: an integer index only (Jinja2 falls back
  to an attribute for a string key).
"""

from __future__ import annotations

import keyword
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import jinja2
from jinja2 import nodes

from idlc.resources import data_dir

#: Where the compiled modules are written, a package of its own.
COMPILED = Path(__file__).resolve().parent / "compiled"
#: The command that writes them, as the staleness test and the modules' headers say it.
COMMAND = "python -m idlc.codegen.template_compiler"


class TemplateCompileError(Exception):
    """A template uses what the compiler does not translate."""


class Flavour(NamedTuple):
    """One folder of templates and how idlc renders it."""

    folder: str  # below templates/ ("" for the Python target's)
    filters_module: str  # where the idlc filters the folder's templates use are
    filters: dict[str, Any]  # name → function

    def environment(self) -> jinja2.Environment:
        if self.folder == "typescript":
            from idlc.codegen.typescript import render as typescript_render

            return typescript_render.environment()
        from idlc.codegen import jinja_env

        return jinja_env.environment()

    def options(self) -> str:
        """The environment's options as the compiled module records them (and the loader
        compares them with the current ones)."""
        if self.folder == "typescript":
            from idlc.codegen.typescript import render as typescript_render

            return typescript_render.options()
        from idlc.codegen import render

        return render.options()


def flavours() -> list[Flavour]:
    from idlc.codegen.filters import FILTERS
    from idlc.codegen.typescript.expressions import FILTERS as TS_FILTERS

    return [
        Flavour("", "idlc.codegen.filters", dict(FILTERS)),
        Flavour("typescript", "idlc.codegen.typescript.expressions", dict(TS_FILTERS)),
    ]


#: Jinja2's list literal, by a name of its own: `List` is also one of the model's types, which
#: code generation does not tell apart (tests/test_layers.py).
_ListLiteral = nodes.List

#: Jinja2's builtin filters the templates use, as the compiled code calls them.
_BUILTIN_FILTERS = {"length": "len", "indent": "_builtins.indent"}
#: Jinja2's tests the templates use: the Python expression, with `{}` for the value.
_TESTS = {"none": "({} is None)"}
_COMPARE = {
    "eq": "==",
    "ne": "!=",
    "gt": ">",
    "gteq": ">=",
    "lt": "<",
    "lteq": "<=",
    "in": "in",
    "notin": "not in",
}
_ARITHMETIC = {"+", "-", "*", "/", "//", "%", "**"}
#: Names Jinja2 gives a macro body a meaning of its own: not translated.
_MACRO_SPECIALS = {"caller", "varargs", "kwargs"}
#: Jinja2's globals: not translated.
_JINJA_GLOBALS = {"range", "dict", "lipsum", "cycler", "joiner", "namespace"}


def module_name(template: str) -> str:
    """The compiled module's name for `template` (its path below templates/)."""
    stem = template.removesuffix(".j2")
    name = "t_" + stem.replace("/", "__").replace(".", "_").replace("-", "_")
    if not name.isidentifier():
        raise TemplateCompileError(f"templates/{template}: no module name can be made of it")
    return name


class _Binding(NamedTuple):
    python: str
    kind: str  # "var", "macro" (then `arity`), "import" (then `exports`: name → arity)
    arity: int = 0
    exports: tuple[tuple[str, int], ...] = ()


class _Scope:
    """A Jinja2 frame: the render function, a macro body or a loop body."""

    def __init__(
        self, parent: _Scope | None, function: bool, stores: dict[str, int | None]
    ) -> None:
        self.parent = parent
        self.function = function  # a Python function of its own (closures cross it)
        self.stores = stores  # every name this scope sets
        self.always: set[str] = set()  # the names it sets outside any `if` (on every path)
        self.bindings: dict[str, _Binding] = {}
        self.assigned: set[str] = set()  # the names set on every path so far
        self.declared: list[str] = []  # the Python variables of `set`, declared `Any`
        self.loop: str | None = None  # the loop's counter variable, for `loop.*`
        self.loop_length: str | None = None


def _stored_names(body: Sequence[nodes.Node]) -> dict[str, int | None]:
    """The names `body` sets in its own scope (not in the loops and macros inside it): a
    macro's with its arity, the others' with None."""
    found: dict[str, int | None] = {}

    def visit(node: nodes.Node) -> None:
        match node:
            case nodes.Assign(target=nodes.Name(name=name)):
                found[name] = None
            case nodes.Macro(name=name, args=args):
                found[name] = len(args)
            case nodes.Import(target=target):
                found[target] = None
            case nodes.For():
                return
            case nodes.If(body=body, elif_=elifs, else_=else_):
                for child in [*body, *elifs, *else_]:
                    visit(child)

    for child in body:
        visit(child)
    return found


class _Compiler:
    def __init__(self, template: str, flavour: Flavour, exports_of: Any) -> None:
        self.template = template
        self.flavour = flavour
        self.exports_of = exports_of  # template name → its exported macros (name, arity)
        self.lines: list[str] = []
        self.indent = 0
        self.used: set[str] = set()  # the Python names given out
        self.context_names: list[str] = []
        self.context_bindings: dict[str, str] = {}
        self.imports: list[str] = []  # compiled modules imported
        self.imported_templates: list[str] = []
        self.filters: set[str] = set()
        self.uses_builtins = False
        self.exports: list[tuple[str, int]] = []

    # -- errors and output -------------------------------------------------------------

    def fail(self, node: nodes.Node, what: str) -> TemplateCompileError:
        line = getattr(node, "lineno", "?")
        return TemplateCompileError(
            f"templates/{self.template}:{line}: {what} is not supported by idlc's template "
            "compiler (idlc/codegen/template_compiler.py)"
        )

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def fresh(self, name: str) -> str:
        """A Python name of its own for the Jinja2 name `name` (or a helper's): `j_<name>`,
        numbered from the second on. The helpers' own names do not begin with `j_`."""
        python, count = f"j_{name}", 1
        while python in self.used:
            count += 1
            python = f"j_{name}_{count}"
        self.used.add(python)
        return python

    # -- scopes and names --------------------------------------------------------------

    def scope(self, parent: _Scope | None, function: bool, body: Sequence[nodes.Node]) -> _Scope:
        scope = _Scope(parent, function, _stored_names(body))
        scope.always = {
            node.target.name
            for node in body
            if isinstance(node, nodes.Assign) and isinstance(node.target, nodes.Name)
        }
        # Macros are bound from the start of their scope: another macro may call one
        # defined after it (a closure, bound by the time it is called).
        for name, arity in scope.stores.items():
            if arity is not None:
                scope.bindings[name] = _Binding(self.fresh(name), "macro", arity)
        return scope

    def resolve(self, scope: _Scope, name: str, node: nodes.Node) -> _Binding:
        current: _Scope | None = scope
        same_function = True
        while current is not None:
            if name in current.stores:
                binding = current.bindings.get(name)
                if binding is not None and binding.kind == "macro":
                    return binding
                if same_function and name not in current.assigned:
                    raise self.fail(node, f"reading `{name}` where its scope may not have set it")
                if not same_function and name not in current.always:
                    # A macro runs when called: whether the `if` set it is not known here.
                    raise self.fail(node, f"a macro reading `{name}`, which is set only in an `if`")
                if binding is None:
                    raise self.fail(node, f"reading `{name}` in a macro before it is set")
                return binding
            if name in current.bindings:  # a loop's target, a macro's parameter
                return current.bindings[name]
            if current.function:
                same_function = False
            current = current.parent
        if name == "loop":
            raise self.fail(node, "`loop` outside a loop of the same function, or as a value")
        if name in _MACRO_SPECIALS or name in _JINJA_GLOBALS:
            raise self.fail(node, f"Jinja2's `{name}`")
        python = self.context_bindings.get(name)
        if python is None:
            python = self.context_bindings[name] = self.fresh(name)
            self.context_names.append(name)
        return _Binding(python, "var")

    # -- statements --------------------------------------------------------------------

    def body(self, scope: _Scope, body: Sequence[nodes.Node]) -> None:
        start = len(self.lines)
        for node in body:
            self.statement(scope, node)
        if len(self.lines) == start:
            self.line("pass")

    def statement(self, scope: _Scope, node: nodes.Node) -> None:
        match node:
            case nodes.Output(nodes=children):
                self.output(scope, children)
            case nodes.If(test=test, body=body, elif_=elifs, else_=else_):
                before = set(scope.assigned)
                paths: list[set[str]] = []
                branches = [(test, body), *((branch.test, branch.body) for branch in elifs)]
                for index, (branch_test, branch_body) in enumerate(branches):
                    keyword_ = "if" if index == 0 else "elif"
                    scope.assigned = set(before)
                    self.line(f"{keyword_} {self.expression(scope, branch_test)}:")
                    self.indent += 1
                    self.body(scope, branch_body)
                    self.indent -= 1
                    paths.append(scope.assigned)
                scope.assigned = set(before)
                if else_:
                    self.line("else:")
                    self.indent += 1
                    self.body(scope, else_)
                    self.indent -= 1
                paths.append(scope.assigned)
                scope.assigned = set.intersection(*paths)
            case nodes.For(
                target=target, iter=iterable, body=body, else_=[], test=test
            ) if not node.recursive:
                self.loop(scope, node, target, iterable, body, test)
            case nodes.Assign(target=nodes.Name(name=name), node=value):
                code = self.expression(scope, value)
                binding = scope.bindings.get(name)
                if binding is None:
                    binding = scope.bindings[name] = _Binding(self.fresh(name), "var")
                    scope.declared.append(binding.python)
                elif binding.kind != "var":
                    raise self.fail(node, f"setting `{name}`, a macro or an import")
                self.line(f"{binding.python} = {code}")
                scope.assigned.add(name)
            case nodes.ExprStmt(node=value):
                self.line(self.expression(scope, value))
            case nodes.Macro(name=name, args=args, defaults=[], body=body):
                self.macro(scope, name, args, body)
                scope.assigned.add(name)
            case nodes.Import(
                template=nodes.Const(value=str(imported)), target=target
            ) if not node.with_context and _plain_name(imported):
                exports = self.exports_of(imported, node, self)
                if target in scope.bindings:
                    raise self.fail(node, f"importing as `{target}` twice")
                binding = _Binding(self.fresh(target), "import", exports=tuple(exports))
                scope.bindings[target] = binding
                path = f"{self.flavour.folder}/{imported}" if self.flavour.folder else imported
                module = module_name(path)
                self.imports.append(module)
                self.imported_templates.append(path)
                self.line(f"{binding.python} = _{module}.exports()")
                scope.assigned.add(target)
            case _:
                raise self.fail(node, f"the statement {_describe(node)}")

    def declare(self, scope: _Scope, at: int, indent: int) -> None:
        """Declares the variables `scope` sets as `Any`: a template may set one to values
        of different types on different paths."""
        pad = "    " * indent
        self.lines[at:at] = [f"{pad}{python}: Any" for python in scope.declared]

    def loop(
        self,
        scope: _Scope,
        node: nodes.For,
        target: nodes.Node,
        iterable: nodes.Node,
        body: list[nodes.Node],
        test: nodes.Node | None,
    ) -> None:
        iterated = self.expression(scope, iterable)
        if not (
            isinstance(target, nodes.Name)
            or isinstance(target, nodes.Tuple)
            and all(isinstance(item, nodes.Name) for item in target.items)
        ):
            raise self.fail(node, f"the loop target {_describe(target)}")
        inner = self.scope(scope, False, body)
        targets: Sequence[nodes.Node] = [target]
        if isinstance(target, nodes.Tuple):
            targets = target.items
        names = [item.name for item in targets if isinstance(item, nodes.Name)]
        for name in dict.fromkeys(names):
            if name in inner.stores:
                raise self.fail(node, f"setting the loop's own `{name}` in its body")
            inner.bindings[name] = _Binding(self.fresh(name), "var")
        python = [inner.bindings[name].python for name in names]
        target_code = python[0] if isinstance(target, nodes.Name) else ", ".join(python)
        uses_loop = any(part.name == "loop" for part in _same_scope(body, nodes.Name))
        if test is not None and any(part.name == "loop" for part in test.find_all(nodes.Name)):
            raise self.fail(node, "`loop` in a loop's `if` filter")
        if uses_loop:
            if test is not None:
                raise self.fail(node, "`loop` in a loop with an `if` filter")
            items = self.fresh("items")
            inner.loop = self.fresh("index")
            inner.loop_length = f"len({items})"
            self.line(f"{items} = list({iterated})")
            self.line(f"for {inner.loop}, ({target_code}) in enumerate({items}):")
        else:
            self.line(f"for {target_code} in {iterated}:")
        self.indent += 1
        inner.assigned = set(names)
        if test is not None:
            self.line(f"if not {self.expression(inner, test)}:")
            self.line("    continue")
        start = len(self.lines)
        self.body(inner, body)
        self.declare(inner, start, self.indent)
        self.indent -= 1

    def macro(
        self, scope: _Scope, name: str, args: list[nodes.Name], body: list[nodes.Node]
    ) -> None:
        for part in _same_scope(body, nodes.Name):
            if part.name in _MACRO_SPECIALS:
                raise self.fail(part, f"`{part.name}` in a macro")
        binding = scope.bindings[name]
        inner = self.scope(scope, True, body)
        for arg in args:
            if arg.name in inner.stores:
                raise self.fail(arg, f"setting the macro's parameter `{arg.name}` in its body")
            inner.bindings[arg.name] = _Binding(self.fresh(arg.name), "var")
        inner.assigned = {arg.name for arg in args}
        params = ", ".join(f"{inner.bindings[arg.name].python}: Any" for arg in args)
        self.line(f"def {binding.python}({params}) -> str:")
        self.indent += 1
        start = len(self.lines)
        self.line("_out: list[str] = []")
        self.line("_append = _out.append")
        self.body(inner, body)
        self.line('return "".join(_out)')
        self.declare(inner, start, self.indent)
        self.indent -= 1
        if self.indent == 1 and scope.parent is None and not name.startswith("_"):
            # Defined at the top (in no `if`), so always: exported, as Jinja2 exports it.
            self.exports.append((name, len(args)))

    # -- output ------------------------------------------------------------------------

    def output(self, scope: _Scope, children: Sequence[nodes.Node]) -> None:
        pattern: list[str] = []
        values: list[str] = []
        for child in children:
            if isinstance(child, nodes.TemplateData):
                pattern.append(child.data.replace("%", "%%"))
            else:
                pattern.append("%s")  # str(value), as Jinja2 writes it without autoescape
                values.append(self.expression(scope, child, written=True))
        if not values:
            self.line(f"_append({''.join(pattern).replace('%%', '%')!r})")
        elif pattern == ["%s"]:
            self.line(f"_append(str({values[0]}))")
        else:
            self.line(f"_append({''.join(pattern)!r} % ({', '.join(values)},))")

    # -- expressions -------------------------------------------------------------------

    def expression(self, scope: _Scope, node: nodes.Node, written: bool = False) -> str:
        match node:
            case nodes.Const(value=value) if value is None or isinstance(
                value, str | int | float | bool
            ):
                return repr(value)
            case nodes.Name(name=name, ctx="load"):
                binding = self.resolve(scope, name, node)
                if binding.kind == "import":
                    raise self.fail(node, f"the imported template `{name}` as a value")
                if binding.kind == "macro":
                    # Jinja2's `Macro` writes and binds as no Python function does.
                    raise self.fail(node, f"the macro `{name}` as a value (only called)")
                return binding.python
            case nodes.Getattr(node=nodes.Name(name="loop"), attr=attr) if (
                self._loop_scope(scope) is not None
            ):
                return self.loop_attribute(scope, node, attr)
            case nodes.Getattr(node=nodes.Name(name=name) as target, attr=attr) if (
                self.resolve(scope, name, target).kind == "import"
            ):
                binding = self.resolve(scope, name, target)
                if attr not in dict(binding.exports):
                    raise self.fail(node, f"`{name}.{attr}`, which is no macro of the import")
                return f"{binding.python}.{attr}"
            case nodes.Getattr(node=value, attr=attr):
                if not attr.isidentifier() or keyword.iskeyword(attr):
                    raise self.fail(node, f"the attribute {attr!r}")
                return f"{self.expression(scope, value)}.{attr}"
            case nodes.Getitem(node=value, arg=nodes.Const(value=int(index))) if not isinstance(
                index, bool
            ):
                # An index only: Jinja2 would fall back to an attribute for a string key.
                return f"{self.expression(scope, value)}[{index!r}]"
            case nodes.Filter(node=value, name=name, args=args, kwargs=kwargs) if (
                value is not None and node.dyn_args is None and node.dyn_kwargs is None
            ):
                function = self.filter(node, name)
                parts = [self.expression(scope, value), *self.arguments(scope, args, kwargs)]
                return f"{function}({', '.join(parts)})"
            case nodes.Test(node=value, name=name, args=[], kwargs=[]) if (
                name in _TESTS and node.dyn_args is None and node.dyn_kwargs is None
            ):
                return _TESTS[name].format(self.expression(scope, value))
            case nodes.Not(node=value):
                return f"(not {self.expression(scope, value)})"
            case nodes.And(left=left, right=right):
                return f"({self.expression(scope, left)} and {self.expression(scope, right)})"
            case nodes.Or(left=left, right=right):
                return f"({self.expression(scope, left)} or {self.expression(scope, right)})"
            case nodes.Compare(expr=first, ops=ops) if all(op.op in _COMPARE for op in ops):
                parts = [self.expression(scope, first)]
                for op in ops:
                    parts += [_COMPARE[op.op], self.expression(scope, op.expr)]
                return f"({' '.join(parts)})"
            case nodes.CondExpr(test=test, expr1=then, expr2=otherwise):
                if otherwise is None and not written:
                    raise self.fail(
                        node, "an inline `if` without `else` whose value is not written"
                    )
                other = '""' if otherwise is None else self.expression(scope, otherwise, written)
                return (
                    f"({self.expression(scope, then, written)} "
                    f"if {self.expression(scope, test)} else {other})"
                )
            case nodes.BinExpr(left=left, right=right) if node.operator in _ARITHMETIC:
                return (
                    f"({self.expression(scope, left)} {node.operator} "
                    f"{self.expression(scope, right)})"
                )
            case nodes.UnaryExpr(node=value) if node.operator in {"+", "-"}:
                return f"({node.operator}{self.expression(scope, value)})"
            case nodes.Concat(nodes=parts):
                return (
                    "(" + " + ".join(f"str({self.expression(scope, p, True)})" for p in parts) + ")"
                )
            case _ListLiteral(items=items):
                return "[" + ", ".join(self.expression(scope, item) for item in items) + "]"
            case nodes.Tuple(items=items, ctx="load"):
                return "(" + "".join(self.expression(scope, item) + ", " for item in items) + ")"
            case nodes.Dict(items=items):
                pairs = (
                    f"{self.expression(scope, p.key)}: {self.expression(scope, p.value)}"
                    for p in items
                )
                return "{" + ", ".join(pairs) + "}"
            case nodes.Call(node=callee, args=args, kwargs=kwargs) if (
                node.dyn_args is None and node.dyn_kwargs is None
            ):
                return self.call(scope, node, callee, args, kwargs)
            case _:
                raise self.fail(node, f"the expression {_describe(node)}")

    def arguments(
        self, scope: _Scope, args: Sequence[nodes.Node], kwargs: Sequence[Any]
    ) -> Iterator[str]:
        for arg in args:
            yield self.expression(scope, arg)
        for pair in kwargs:
            if keyword.iskeyword(pair.key):
                raise self.fail(pair, f"the keyword argument `{pair.key}`")
            yield f"{pair.key}={self.expression(scope, pair.value)}"

    def call(
        self,
        scope: _Scope,
        node: nodes.Call,
        callee: nodes.Node,
        args: Sequence[nodes.Node],
        kwargs: Sequence[Any],
    ) -> str:
        arity: int | None = None
        if isinstance(callee, nodes.Name):
            binding = self.resolve(scope, callee.name, callee)
            if binding.kind == "macro":
                arity = binding.arity
        elif isinstance(callee, nodes.Getattr) and isinstance(callee.node, nodes.Name):
            binding = self.resolve(scope, callee.node.name, callee.node)
            if binding.kind == "import":
                arity = dict(binding.exports).get(callee.attr)
        if arity is not None and (kwargs or len(args) != arity):
            raise self.fail(node, "a macro call with keyword arguments or another arity")
        if isinstance(callee, nodes.Name) and arity is not None:
            function = self.resolve(scope, callee.name, callee).python
        else:
            function = self.expression(scope, callee)
        return f"{function}({', '.join(self.arguments(scope, args, kwargs))})"

    def filter(self, node: nodes.Node, name: str) -> str:
        if name in self.flavour.filters:
            if hasattr(self.flavour.filters[name], "jinja_pass_arg"):
                # `@pass_context` and the like: Jinja2 passes more than the value.
                raise self.fail(node, f"the filter `{name}`, which asks Jinja2 for an argument")
            self.filters.add(name)
            return f"_filter_{name}"
        if name in _BUILTIN_FILTERS:
            self.uses_builtins = self.uses_builtins or name == "indent"
            return _BUILTIN_FILTERS[name]
        raise self.fail(node, f"the filter `{name}`")

    def _loop_scope(self, scope: _Scope) -> _Scope | None:
        """The innermost loop's scope in the same function, unless `loop` is a name set."""
        current: _Scope | None = scope
        while current is not None:
            if "loop" in current.bindings or "loop" in current.stores:
                return None
            if current.loop is not None:
                return current
            if current.function:
                return None
            current = current.parent
        return None

    def loop_attribute(self, scope: _Scope, node: nodes.Node, attr: str) -> str:
        loop = self._loop_scope(scope)
        assert loop is not None and loop.loop is not None and loop.loop_length is not None
        index, length = loop.loop, loop.loop_length
        match attr:
            case "first":
                return f"({index} == 0)"
            case "last":
                return f"({index} == {length} - 1)"
            case "index":
                return f"({index} + 1)"
            case "index0":
                return index
            case "length":
                return length
        raise self.fail(node, f"`loop.{attr}`")

    # -- the module --------------------------------------------------------------------

    def compile(self, tree: nodes.Template) -> list[str]:
        """The body of the template's `_root` function (after its context variables)."""
        root = self.scope(None, True, tree.body)
        self.indent = 1
        self.line("_out: list[str] = []")
        self.line("_append = _out.append")
        self.body(root, tree.body)
        exports = ", ".join(f"{name!r}: {root.bindings[name].python}" for name, _ in self.exports)
        self.line(f"return _out, {{{exports}}}")
        self.declare(root, 0, 1)
        return self.lines


def _same_scope(body: Sequence[nodes.Node], kind: type[nodes.Node]) -> Iterator[Any]:
    """The nodes of `kind` in `body`, not inside the loops and macros it holds."""
    for node in body:
        if isinstance(node, kind):
            yield node
        if isinstance(node, nodes.For):
            # The loop's own iterable and filter belong to the enclosing scope.
            yield from _same_scope([node.iter], kind)
            continue
        if isinstance(node, nodes.Macro):
            continue
        yield from _same_scope(list(node.iter_child_nodes()), kind)


def _plain_name(template: str) -> bool:
    """Whether `template` names a template of the same folder or below, as Jinja2's loader
    finds it (it refuses `..`)."""
    parts = template.split("/")
    return "\\" not in template and all(part not in ("", ".", "..") for part in parts)


def _describe(node: nodes.Node) -> str:
    detail = getattr(node, "name", None) or getattr(node, "operator", None)
    return f"`{type(node).__name__}`" + (f" ({detail})" if detail else "")


# -- whole modules ---------------------------------------------------------------------


class CompiledModule(NamedTuple):
    template: str  # below templates/
    module: str  # its module name in idlc.codegen.compiled
    text: str
    exports: list[tuple[str, int]]
    context_names: list[str]
    imports: list[str]  # the templates it imports, directly or not


def _read(path: Path) -> str:
    # As Jinja2's FileSystemLoader reads it: bytes, decoded as UTF-8, newlines as they are.
    return path.read_bytes().decode("utf-8")


def compile_all(templates: Path | None = None) -> dict[str, CompiledModule]:
    """Every template below `templates` (templates/ by default) compiled, by module name."""
    root = templates or data_dir("templates")
    done: dict[str, CompiledModule] = {}
    for flavour in flavours():
        folder = root / flavour.folder if flavour.folder else root
        for path in sorted(folder.glob("*.j2")):
            _compile_one(root, flavour, path.name, done, ())
    return done


def _compile_one(
    root: Path, flavour: Flavour, name: str, done: dict[str, CompiledModule], chain: tuple[str, ...]
) -> CompiledModule:
    template = f"{flavour.folder}/{name}" if flavour.folder else name
    module = module_name(template)
    if module in done:
        if done[module].template != template:
            raise TemplateCompileError(
                f"templates/{template}: its module name {module} is templates/"
                f"{done[module].template}'s too: rename one of them"
            )
        return done[module]
    if template in chain:
        raise TemplateCompileError(f"templates/{template}: imports itself ({' → '.join(chain)})")
    folder = root / flavour.folder if flavour.folder else root
    source = _read(folder / name)
    env = flavour.environment()
    try:
        tree = env.parse(source, name, str(folder / name))
    except jinja2.TemplateSyntaxError as error:
        raise TemplateCompileError(
            f"templates/{template}:{error.lineno}: {error.message}"
        ) from None

    def exports_of(imported: str, node: nodes.Node, compiler: _Compiler) -> list[tuple[str, int]]:
        dependency = _compile_one(root, flavour, imported, done, (*chain, template))
        if dependency.context_names:
            raise compiler.fail(node, f"importing `{imported}`, which reads context variables")
        compiler.imported_templates.extend(dependency.imports)  # what it imports, too
        return dependency.exports

    compiler = _Compiler(template, flavour, exports_of)
    body = compiler.compile(tree)
    try:
        # Jinja2's own compiler too (after this one, whose refusals say more): what it
        # refuses (an assignment to `loop`, say) must not work through the compiled module
        # and fail only on the fallback.
        env.compile(source, name, str(folder / name))
    except jinja2.TemplateSyntaxError as error:
        raise TemplateCompileError(
            f"templates/{template}:{error.lineno}: {error.message}"
        ) from None
    text = _module_text(template, source, flavour, compiler, body)
    compiled = CompiledModule(
        template,
        module,
        text,
        compiler.exports,
        compiler.context_names,
        sorted(set(compiler.imported_templates)),
    )
    done[module] = compiled
    return compiled


def _module_text(
    template: str, source: str, flavour: Flavour, compiler: _Compiler, body: list[str]
) -> str:
    imports = sorted(set(compiler.imports))
    head = [
        f'"""templates/{template}, compiled to Python by idlc.codegen.template_compiler.',
        "",
        f"Generated: do not edit. Edit the template and run `{COMMAND}`;",
        "idlc.codegen.template_loader uses this module only while SOURCE is the template's text.",
        '"""',
        "",
        "# fmt: off",
        '# mypy: disable-error-code="no-any-return"',
        "from __future__ import annotations",
        "",
        "import functools",
        "import types",
        "from typing import Any",
        "",
    ]
    if compiler.uses_builtins:
        head.append("from idlc.codegen import template_builtins as _builtins")
    if compiler.filters:
        head.append(f"from {flavour.filters_module} import FILTERS as _FILTERS")
    for module in imports:
        head.append(f"from idlc.codegen.compiled import {module} as _{module}  # noqa: F401")
    head += [
        "",
        f"TEMPLATE = {template!r}",
        f"SOURCE = {source!r}",
        f"OPTIONS = {flavour.options()!r}",
        f"IMPORTS = {tuple(sorted(compiler.imported_templates))!r}",
        "",
    ]
    for name in sorted(compiler.filters):
        head.append(f"_filter_{name} = _FILTERS[{name!r}]")
    if compiler.filters:
        head.append("")
    head += [
        "",
        "def _root(context: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:",
    ]
    for name in compiler.context_names:
        head.append(f"    {compiler.context_bindings[name]} = context[{name!r}]")
    tail = [
        "",
        "",
        "def render(**context: Any) -> str:",
        '    return "".join(_root(context)[0])',
        "",
        "",
        "@functools.cache",
        "def exports() -> types.SimpleNamespace:",
        '    """The template\'s macros, as `{% import %}` gives them (rendered once, without',
        '    context)."""',
        "    return types.SimpleNamespace(**_root({})[1])",
        "",
    ]
    return "\n".join(head + body + tail)


def _package_text(modules: dict[str, CompiledModule]) -> str:
    table = "".join(f"    {m.template!r}: {m.module!r},\n" for m in sorted(modules.values()))
    return (
        '"""The templates of `templates/` compiled to Python (idlc.codegen.template_compiler).\n'
        "\n"
        f"Generated: do not edit. Run `{COMMAND}` after editing a template.\n"
        '"""\n'
        "\n"
        "#: template (its path below templates/) → its module here\n"
        f"MODULES = {{\n{table}}}\n"
    )


def expected_files(templates: Path | None = None) -> dict[str, str]:
    """The files of idlc/codegen/compiled/ as the templates make them, by name."""
    modules = compile_all(templates)
    files = {f"{module.module}.py": module.text for module in modules.values()}
    files["__init__.py"] = _package_text(modules)
    return files


def write(folder: Path = COMPILED) -> list[str]:
    """Writes the compiled modules into `folder` (removing those of templates gone); returns
    the names of the files it changed."""
    files = expected_files()
    folder.mkdir(exist_ok=True)
    changed = []
    for path in sorted(folder.glob("*.py")):
        if path.name not in files:
            path.unlink()
            changed.append(path.name)
    for name, text in sorted(files.items()):
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(name)
    return changed


def main() -> int:
    try:
        changed = write()
    except TemplateCompileError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for name in changed:
        print(f"wrote idlc/codegen/compiled/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
