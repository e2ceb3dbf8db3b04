// SPDX-License-Identifier: MIT
/* vt_units.h - sizes and durations, to and from text ("20GiB", "1.5 GB", "300ms"). */
#ifndef VT_UNITS_H
#define VT_UNITS_H

#include <stdint.h>

#define VT_UNITS_BUF 32

/* "20GiB", "1.5 GB", "512k", "100" (bytes). KiB/MiB/GiB/TiB and a bare K/M/G/T are
 * powers of 1024; kB/KB/MB/GB/TB are powers of 1000. Returns 0, or -1 when malformed. */
int vt_units_parse_size(const char *s, uint64_t *out);

/* "12.5s", "300ms", "40us", "7ns", "2m", "1h"; a bare number is seconds.
 * Returns 0, or -1 when malformed. */
int vt_units_parse_time(const char *s, uint64_t *ns_out);

/* "512 B", "1.50 GiB", "12.5 MiB", "700 MiB" (three significant digits). */
const char *vt_units_size(char buf[VT_UNITS_BUF], uint64_t bytes);
/* The same with a sign: "+1.50 GiB", "-12.0 MiB", "0 B". */
const char *vt_units_size_delta(char buf[VT_UNITS_BUF], int64_t bytes);
/* "850 ns", "12.5 us", "300.0 ms", "2.345 s". */
const char *vt_units_time(char buf[VT_UNITS_BUF], uint64_t ns);

#endif /* VT_UNITS_H */
