"""Field types are named once (objects/schema.py's FieldType) and compared
as those constants: a literal such as "number" beside a field's type is a
type the spec may rename or a typo nothing would catch."""

from __future__ import annotations

import ast
from pathlib import Path

import objects
from objects.fields import field_defs
from objects.schema import (
    ADDRESS_TYPES,
    CHOICE_TYPES,
    FIELD_TYPE_LABELS,
    FIELD_TYPES,
    NUMBER_TYPES,
    SINGLE_CHOICE_TYPES,
    FieldType,
)

TYPE_NAMES = {member.value for member in FieldType}
OBJECTS_DIR = Path(objects.__file__).parent


def test_every_type_is_offered_once_with_the_words_people_see():
    assert [value for value, _label in FIELD_TYPES] == list(FieldType)
    assert all(FIELD_TYPE_LABELS[member] for member in FieldType)
    for group in (CHOICE_TYPES, SINGLE_CHOICE_TYPES, NUMBER_TYPES, ADDRESS_TYPES):
        assert group <= TYPE_NAMES
    assert SINGLE_CHOICE_TYPES < CHOICE_TYPES


def test_a_type_compares_equal_to_what_the_service_sends():
    (field,) = field_defs({"fields": [{"key": "amount", "type": "currency"}]})
    assert field.type == FieldType.CURRENCY
    assert field.is_number
    assert field_defs({"fields": [{"key": "name"}]})[0].type == FieldType.TEXT  # a missing type is text


def _type_names(function: ast.AST) -> set[str]:
    """Names a function binds to a field's type (`kind = field.type`)."""
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and node.value.attr == "type":
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


def _is_field_type(node: ast.AST, names: set[str]) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "type") or (
        isinstance(node, ast.Name) and node.id in names
    )


def _type_literals(node: ast.AST) -> list[str]:
    items = node.elts if isinstance(node, (ast.Set, ast.Tuple, ast.List)) else [node]
    return [item.value for item in items if isinstance(item, ast.Constant) and item.value in TYPE_NAMES]


def test_no_field_type_is_compared_with_a_string_literal():
    found: set[str] = set()  # a module's walk and its functions' walks meet the same comparison
    for path in sorted(OBJECTS_DIR.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.Lambda, ast.Module)):
                continue
            names = _type_names(function)
            for node in ast.walk(function):
                if not isinstance(node, ast.Compare):
                    continue
                operands = [node.left, *node.comparators]
                if any(_is_field_type(operand, names) for operand in operands):
                    literals = [value for operand in operands for value in _type_literals(operand)]
                    if literals:
                        found.add(f"{path.relative_to(OBJECTS_DIR.parent)}:{node.lineno} {literals}")
    assert not found, "compare with FieldType members or objects/schema.py's groups:\n" + "\n".join(sorted(found))
