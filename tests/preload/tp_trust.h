/* SPDX-License-Identifier: MIT */
/* tp_trust.h - tp_linked's sections for issue 17 (tp_trust.c). */
#ifndef TP_TRUST_H
#define TP_TRUST_H

/* Runs the section argv[1] when it is one of tp_trust.c's: returns 1 with *rc set to
 * the status to go on with (0: check the log at the end), 0 when the name is not one. */
int tp_trust_run(int argc, char **argv, int *rc);

/* Sections whose calls are not logged one by one: the program ends with their status,
 * without comparing its log with the fake driver's counters. */
#define TP_TRUST_UNLOGGED(mode) (!strcmp((mode), "stress") || !strcmp((mode), "stacks"))

#endif /* TP_TRUST_H */
