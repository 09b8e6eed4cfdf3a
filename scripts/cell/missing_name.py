"""Whether a name an import asked a module for is one that module never defines, whatever the torch.

auto-gptq 0.5.1 beside torch 2.4.1: transformers 5 prints that it disables torch before 2.6, then
the import fails on `from transformers.utils.hub import create_repo`, a name transformers 5's
hub.py no longer binds anywhere. The refusal printed first is not why: beside any torch that import
fails the same way. A name bound under a condition (`if is_torch_available():`), a module that
builds its names at run time (a lazy module, `__getattr__`, `from … import *`), or a name of torch's
own (a newer torch's API: torchao 0.18.0 asking torch 2.8 for a 2.11 name) may be the refusal's
doing: those are not claimed."""
import ast
import re
import sys
import types

CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([A-Za-z_][\w.]*)'")
# Source that can bind module names it does not spell: not claimed.
DYNAMIC = ("globals()", "vars()", "sys.modules[", "setattr(sys.modules", "__getattr__", "import *")


def bound_names(body):
    """The names the statements of BODY bind at module level, into every branch of an if, try,
    with or loop (source that binds names it does not spell is never read: DYNAMIC)."""
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        else:
            # Assignment targets, loop variables, `with … as` names and walrus targets.
            for leaf in ast.walk(node) if not isinstance(node, (ast.If, ast.Try, ast.While)) else []:
                if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                    names.add(leaf.id)
        nested = [getattr(node, field, []) for field in ("body", "orelse", "finalbody")]
        nested += [handler.body for handler in getattr(node, "handlers", [])]
        nested += [case.body for case in getattr(node, "cases", [])]
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for block in nested:
                names |= bound_names(block)
    return names


def never_bound(error):
    """"NAME' from 'MODULE" where ERROR is an ImportError for a name that MODULE's source (not
    torch's) binds nowhere at module level, under no condition; else None."""
    if not isinstance(error, ImportError) or isinstance(error, ModuleNotFoundError):
        return None
    m = CANNOT_IMPORT.search(str(error))
    if not m or m.group(2).split(".")[0] == "torch":
        return None
    name, module = m.groups()
    loaded = sys.modules.get(module)
    if loaded is not None and type(loaded) is not types.ModuleType:
        return None  # a lazy module's names are not in its source
    path = getattr(error, "path", None) or getattr(loaded, "__file__", None)
    if not path or not path.endswith(".py"):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            source = f.read()
        names = None if any(d in source for d in DYNAMIC) else bound_names(ast.parse(source).body)
    except (OSError, SyntaxError, ValueError):
        return None
    return None if names is None or name in names else "%s' from '%s" % (name, module)
