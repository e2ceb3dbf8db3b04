# SPDX-License-Identifier: MIT
# compiler.py - stub of torch.compiler: never compiling.
def is_compiling():
    return False
