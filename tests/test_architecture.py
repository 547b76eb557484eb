"""The design rules of ARCHITECTURE.md, checked on the source: layers, the door into cat, no
import cycles, no dynamic imports or attribute probing, no catch-all handlers that could
change an answer, no import-time side effects."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The top-level folders (each a subpackage of herdsman).
FOLDERS = ("litmus", "graphs", "cat", "engine", "herd_compat")
#: The layers and rooms, in the order data flows: a module imports only from its own and
#: earlier ones.  A module's layer is the longest of these its name starts with.
LAYERS = (
    "litmus.base",  # the program IR, errors, architecture records, reading inputs
    "litmus",  # the front-ends
    "graphs",
    "cat",
    "engine",
    "herd_compat",  # (the package itself only)
    "herd_compat.formats",
    "herd_compat.pipeline",
    "herd_compat.analyses",
    "herd_compat.campaigns",
    "herd_compat.serve",  # the workbench in a browser
    "herd_compat.cli",
)
#: The module of cat that the later layers may import: the door.
CAT_DOORS = {"herdsman.cat.api"}
#: Where a catch-all handler is allowed: the command line's last resort, which turns a bug
#: into one "internal error" line, and the worker processes, which report to their parent.
CATCH_ALL_ALLOWED = {
    "herd_compat/cli/main.py",
    "herd_compat/cli/parse.py",
    "herd_compat/campaigns/workers.py",
    "herd_compat/pipeline/run_file.py",
    "herd_compat/serve/work.py",
}


def modules() -> dict[str, Path]:
    out = {}
    for folder in FOLDERS:
        for p in sorted((ROOT / folder).rglob("*.py")):
            rel = p.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            out["herdsman." + ".".join(parts)] = p
    return out


MODULES = modules()


def imports_of(name: str, path: Path) -> list[tuple[str, int]]:
    """The herdsman modules ``name`` imports (anywhere in the file), with line numbers; an
    imported name that is a submodule counts as that submodule."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("herdsman."):
                    out.append((a.name, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            if not base.startswith("herdsman"):
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.append((sub if sub in MODULES else base, node.lineno))
    return out


def layer(mod: str) -> str:
    """The layer (or room) of module ``mod``: the longest of :data:`LAYERS` it is in."""
    rest = mod.removeprefix("herdsman.")
    return max((x for x in LAYERS if rest == x or rest.startswith(x + ".")), key=len)


def test_every_module_is_found():
    assert len(MODULES) > 50 and "herdsman.cat.api" in MODULES


@pytest.mark.parametrize("name", sorted(MODULES))
def test_layers_and_the_door_into_cat(name):
    """Data flows one way (the base, front-ends, graphs, cat, engine, then herd_compat's
    rooms in order), and everything after cat reaches it only through cat.api."""
    mine = LAYERS.index(layer(name))
    for mod, line in imports_of(name, MODULES[name]):
        if mod not in MODULES and mod != "herdsman":
            pytest.fail(f"{MODULES[name]}:{line}: imports unknown module {mod}")
        other = layer(mod) if mod != "herdsman" else ""
        assert other in LAYERS, f"{MODULES[name]}:{line}: imports {mod}"
        assert LAYERS.index(other) <= mine, f"{MODULES[name]}:{line}: {name} imports {mod}"
        if LAYERS.index(layer(name)) > LAYERS.index("cat") and other == "cat":
            assert mod in CAT_DOORS, f"{MODULES[name]}:{line}: reaches into cat: {mod}"


def test_no_import_cycles():
    g = nx.DiGraph()
    for name, path in MODULES.items():
        g.add_node(name)
        for mod, _ in imports_of(name, path):
            if mod in MODULES and mod != name:
                g.add_edge(name, mod)
    # a package's __init__ importing its own submodules is not a cycle of design
    cycles = [c for c in nx.simple_cycles(g) if len(c) > 1]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles[:10])


def calls(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            yield name, node


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_dynamic_imports_or_probing(name):
    path = MODULES[name]
    for fn, node in calls(path):
        assert fn not in ("import_module", "__import__"), f"{path}:{node.lineno}: dynamic import"
        if LAYERS.index(layer(name)) >= LAYERS.index("engine"):
            assert fn not in ("getattr", "hasattr"), f"{path}:{node.lineno}: attribute probing"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_catch_all_handlers(name):
    """``except Exception`` (or a bare ``except``) could turn any bug into another answer."""
    path = MODULES[name]
    rel = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler):
            t = node.type
            names = []
            if t is None:
                names = ["bare"]
            elif isinstance(t, ast.Name):
                names = [t.id]
            elif isinstance(t, ast.Tuple):
                names = [e.id for e in t.elts if isinstance(e, ast.Name)]
            if {"bare", "Exception", "BaseException"} & set(names):
                reraises = any(isinstance(x, ast.Raise) for x in ast.walk(node))
                assert rel in CATCH_ALL_ALLOWED or reraises, f"{rel}:{node.lineno}: catch-all"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_import_time_side_effects(name):
    """Module bodies define things; they do not change the interpreter's state."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        for sub in ast.walk(node):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                break
            if isinstance(sub, ast.Call):
                f = sub.func
                if isinstance(f, ast.Attribute) and f.attr in ("setrecursionlimit", "seed"):
                    pytest.fail(f"{path}:{sub.lineno}: {f.attr} at import time")


def test_packaging_lists_every_package():
    """pyproject's package list and package-dir mapping cover every folder with an
    __init__.py (a subpackage missing there would be left out of the wheel)."""
    import tomllib

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    want = {n for n, p in MODULES.items() if p.name == "__init__.py"}
    for p in (ROOT / "litmus" / "examples",):
        want.add("herdsman." + ".".join(p.relative_to(ROOT).parts))
    assert set(conf["packages"]) == want
    assert set(conf["package-dir"]) == {f"herdsman.{x}" for x in FOLDERS}


def test_cat_api_hands_out_no_ast():
    """Explanations and engines read a model through herdsman's own records (terms, check
    views, identities), never cat's AST: cat.api exports none of its classes."""
    import herdsman.cat.api as door

    for name in door.__all__:
        obj = getattr(door, name)
        assert getattr(obj, "__module__", "") != "herdsman.cat.ast", f"cat.api exports {name}"


def _annotation(node: ast.expr | None) -> str:
    return "" if node is None else ast.unparse(node)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_models_travel_typed(name):
    """After cat a model travels as ``PreparedModel`` (or cat's own ``Model``, for the
    analyses that read its checks): no ``model: object``, no ``isinstance(.., Model)``,
    and the engine knows models only by the protocol."""
    if LAYERS.index(layer(name)) <= LAYERS.index("cat"):
        return
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and "model" in node.arg:
            assert _annotation(node.annotation) != "object", f"{path}:{node.lineno}: untyped"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "isinstance" and len(node.args) == 2:
                kinds = _annotation(node.args[1])
                assert "Model" not in kinds, f"{path}:{node.lineno}: probes a model's type"
    if layer(name) == "engine":
        for mod, line in imports_of(name, path):
            if mod == "herdsman.cat.api":
                node = next(
                    n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.lineno == line
                )
                imported = {a.name for a in node.names}
                assert "Model" not in imported, f"{path}:{line}: the engine takes PreparedModel"
