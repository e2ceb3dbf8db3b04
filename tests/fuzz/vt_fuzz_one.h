/* SPDX-License-Identifier: MIT */
/* vt_fuzz_one.h - one untrusted trace through every command (vt_fuzz_one.c). */
#ifndef VT_FUZZ_ONE_H
#define VT_FUZZ_ONE_H

#include <stddef.h>
#include <stdint.h>

/* Both return 0 when report read the trace, 2 when it refused it (every command must
 * then exit 0, 1 or 2), 1 when a command answered something else or setup failed.
 * pick: VT_FUZZ_EVERY every command; VT_FUZZ_READERS those that only read (report, its
 * JSON, top, dump), for drivers that run thousands of inputs in a test; N >= 0 report
 * and the (N mod count)-th command. vt_fuzz_trace_mem picks by the input's length. */
#define VT_FUZZ_EVERY   (-1)
#define VT_FUZZ_READERS (-2)
int vt_fuzz_trace_file(const char *trace, int pick);
int vt_fuzz_trace_mem(const uint8_t *data, size_t size);

/* libFuzzer's entry point: aborts when vt_fuzz_trace_mem returns 1. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* VT_FUZZ_ONE_H */
