"""The package's import graph: module-level and function-local imports, layers, cycles.

    python tools/import_graph.py          # a table per module, upward imports, cycles

The layers are the folders of ``chesslab/``, bottom to top (``LAYERS``); a module may
import its own layer and the ones below it. tests/test_package_layers.py asserts that.
"""
import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1] / "chesslab"


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(node, here: str, is_package: bool) -> list[str]:
    """chesslab modules named by one import statement."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.startswith("chesslab")]
    if node.level:
        base = here.split(".")
        base = base if is_package else base[:-1]
        base = base[:len(base) - (node.level - 1)]
        mod = ".".join(base + ([node.module] if node.module else []))
    else:
        mod = node.module or ""
    if not mod.startswith("chesslab"):
        return []
    return [f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names]


MODULES = {module_name(p) for p in ROOT.rglob("*.py")}

#: chesslab's layers, bottom to top: each may import itself and what is below it.
#: ``chesslab`` (the public face, loaded lazily) and ``__main__`` sit on top.
LAYERS = ("base", "board", "nn", "datasets", "evaluators", "search", "matches", "training",
          "experiments", "widgets", "course", "figures", "cli", "__main__", "")


def layer(module: str) -> int:
    """The rank of ``module``'s layer in ``LAYERS`` (the face ``chesslab`` is the top)."""
    parts = module.split(".")
    return LAYERS.index(parts[1] if len(parts) > 1 else "")


def upward(edges) -> list[tuple[str, str]]:
    """Every import of a higher layer: (importer, imported)."""
    return sorted((a, b) for a, targets in edges.items() for b in targets
                  if layer(b) > layer(a))


def graph():
    edges, local = {}, {}
    for path in sorted(ROOT.rglob("*.py")):
        here = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inner = set()
        for f in ast.walk(tree):
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for n in ast.walk(f):
                    if isinstance(n, (ast.Import, ast.ImportFrom)):
                        inner.add(id(n))
        top, loc = set(), []
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                names = [m for m in imported(n, here, path.name == "__init__.py") if m != here]
                (loc.extend if id(n) in inner else top.update)(names)
        edges[here], local[here] = top, loc
    return edges, local


def cycles(edges) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def main():
    edges, local = graph()
    both = {m: edges[m] | set(local[m]) for m in edges}
    print(f"{'module':28s} {'lines':>5s}  imports (module level) | function-local")
    for m in sorted(edges):
        path = ROOT.parent / (m.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT.parent / m.replace(".", "/") / "__init__.py"
        lines = len(path.read_text(encoding="utf-8").splitlines())
        short = lambda s: sorted(x.removeprefix("chesslab.") for x in s)
        print(f"{m:28s} {lines:5d}  {', '.join(short(edges[m]))} | "
              f"{', '.join(short(set(local[m])))}")
    print(f"\nupward imports: {upward(both) or 'none'}")
    total = sum(len(v) for v in local.values())
    print(f"\nfunction-local imports of chesslab modules: {total}")
    print(f"cycles (module level): {cycles(edges) or 'none'}")
    print(f"cycles (counting function-local imports): {cycles(both) or 'none'}")


if __name__ == "__main__":
    sys.exit(main())
