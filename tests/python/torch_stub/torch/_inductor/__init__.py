# SPDX-License-Identifier: MIT
"""Stand-in for Inductor (torch.compile's code generator): only what vramtrace's
torch.compile layer hook (preload/vt_inductor_hook.py) wraps and reads."""
