"""The compiled extension modules an import tried, failed to load and went on without, and where
the package put a Python fallback in their place.

torchopt 0.7.3's cp311 wheel holds `torchopt._C`, built for torch 2.1: beside a later torch it
does not load (undefined symbol), and `torchopt/accelerated_op/adam_op.py` says what happens then:

    try:
        from torchopt._C import adam_op
    except ImportError:
        from torchopt.accelerated_op._src import adam_op

Its import works, with the same names from Python: a limit of this torch, not a break. A package
whose handler binds nothing in their place (`adam_op = None`), or whose stand-in does not import
either (xformers 0.0.23: `flash_attn`, not installed), goes on without, and is judged by what then
fails; this module tells them apart by reading the handler and the modules imported, not by guessing.

    failures = []
    with recording(failures):
        import the_package
    fallbacks(failures, site)   # [{"module", "path", "error", "site", "names", "fallback"}], the swallowed ones
"""
import ast
import contextlib
import importlib.machinery
import os
import sys

# Exceptions whose handler catches an extension's failed load (ImportError and what it derives from).
CATCHES_IMPORT_ERROR = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def importing_site(frame):
    """(file, line) of the package's statement that asked for the module being loaded: the
    innermost frame outside importlib and this file."""
    here = os.path.realpath(__file__)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith("<frozen") and "importlib" not in name and os.path.realpath(name) != here:
            return name, frame.f_lineno
        frame = frame.f_back
    return None, None


@contextlib.contextmanager
def recording(failures):
    """Within it, each extension module whose load raises ImportError is appended to `failures`
    ({"module", "path", "error", "file", "line"}) before the error goes on as it would have."""
    loader = importlib.machinery.ExtensionFileLoader
    original = loader.create_module

    def create_module(self, spec):
        try:
            return original(self, spec)
        except ImportError as e:
            where, line = importing_site(sys._getframe(1))
            failures.append({"module": spec.name, "path": spec.origin, "error": str(e), "file": where, "line": line})
            raise

    loader.create_module = create_module
    try:
        yield failures
    finally:
        loader.create_module = original


def catches_import_error(handler):
    """Whether an `except` clause catches an ImportError: bare, or naming it or a base of it."""
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((k.id if isinstance(k, ast.Name) else getattr(k, "attr", "")) in CATCHES_IMPORT_ERROR for k in kinds)


def bound_names(statement):
    """The names an import statement binds (`from a import b as c`: c; `import a.b`: a)."""
    if isinstance(statement, ast.ImportFrom):
        return [a.asname or a.name for a in statement.names]
    if isinstance(statement, ast.Import):
        return [a.asname or a.name.split(".")[0] for a in statement.names]
    return []


def imported_from(statement):
    """The module an import statement reads ("." for each level of a relative one)."""
    if isinstance(statement, ast.ImportFrom):
        return "." * statement.level + (statement.module or "")
    return statement.names[0].name


def fallback_at(path, line):
    """Where the import at PATH:LINE sits in a `try` whose ImportError handler imports the same
    names from elsewhere: ({"names", "fallback"}), else None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        tried = [s for s in node.body if isinstance(s, (ast.Import, ast.ImportFrom)) and s.lineno <= line <= s.end_lineno]
        if not tried:
            continue
        wanted = set(bound_names(tried[0]))
        for handler in node.handlers:
            if not catches_import_error(handler):
                continue
            for statement in handler.body:
                names = set(bound_names(statement))
                if names and wanted <= names:
                    return {"names": sorted(wanted), "fallback": imported_from(statement)}
    return None


def imported(fallback, path):
    """Whether the module FALLBACK names (relative to that of the file PATH) was imported: a handler
    whose own import failed in turn (xformers 0.0.23's, from flash_attn, which is not installed,
    inside an outer `try` that goes on without both) put nothing in the extension's place."""
    import importlib.util
    if fallback.startswith("."):
        where = os.path.realpath(path)
        owner = next((m for m in list(sys.modules.values())
                      if getattr(m, "__file__", None) and os.path.realpath(m.__file__) == where), None)
        if owner is None or not owner.__package__:
            return False
        try:
            fallback = importlib.util.resolve_name(fallback, owner.__package__)
        except ImportError:
            return False
    return sys.modules.get(fallback) is not None


def fallbacks(failures, site=None):
    """The failures the import went on without (their module not imported after all) whose
    importing statement has a Python fallback that was imported: each with "site" (its file,
    relative to SITE, the folder the package sits in, where under it, and line), "names" and
    "fallback"."""
    out, seen = [], set()
    for failure in failures:
        if failure["module"] in sys.modules or failure["module"] in seen or not failure.get("file"):
            continue
        seen.add(failure["module"])
        found = fallback_at(failure["file"], failure["line"])
        if not found or not imported(found["fallback"], failure["file"]):
            continue
        where = failure["file"]
        if site and os.path.realpath(where).startswith(os.path.realpath(site) + os.sep):
            where = os.path.relpath(os.path.realpath(where), os.path.realpath(site))
        out.append({"module": failure["module"], "path": failure["path"], "error": failure["error"],
                    "site": "%s:%d" % (where, failure["line"]), **found})
    return out
