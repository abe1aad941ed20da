"""The house: imports run one way (theory ← numerics ← the ledger and the tools), no step
imports another step, no module but the ledger imports a step, and no import runs in a
circle (imports inside functions included)."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]
FOLDERS = {"theory": "attnge.theory", "numerics": "attnge.numerics", "derivations": "attnge"}


def modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The attnge modules that ``name`` imports (``from a import b`` counts a.b when a.b is
    a module)."""
    out = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("attnge")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            if not base.startswith("attnge"):
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in known else base)
    return {m for m in out if m in known and m != name}


GRAPH = {name: imports(name, path, set(modules())) for name, path in modules().items()}


def layer(name: str) -> int:
    return 0 if name.startswith("attnge.theory") else 1 if name.startswith("attnge.numerics") \
        else 2


def test_imports_run_down_the_house():
    for name, targets in GRAPH.items():
        upward = [t for t in targets if layer(t) > layer(name) and t != "attnge"]
        assert not upward, (name, upward)


def test_no_step_imports_a_step_and_only_the_ledger_imports_steps():
    for name, targets in GRAPH.items():
        steps = [t for t in targets if t.startswith("attnge.steps.")]
        if name.startswith("attnge.steps."):
            assert not steps, (name, steps)
        elif name != "attnge.ledger":
            assert not steps, (name, steps)


def test_no_import_runs_in_a_circle():
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for t in sorted(GRAPH[node] - {"attnge"}):   # the package itself only names its API
            if state.get(t) == 1:
                raise AssertionError(" -> ".join([*trail[trail.index(t):], t]))
            if t not in state:
                visit(t, [*trail, t])
        state[node] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])


def test_the_public_names_resolve():
    import attnge

    for name in attnge.__all__:
        assert getattr(attnge, name) is not None, name
