"""Which wheels this interpreter can install, as pip decides it: a wheel's file name names its
tags (PEP 427, compressed tag sets like `cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64`
expand to one tag per combination), and `packaging.tags.sys_tags()` lists the tags this
interpreter accepts, best first. Shared by fetch_pypi.py and install_wheel.py."""
import re
import sys


def wheel_tags(filename):
    """The tags `name-version[-build]-py-abi-platform.whl` stands for, or [] for a name that is
    not a wheel's. Names and versions never hold '-' in a wheel file name (it is escaped to '_')."""
    if not filename.endswith(".whl"):
        return []
    parts = filename[:-len(".whl")].split("-")
    if len(parts) not in (5, 6):
        return []
    py, abi, plat = (p.lower().split(".") for p in parts[-3:])
    return ["%s-%s-%s" % (i, a, p) for i in py for a in abi for p in plat]


def interpreter_tags():
    """This interpreter's accepted tags, best first, as strings; None without a `packaging`
    (the standalone one, else pip's vendored copy: every image has pip)."""
    try:
        from packaging.tags import sys_tags
    except ImportError:
        try:
            from pip._vendor.packaging.tags import sys_tags
        except ImportError:
            return None
    return [str(t) for t in sys_tags()]


def best_wheel(filenames, accepted):
    """(filename, tag) of the wheel whose best tag comes first in `accepted`, or None; on a tie
    (the same tag twice) the one listed first."""
    rank = {t: i for i, t in enumerate(accepted)}
    best = None
    for f in filenames:
        ranks = [rank[t] for t in wheel_tags(f) if t in rank]
        if ranks and (best is None or min(ranks) < best[0]):
            best = (min(ranks), f)
    return (best[1], accepted[best[0]]) if best else None


def platform_family(platform):
    """manylinux_2_28_x86_64 and manylinux2014_x86_64 -> 'manylinux x86_64'."""
    family = re.match(r"[a-z]*", platform).group(0)
    arch = re.sub(r"^[a-z]+[0-9_]*", "", platform)
    return "%s %s" % (family, arch) if family and arch else platform


def wheels_for(filenames):
    """What `filenames` are wheels for, in a few words: 'cp38/cp39 wheels for manylinux x86_64'."""
    tags = [t.split("-") for f in filenames for t in wheel_tags(f)]
    pys = sorted({t[0] for t in tags}, key=lambda p: (len(p), p))
    return "%s wheels for %s" % ("/".join(pys), ", ".join(sorted({platform_family(t[2]) for t in tags})))


def compiled(filename):
    """The wheel names a CPython ABI (cp311, abi3): it may hold compiled code, where a py3-none
    wheel holds none unless its platform tag says so."""
    return any(t.split("-")[1] != "none" for t in wheel_tags(filename))


def why_none_fits(filenames, accepted):
    """Plain words on why none of `filenames` installs here: what the wheels are for, against
    what this interpreter takes."""
    tags = [t.split("-") for f in filenames for t in wheel_tags(f)]
    if not tags:
        # A .whl whose name is not `name-version[-build]-py-abi-platform` (multiscaledeformableattention
        # 1.0's one file: MultiScaleDeformableAttention-0.1-none-any.whl): pip skips it.
        malformed = [f for f in filenames if f.endswith(".whl")]
        if malformed:
            one = len(malformed) == 1
            return "its %s, %s, %s not named as PEP 427 requires (name-version-python-abi-platform.whl): pip skips %s" % (
                "one .whl file" if one else ".whl files", ", ".join(malformed), "is" if one else "are",
                "it" if one else "them")
        return "it has no wheels"
    have = "it has " + wheels_for(filenames)
    ours = "this cell's Python %d.%d" % sys.version_info[:2]
    best = accepted[0] if accepted else "none"
    platforms = [t.split("-")[2] for t in accepted if not t.endswith("-any")]
    if {tuple(t[:2]) for t in tags} & {tuple(t.split("-")[:2]) for t in accepted}:
        # The Python and its ABI would do, so the platform does not.
        return "%s; %s runs on %s and older: the wheel is for another platform (its best tag: %s)" % (
            have, ours, platforms[0] if platforms else "no binary platform", best)
    return "%s; %s needs cp%d%d (its best tag: %s)" % (have, ours, sys.version_info[0], sys.version_info[1], best)
