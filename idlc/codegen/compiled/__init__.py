"""The templates of `templates/` compiled to Python (idlc.codegen.template_compiler).

Generated: do not edit. Run `python -m idlc.codegen.template_compiler` after editing a template.
"""

#: template (its path below templates/) → its module here
MODULES = {
    '_interface.py.j2': 't__interface_py',
    '_types.py.j2': 't__types_py',
    'header.py.j2': 't_header_py',
    'init.py.j2': 't_init_py',
    'module.py.j2': 't_module_py',
    'provenance.py.j2': 't_provenance_py',
    'refs.py.j2': 't_refs_py',
    'typescript/header.ts.j2': 't_typescript__header_ts',
    'typescript/index.ts.j2': 't_typescript__index_ts',
    'typescript/module.ts.j2': 't_typescript__module_ts',
    'typescript/package.json.j2': 't_typescript__package_json',
}
