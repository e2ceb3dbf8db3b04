# SPDX-License-Identifier: MIT
"""A stand-in for optax: adamw's state types (ScaleByAdamState: count, mu, nu;
EmptyState) defined in optax's modules, as the JAX hook recognizes them by module."""
from ._src.transform import EmptyState, ScaleByAdamState, adamw, apply_updates  # noqa: F401
