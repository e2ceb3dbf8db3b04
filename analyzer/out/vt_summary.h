/* SPDX-License-Identifier: MIT */
/* vt_summary.h - the summary `vramtrace run` prints at exit: at most 25 lines of 100
 * columns that answer the first questions (the peak and when, what for, which layers,
 * which lines of the program, an OOM, what to run next). */
#ifndef VT_SUMMARY_H
#define VT_SUMMARY_H

#include <stdio.h>

#include "vt_analyze.h"

#define VT_SUMMARY_LINES 25
#define VT_SUMMARY_COLS  100

/* Writes the summary of analysis a (traces analysed each on its own) to f, every line
 * led by "vramtrace: ". `shown[i]` is how trace i's path is printed; `headline`, when
 * not empty, comes first (several ranks: vt_ranks_show_headline). */
void vt_summary_print(FILE *f, const vt_analysis *a, char *const *shown, const char *headline);

#endif /* VT_SUMMARY_H */
