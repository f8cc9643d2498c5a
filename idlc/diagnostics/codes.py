"""The registry of diagnostic codes.

A code never changes meaning once released. Every place that reports a problem names one
of the constants below; `docs/language.md` explains each (cause and fix), and a test checks
that every code registered here is documented there.
"""

from __future__ import annotations

from idlc.nodes import node


@node
class Code:
    id: str
    title: str

    def __str__(self) -> str:
        return self.id


REGISTRY: dict[str, Code] = {}


def _code(id: str, title: str) -> Code:
    assert id not in REGISTRY, id
    code = Code(id, title)
    REGISTRY[id] = code
    return code


# -- reading and syntax (E00xx) ---------------------------------------------------------
INVALID_UTF8 = _code("E0001", "file is not valid UTF-8")
UNEXPECTED_CHARACTER = _code("E0002", "unexpected character")
UNEXPECTED_TOKEN = _code("E0003", "unexpected token")
UNEXPECTED_EOF = _code("E0004", "unexpected end of file")
UNTERMINATED_STRING = _code("E0005", "unterminated string")
UNTERMINATED_COMMENT = _code("E0006", "unterminated block comment")
INVALID_ESCAPE = _code("E0007", "invalid escape in string")
NESTING_TOO_DEEP = _code("E0008", "type nested too deeply")
TOO_MANY_ERRORS = _code("E0009", "too many syntax errors")
UNREADABLE_FILE = _code("E0010", "file cannot be read")
INVALID_NUMBER = _code("E0011", "invalid number")
FILE_TOO_LARGE = _code("E0012", "file larger than idlc reads")

# -- names and declarations (E01xx) -----------------------------------------------------
UNKNOWN_TYPE = _code("E0101", "unknown type")
UNKNOWN_ATOM = _code("E0102", "unknown atom")
UNKNOWN_INTERFACE = _code("E0103", "unknown interface")
WRONG_KIND = _code("E0104", "name refers to the wrong kind of declaration")
DUPLICATE_DECLARATION = _code("E0105", "name declared twice")
DUPLICATE_MEMBER = _code("E0106", "member name used twice in an interface")
DUPLICATE_FIELD = _code("E0107", "field name used twice in a record")
DUPLICATE_ENUM_VALUE = _code("E0108", "enum value listed twice")
DUPLICATE_CASE = _code("E0109", "variant case listed twice")
DUPLICATE_ID = _code("E0110", "id used twice")
DUPLICATE_BINDING_ID = _code("E0111", "binding id (JSON-RPC method) used twice")
ATOM_ID_MISMATCH = _code("E0112", "atom redeclared with another id")
PYTHON_NAME_COLLISION = _code("E0113", "two names become the same Python name")
ALIAS_CYCLE = _code("E0114", "type aliases form a cycle")
BINDING_VERB_MISMATCH = _code("E0115", "binding verb does not fit the member")
NOTIFY_WITH_OUTPUT = _code("E0116", "`notify` on an operation whose output is not `unit`")
OPAQUE_INTERFACE_USE = _code("E0117", "opaque interface used where its definition is needed")
INVALID_DEFAULT = _code("E0118", "default value does not fit the field's type")
INVALID_CASE_TYPE = _code("E0119", "variant case is not a record or `unit`")
DUPLICATE_DEFAULT_CASE = _code("E0120", "variant has two `default` cases")
TAG_FIELD_CONFLICT = _code("E0121", "variant case has a field named like the tag")
INVALID_UNION = _code("E0122", "union alternative can never be chosen")
INFINITE_RECORD = _code("E0123", "record contains itself with no optional, list or map between")

TYPE_NAMED_LIKE_KEYWORD = _code("E0124", "type alias named like a built-in type keyword")
EMPTY_CHOICE = _code("E0125", "union or closed variant with nothing to choose from")
LENIENT_WITHOUT_FALLBACK = _code(
    "E0126", "`lenient` or `null-default` field has no value to fall back to"
)
SKIP_INVALID_NOT_LIST = _code("E0127", "`skip-invalid` on a field that is not a list")
NULL_DEFAULT_ON_OPTIONAL = _code("E0128", "`null-default` on an optional field")
NULLABLE_OF_NULL = _code("E0129", "`nullable<…>` of a type that holds `null` already")
OPEN_RECORD_CASE = _code("E0130", "`open record` as a variant case")
MISPLACED_UNKNOWN_CASE = _code("E0131", "`unknown` case in a closed variant, or twice")
UNKNOWN_ATTRIBUTE = _code("E0132", "attribute other than `@unstable(feature = …)`, or repeated")
STABLE_USES_UNSTABLE = _code("E0133", "stable declaration uses an unstable one")
UNKNOWN_FEATURE = _code("E0134", "package asks for a feature no item is marked with")
# -- code generation (E02xx) -----------------------------------------------------------
GENERATED_NAME_COLLISION = _code("E0201", "two things would get the same generated Python name")
RESERVED_GENERATED_NAME = _code("E0202", "generated name is one the generated code needs")
UNREPRESENTABLE_UNION = _code("E0203", "union alternatives cannot be told apart when decoding")
RECURSIVE_ALIAS = _code("E0204", "type alias refers to itself without a record between")
UNKNOWN_CASE_ATTRIBUTE = _code(
    "E0205", "shared field of an open variant named like an attribute of its unknown case"
)

# -- command line and configuration (E09xx) ---------------------------------------------
FILE_NOT_FOUND = _code("E0901", "input file not found")
BAD_CONFIGURATION = _code("E0902", "bad `[tool.idlc]` configuration")
FOREIGN_OUTPUT_FILE = _code("E0903", "generation would overwrite a file idlc did not write")
UNWRITABLE_OUTPUT = _code("E0904", "generated files cannot be written")

# -- lints (Wxxxx) ------------------------------------------------------------------------
REVISION_FORMAT = _code("W0001", "revision is not `<interface id>@<integer>`")
BINDING_ID_FORMAT = _code("W0002", "binding id is not `<member id>:<verb>`")
QUERYABLE_NOT_SNAPSHOT = _code("W0003", "queryable member does not use `execution snapshot`")
DANGLING_DOC_COMMENT = _code("W0004", "doc comment documents nothing")
EMPTY_FILE = _code("W0005", "file declares nothing")
