"""The error tree of harness/errors.py holds every error the package raises toward a caller.

A bare builtin (``raise ValueError(...)``) gives a user no class to catch and the
CLI no way to tell bad input (exit 2) from a fault (exit 1), so a new one fails
here. Allowed: a builtin raised and caught in the same function (control flow),
and the few builtins Python's own protocols call for (``ALLOWED``).
"""

from __future__ import annotations

import ast
import builtins
import pathlib

import pytest

import harness.errors as errors

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCES = sorted(p for package in ("harness", "players") for p in (ROOT / package).rglob("*.py"))
BUILTIN_ERRORS = {name: value for name, value in vars(builtins).items()
                  if isinstance(value, type) and issubclass(value, BaseException)}

# builtin -> why raising it is right wherever it is raised
ALLOWED = {
    "NotImplementedError": "an abstract method that a subclass must implement",
    "AssertionError": "a contract suite's finding (harness.testing) or an unreachable line",
    "KeyboardInterrupt": "SIGTERM stops a command exactly as Ctrl-C does (harness.interrupts)",
    "StopIteration": "the iterator protocol",
}
# (function name, builtin) -> why: a builtin that a Python protocol asks that function to raise
ALLOWED_IN = {
    ("__getattr__", "AttributeError"): "a module's or class's lazy attributes: Python expects AttributeError",
}


def raised_name(node: ast.Raise) -> str | None:
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return exc.id if isinstance(exc, ast.Name) else None


def handler_names(handler: ast.ExceptHandler) -> list[str]:
    if handler.type is None:
        return ["BaseException"]
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return [t.id for t in types if isinstance(t, ast.Name)]


def caught_locally(name: str, ancestors: list[ast.AST], node: ast.AST) -> bool:
    """True when an enclosing ``try`` of the same function catches the builtin ``name``."""
    child = node
    for parent in reversed(ancestors):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(parent, ast.Try) and child in parent.body:
            for handler in parent.handlers:
                for caught in handler_names(handler):
                    kind = BUILTIN_ERRORS.get(caught)
                    if kind is not None and issubclass(BUILTIN_ERRORS[name], kind):
                        return True
        child = parent
    return False


def bare_builtin_raises(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    """``line: raise Builtin`` for each builtin raised toward callers in a source file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[str] = []

    def visit(node: ast.AST, ancestors: list[ast.AST]) -> None:
        if isinstance(node, ast.Raise) and node.exc is not None:
            name = raised_name(node)
            if name in BUILTIN_ERRORS and name not in ALLOWED:
                function = next((a.name for a in reversed(ancestors)
                                 if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
                if (function, name) not in ALLOWED_IN and not caught_locally(name, ancestors, node):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: raise {name}")
        for child in ast.iter_child_nodes(node):
            visit(child, ancestors + [node])

    visit(tree, [])
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_raises_a_bare_builtin_exception_toward_its_callers(path: pathlib.Path) -> None:
    found = bare_builtin_raises(path)
    assert not found, ("raise a class of harness/errors.py's tree instead (InvalidInput and its subclasses are "
                       "ValueErrors, so callers catching ValueError still catch them): " + "; ".join(found))


def test_the_checker_finds_a_bare_raise_and_passes_local_control_flow(tmp_path: pathlib.Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def loud(x):\n    raise ValueError(x)\n\n"
                     "def quiet(x):\n    try:\n        raise KeyError(x)\n    except LookupError:\n        return None\n\n"
                     "def __getattr__(name):\n    raise AttributeError(name)\n")
    assert bare_builtin_raises(probe, root=tmp_path) == ["probe.py:2: raise ValueError"]


def test_every_error_class_is_in_the_tree_and_bad_input_is_a_value_error() -> None:
    classes = [value for value in vars(errors).values()
               if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == errors.__name__]
    for error in classes:
        assert issubclass(error, errors.HarnessError), f"{error.__name__} is outside the tree"
        assert error.__name__ in errors.__doc__, f"{error.__name__} is missing from the tree drawn in the docstring"
    for error in classes:
        if issubclass(error, errors.InvalidInput):
            assert issubclass(error, ValueError)
    assert issubclass(errors.IllegalAction, ValueError), "Rules.apply raises ValueError for an illegal action"


def test_docs_errors_draws_every_class_of_the_tree() -> None:
    page = (ROOT / "docs" / "errors.md").read_text()
    tree = next(block for block in page.split("```") if block.lstrip("\n").startswith("HarnessError"))
    drawn = {line.lstrip("│├└─ ").split()[0] for line in tree.strip().splitlines()}
    classes = {name for name, value in vars(errors).items()
               if isinstance(value, type) and issubclass(value, errors.HarnessError)}
    assert drawn == classes
