"""The dispatcher's view of a namespace: which ops exist and which of them have a kernel
for each dispatch key. Shared by the registration scripts; never raises."""

KEYS = ["CPU", "CUDA", "Meta", "Autograd"]


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


def kernel_table(torch, namespace, ops, keys=KEYS):
    """{op: {key: True/False, or None when the op itself does not exist}}."""
    has_kernel = getattr(torch._C, "_dispatch_has_kernel_for_dispatch_key", None)
    table = {}
    for op in ops:
        row = {}
        for key in keys:
            try:
                row[key] = bool(has_kernel(namespace + "::" + op, key)) if has_kernel else None
            except Exception:  # noqa: BLE001 - the op is not registered at all
                row[key] = None
        table[op] = row
    return table
