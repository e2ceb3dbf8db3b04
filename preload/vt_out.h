/* SPDX-License-Identifier: MIT */
/* vt_out.h - the trace file and its descriptor: created without following or
 * truncating anything, kept at a high number, and written only while it is still ours.
 * Used by vt_init.c (create), vt_writer.c (write, close) and vt_hook_fd.c (the program's
 * close/dup2/dup3/close_range/closefrom that would hit it). */
#ifndef VT_OUT_H
#define VT_OUT_H

#include <stddef.h>
#include <stdint.h>

/* Creates the trace at `want` (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 or 0644 when
 * readable): when the name exists (a planted file or symlink, an earlier exec image of
 * this pid), tries want.1 ... want.99 and never opens the existing one. The name taken
 * goes to path (size n). Returns the descriptor (moved to a high number), or -1 with
 * errno set. *renamed is 1 when another name was taken; *quiet is 1 when what was there
 * is an earlier trace of this same pid (an exec chain: nothing to warn about). */
int  vt_out_create(const char *want, int readable, char *path, size_t n, int *renamed, int *quiet);

/* Writes all n bytes to the trace, after checking that the descriptor still is the
 * file created (same device and inode); when the program closed or replaced it behind
 * our back, the file is reopened by path (O_APPEND) and checked again. Returns 0, or -1
 * with errno: ESTALE the file is gone or replaced, EMFILE it could not be reopened for
 * want of a descriptor (the program holds every number: try again later); in both
 * cases nothing was written anywhere. */
int  vt_out_write(const void *p, size_t n);

/* Closes the trace's descriptor (when it is still ours). Returns close()'s result. */
int  vt_out_close(void);

/* The descriptor the trace holds now, -1 when none: the fd hooks' fast test. */
int  vt_out_fd(void);

/* For the fd hooks (vt_hook_fd.c). vt_out_lock_range: when the trace's descriptor is
 * in [lo, hi], returns it with the write lock held (no write can go out until
 * vt_out_unlock), else -1 with nothing held. vt_out_move_locked: moves the trace to
 * another high number, so that the caller may let the program's call overwrite the old
 * one; returns the new descriptor, or -1 (the trace then stops at the next write). */
int  vt_out_lock_range(int lo, int hi);
int  vt_out_move_locked(void);
void vt_out_unlock(void);

#endif /* VT_OUT_H */
