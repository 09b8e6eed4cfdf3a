"""The dispatcher's view of a namespace: which ops exist and, for each dispatch key, whether
a kernel serves it and which registration that is. Shared by the registration scripts;
never raises.

A key counts as served by the same rule as the C++ cases (kernelServing() in
cases/common/dispatch.cpp): a kernel registered for the key itself; for Autograd, else for
AutogradCPU, then AutogradCUDA; for any other key, else for CompositeExplicitAutograd, then
BackendSelect (always in a call's dispatch set: torchcodec's ops are registered there); and for
every key, finally CompositeImplicitAutograd. One rule for our kernels and any project."""

import re

KEYS = ["CPU", "CUDA", "Meta", "Autograd"]

# The registrations that may serve a requested dispatch key, in the order they are tried
# ("{key}" is the requested key itself); the entry for the key, else "*".
# Mirrors kernelServing() in cases/common/dispatch.cpp: change both together
# (tests/cell_scripts/test_dispatcher.py compares them).
SERVING_ORDER = {
    "Autograd": ("{key}", "AutogradCPU", "AutogradCUDA", "CompositeImplicitAutograd"),
    "*": ("{key}", "CompositeExplicitAutograd", "BackendSelect", "CompositeImplicitAutograd"),
}


def candidates(key):
    """The keys whose kernel would serve `key`, first match wins."""
    return [key if c == "{key}" else c for c in SERVING_ORDER.get(key, SERVING_ORDER["*"])]


def ops_in_namespace(torch, namespace):
    """Every op name registered under `namespace` (without overloads), or None when this torch
    cannot list them (then pass the ops explicitly)."""
    list_all = getattr(torch._C, "_dispatch_get_all_op_names", None)
    if list_all is None:
        return None
    prefix = namespace + "::"
    names = set()
    for qualified in list_all():
        if qualified.startswith(prefix):
            names.add(qualified[len(prefix):].split(".")[0])
    return sorted(names)


def registered_ops(torch):
    """Every op this process's dispatcher knows, "namespace::name" without overloads, or None when
    this torch cannot list them."""
    list_all = getattr(torch._C, "_dispatch_get_all_op_names", None)
    if list_all is not None:
        return {q.split(".")[0] for q in list_all()}
    schemas = getattr(torch._C, "_jit_get_all_schemas", None)  # torch 1.13: every op with a schema
    return None if schemas is None else {s.name for s in schemas()}


def namespaces_added(torch, before):
    """{namespace: [op names]} of the ops registered since `before` (registered_ops() then): what a
    package registers where nobody declared its namespace. {} where this torch cannot tell."""
    after = registered_ops(torch)
    if before is None or after is None:
        return {}
    added = {}
    for qualified in sorted(after - before):
        namespace, _, name = qualified.partition("::")
        added.setdefault(namespace, []).append(name)
    return added


_MISSING = object()  # the op does not exist, or this torch cannot tell
_UNKNOWN = object()  # the key is not one this torch knows


def _serving(has_kernel, qualified, key):
    """The key whose kernel serves `key` for op `qualified`, None when none does, _MISSING
    when the op does not exist, _UNKNOWN when this torch cannot parse `key` itself."""
    if has_kernel is None:
        return _MISSING
    try:
        # Every torch knows the key CPU: this only fails for a missing op.
        has_kernel(qualified, "CPU")
    except Exception:  # noqa: BLE001 - the op is not registered at all
        return _MISSING
    for candidate in candidates(key):
        try:
            if has_kernel(qualified, candidate):
                return candidate
        except Exception:  # noqa: BLE001 - a key this torch cannot parse
            if candidate == key:
                return _UNKNOWN  # asked for a key this torch does not have: no answer
            # a fallback key this torch does not have (an old torch): nothing registered there
    return None


def _overload_of(has_kernel, qualified, every_name):
    """QUALIFIED where it has a default overload, else its first named one ("ns::op.out"): an op
    defined by its out variant alone (zentorch 2.14.0.1's zentorch_group_matmul.out) is
    registered, and answers by that name. QUALIFIED where it has none either. EVERY_NAME() is the
    dispatcher's list of qualified names with overloads, asked only where needed."""
    try:
        has_kernel(qualified, "CPU")
        return qualified
    except Exception:  # noqa: BLE001 - no default overload
        pass
    named = sorted(n for n in every_name() if n.startswith(qualified + "."))
    return named[0] if named else qualified


def _names(torch, namespace, ops):
    """(torch's has-kernel query, {op: the name it answers by}: _overload_of's); the query is None,
    and so is every name, where this torch has none."""
    has_kernel = getattr(getattr(torch, "_C", None), "_dispatch_has_kernel_for_dispatch_key", None)
    list_all = getattr(getattr(torch, "_C", None), "_dispatch_get_all_op_names", None)
    listed = []  # the dispatcher's list, read once, where an op has no default overload

    def every_name():
        if not listed and list_all:
            listed.append(list_all())
        return listed[0] if listed else []
    return has_kernel, {op: _overload_of(has_kernel, namespace + "::" + op, every_name) if has_kernel else None
                        for op in ops}


def _rows(torch, namespace, ops, keys):
    has_kernel, names = _names(torch, namespace, ops)
    return {op: {key: _serving(has_kernel, names[op], key) for key in keys} for op in ops}


def served_by(torch, namespace, ops, keys=KEYS):
    """{op: {key: the key whose kernel serves it ("CPU", "CompositeExplicitAutograd", ...),
    or None when none does, the op does not exist or the key is unknown to this torch}}."""
    return {op: {key: (None if v is _MISSING or v is _UNKNOWN else v) for key, v in row.items()}
            for op, row in _rows(torch, namespace, ops, keys).items()}


def kernel_table(torch, namespace, ops, keys=KEYS):
    """{op: {key: True when a kernel serves the key (served_by's rule), False when none does,
    None when the op itself does not exist or the key is unknown to this torch}}."""
    return {op: {key: (None if v is _MISSING or v is _UNKNOWN else v is not None) for key, v in row.items()}
            for op, row in _rows(torch, namespace, ops, keys).items()}


REGISTERED_AT = re.compile(r"^(\w+): registered at (\S+?)(?: :: .*)?$")


def registration_sites(torch, namespace, ops, keys=("CPU", "CUDA")):
    """{op: {key: where its kernel for KEY was registered, "file:line" as the dispatcher recorded
    it}} for the keys with a kernel of their own: a C++ source's line (TORCH_LIBRARY_IMPL) or a
    Python file's (torch.library). {} where this torch cannot dump an op."""
    dump = getattr(getattr(torch, "_C", None), "_dispatch_dump", None)
    has_kernel, names = _names(torch, namespace, ops)
    if dump is None or has_kernel is None:
        return {}
    out = {}
    for op in ops:
        try:
            text = dump(names[op])
        except Exception:  # noqa: BLE001 - not registered, or this torch cannot dump it
            continue
        sites = {}
        for line in text.splitlines():
            m = REGISTERED_AT.match(line.strip())
            if m and m.group(1) in keys:
                sites[m.group(1)] = m.group(2)
        if sites:
            out[op] = sites
    return out

