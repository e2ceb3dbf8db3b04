// SPDX-License-Identifier: MIT
/* vt_memo.h - each thread's memo of native stack walks (vt_memo.c). */
#ifndef VT_MEMO_H
#define VT_MEMO_H

#include <stdint.h>

typedef struct vt_memo vt_memo;
/* A native walk as the memo keeps it: the frames kept (the recorder's own skipped, cut
 * to the depth), innermost first, with the stack pointer of each frame's function. */
typedef struct {
    uint64_t         hash;  /* of ips[0..n) */
    uint32_t         id;    /* their stack id when recorded alone; 0 = not looked up */
    uint32_t         n;
    void *const     *ips;
    const uintptr_t *sps;
} vt_walk;
/* This thread's memo of walks (NULL if none); a lookup at a walk's start (the walk it
 * finds, or NULL); the log a walk after a miss fills (cap pairs; the address that
 * stands for the starting RBP; for each frame, the pairs logged when it was known); how
 * much it logged; the walk to be kept only up to its frame f, exclusive (0: it cannot
 * be); keeping it with what it produced; the stack id of a walk the memo returned. */
int      vt_memo_init(void);
vt_memo *vt_memo_get(int max);
const vt_walk *vt_memo_find(vt_memo *m, uintptr_t rsp0, uintptr_t rbp0);
uint64_t *vt_memo_log(vt_memo *m, uint32_t *cap, uintptr_t *rbp0_word, uint32_t **frame_at);
void     vt_memo_walked(vt_memo *m, uint32_t nlog);
int      vt_memo_cut(vt_memo *m, uint32_t f);
void     vt_memo_keep(vt_memo *m, const vt_walk *w);
void     vt_memo_set_id(const vt_walk *w, uint32_t id);
/* The id of a stack with Python frames or scopes made on the kept walk w (one the memo
 * returned or kept), by the key of what was added to it (0: not known), and keeping one:
 * the last few made on each walk. */
uint32_t vt_memo_walk_stack_find(const vt_walk *w, uint64_t key);
void     vt_memo_walk_stack_keep(const vt_walk *w, uint64_t key, uint32_t id);
/* The id of a stack with Python frames or scopes by its key (0: not known to this
 * thread), and keeping one: a per-thread copy of the process-wide table's entries. */
uint32_t vt_memo_stack_find(vt_memo *m, uint64_t key);
void     vt_memo_stack_keep(vt_memo *m, uint64_t key, uint32_t id);

#endif /* VT_MEMO_H */
