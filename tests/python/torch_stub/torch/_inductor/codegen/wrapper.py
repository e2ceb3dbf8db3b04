# SPDX-License-Identifier: MIT
"""Stand-in for torch._inductor.codegen.wrapper: the wrapper codegen writes one line per
buffer it allocates, as Inductor's does ("buf3 = empty_strided_cuda(...)")."""
from .. import codecache  # noqa: F401  (Inductor's wrapper imports its code cache too)


class PythonWrapperCodegen(object):
    def __init__(self):
        self.lines = []

    def make_buffer_allocation(self, buffer):
        return "%s = empty_strided_cuda(%d)" % (buffer.get_name(), buffer.mib)

    def generate_extern_kernel_alloc(self, node, args):
        self.lines.append("%s = extern_kernels.mm(%d)" % (node.get_name(), node.mib))
