# SPDX-License-Identifier: MIT
# Another sitecustomize on the path: vramtrace's start-up hook must run it too.
import builtins

builtins.__vt_other_site__ = True
