"""The layers of attention_core, enforced: library (core) <- backends <- teaching <- one lab per notebook.

Every module is read with `ast` (nothing is imported) and every import it makes is collected,
the ones inside functions too (a lazy import is still a dependency). The rules:

- core imports only the standard library, NumPy and attention_core.core;
- backends import the standard library, NumPy, torch, core and backends, and transformers only
  inside a function (the GPT-2 loader, `backends/gpt2.py`: a test-time requirement, never loaded by
  `import attention_core`);
- teaching imports core, backends and teaching, never a lab, and never torch;
- a lab imports core, backends, teaching, itself and earlier labs only (nbNN with a smaller NN);
  torch only inside a function (the recall models of notebook 08 and the trained model of 12),
  so importing a lab never loads it;
- the package's __init__ imports only the library (core and backends); teaching and labs may use
  its public names (`import attention_core as ac`).

And in a fresh interpreter, `import attention_core` loads neither torch nor matplotlib nor ipywidgets nor
transformers.
"""
from __future__ import annotations

import ast
import functools
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "attention_core"
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
UI = {"matplotlib", "ipywidgets", "IPython"}


@dataclass(frozen=True)
class Import:
    module: str        # the importing module, e.g. "attention_core.labs.nb04_masking.widgets"
    target: str        # the imported module (or module.name for `from m import name`), absolute
    line: int
    in_function: bool

    @property
    def top(self) -> str:
        return self.target.split(".")[0]

    def __str__(self) -> str:
        where = f"line {self.line}" + (", inside a function" if self.in_function else "")
        return f"{self.module} imports {self.target} ({where})"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> list[Import]:
    """Every import of one source file, relative ones made absolute, with where it stands."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []

    def visit(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                out.extend(Import(name, alias.name, child.lineno, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - (child.level - 1)]
                    source = ".".join(base + ([child.module] if child.module else []))
                else:
                    source = child.module
                # `from attention_core.labs import nb03_softmax` imports a module: keep the name
                out.extend(Import(name, f"{source}.{alias.name}", child.lineno, in_function) for alias in child.names)
            visit(child, inside)

    visit(tree, False)
    return out


MODULES = sorted(PACKAGE.rglob("*.py"))


@functools.cache     # parsed when a test first asks, not while every xdist worker collects the tests
def package_imports() -> list[Import]:
    return [imp for path in MODULES for imp in imports_of(path)]


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def lab_number(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "labs" and parts[2].startswith("nb") and parts[2][2:4].isdigit():
        return int(parts[2][2:4])
    return None


def internal(imp: Import) -> bool:
    return imp.top == "attention_core"


SUBPACKAGES = ("core", "backends", "teaching", "labs", "data")
LOWER = ("attention_core.core", "attention_core.backends", "attention_core.teaching", "attention_core.data")


def library_api(imp: Import) -> bool:
    """`import attention_core` or `from attention_core import softmax`: the library's public names."""
    parts = imp.target.split(".")
    return parts[0] == "attention_core" and (len(parts) == 1 or (len(parts) == 2 and parts[1] not in SUBPACKAGES))


def test_the_walk_sees_every_layer_and_lazy_imports():
    layers = {layer(module_name(p)) for p in MODULES}
    assert {"core", "backends", "teaching", "labs", "data"} <= layers
    assert len(MODULES) > 40 and len(package_imports()) > 300
    assert any(imp.in_function for imp in package_imports())
    relative = imports_of(PACKAGE / "labs" / "nb04_masking" / "__init__.py")
    assert all(imp.target.startswith(("attention_core.", "__future__")) for imp in relative)


def test_core_imports_only_numpy_the_standard_library_and_itself():
    bad = [imp for imp in package_imports() if layer(imp.module) == "core" and not (
        imp.top in STDLIB or imp.top == "numpy" or imp.target.startswith("attention_core.core"))]
    assert not bad, "core must stay NumPy-only:\n" + "\n".join(map(str, bad))


def test_backends_import_only_core_itself_and_torch():
    bad = [imp for imp in package_imports() if layer(imp.module) == "backends" and not (
        imp.top in STDLIB or imp.top in ("numpy", "torch")
        or (imp.top == "transformers" and imp.in_function)             # the GPT-2 loader, lazily
        or imp.target.startswith(("attention_core.core", "attention_core.backends")))]
    assert not bad, "backends import the library, torch and (lazily) transformers only:\n" + "\n".join(map(str, bad))
    assert any(imp.top == "transformers" for imp in package_imports()
               if layer(imp.module) == "backends")                           # the rule is used


def test_teaching_never_imports_a_lab_nor_torch():
    bad = [imp for imp in package_imports() if layer(imp.module) == "teaching" and (
        imp.top == "torch" or (internal(imp) and not library_api(imp) and not imp.target.startswith(LOWER)))]
    assert not bad, "teaching is course-agnostic machinery:\n" + "\n".join(map(str, bad))


def test_a_lab_imports_only_lower_layers_itself_and_earlier_labs():
    bad = []
    for imp in package_imports():
        own = lab_number(imp.module)
        if own is None:
            continue
        if imp.top == "torch" and not imp.in_function:
            bad.append(f"{imp}: torch at module level (import it inside the function that trains)")
        if not internal(imp) or library_api(imp) or imp.target.startswith(LOWER):
            continue
        other = lab_number(imp.target)
        if other is None or other > own:
            bad.append(f"{imp}: a lab may import only itself and earlier labs")
    assert not bad, "\n".join(bad)


def test_the_package_init_exports_the_library_only():
    bad = [imp for imp in package_imports() if imp.module == "attention_core" and internal(imp)
           and not imp.target.startswith(("attention_core.core", "attention_core.backends"))]
    bad += [imp for imp in package_imports() if imp.module == "attention_core" and imp.top in UI | {"torch"}]
    assert not bad, "\n".join(map(str, bad))


@pytest.mark.parametrize("heavy", ["torch", "matplotlib", "ipywidgets", "transformers"])
def test_import_attention_core_loads_no_heavy_library(heavy):
    code = f"import sys, attention_core; print({heavy!r} in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False", f"`import attention_core` loaded {heavy}"


def test_no_import_cycle_inside_the_package():
    """Module-level imports between the package's modules form no cycle (teaching.checks and the old
    exercise_checks once imported each other at their bottoms); lazy imports inside functions may."""
    graph: dict[str, set] = {}
    for imp in package_imports():
        if internal(imp) and not imp.in_function:
            target = imp.target if imp.target in {module_name(p) for p in MODULES} else imp.target.rpartition(".")[0]
            if target != imp.module and target.startswith("attention_core."):
                graph.setdefault(imp.module, set()).add(target)
    state: dict[str, str] = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycle = path[path.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert "attention_core.teaching.quiz" in graph                        # the walk saw the teaching layer


def test_no_module_imports_another_modules_private_names():
    """`from m import _name` across modules is the same coupling SLF001 forbids for `m._name`."""
    bad = [str(imp) for imp in package_imports() if internal(imp) and imp.target.rpartition(".")[2].startswith("_")
           and not imp.target.rpartition(".")[2].startswith("__")]
    assert not bad, "\n".join(bad)


def _cycles_inside_layers(imports: list[Import] | None = None) -> list[str]:
    """Each import cycle among the modules of one layer (core, backends, teaching, one lab), counting the
    imports inside functions too: a lazy import hides a cycle from Python, not from a reader."""
    modules = {module_name(p) for p in MODULES}
    packages = {module_name(p) for p in MODULES if p.name == "__init__.py"}

    def unit(module: str) -> str:                     # a lab is its own unit: nb13 may import nb12, not back
        parts = module.split(".")
        return ".".join(parts[:3]) if len(parts) > 2 and parts[1] == "labs" else layer(module)

    graph: dict[str, set] = {}
    for imp in package_imports() if imports is None else imports:
        if not internal(imp):
            continue
        target = imp.target if imp.target in modules else imp.target.rpartition(".")[0]
        if target in packages or target not in modules or target == imp.module:
            continue                                  # a package's re-exported name: its __init__ is no module of logic
        if unit(target) == unit(imp.module):
            graph.setdefault(imp.module, set()).add(target)
    cycles, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return cycles


def test_no_import_cycle_inside_a_layer_even_through_imports_inside_functions():
    """core/model.py <-> core/transformer.py once hid a cycle behind imports inside functions."""
    cycles = _cycles_inside_layers()
    assert not cycles, "import cycles inside a layer (imports inside functions count):\n" + "\n".join(cycles)


def test_the_cycle_check_sees_a_cycle_hidden_in_a_function():
    """The walk above is not vacuous: a lazy import back from model to interventions is a cycle."""
    extra = Import("attention_core.core.model", "attention_core.core.interventions.ablate", 1, True)
    cycles = _cycles_inside_layers([*package_imports(), extra])
    assert any("attention_core.core.model" in c and "interventions" in c for c in cycles)
