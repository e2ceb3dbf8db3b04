# SPDX-License-Identifier: MIT
"""jax.core.Tracer: what the hook skips (values under a trace are not on the device)."""


class Tracer(object):
    pass
