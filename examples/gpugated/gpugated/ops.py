"""The Python half of gpugated: the fake (Meta) kernel of gpugated::scale.

torch.library.register_fake is the torch >= 2.4 API, used here without any fallback
(torch.library.impl_abstract, 2.2-2.3) on purpose: with an older torch, importing gpugated
fails with "AttributeError: module 'torch.library' has no attribute 'register_fake'", the
"needs a newer torch" case opmatrix diagnoses."""
import torch


@torch.library.register_fake("gpugated::scale")
def _scale_fake(x, s):
    torch._check(x.is_floating_point(), lambda: "gpugated::scale: x must be a floating tensor, got %s" % x.dtype)
    return torch.empty_like(x)


def scale(x, s):
    """x * s, through the registered op."""
    return torch.ops.gpugated.scale(x, float(s))
