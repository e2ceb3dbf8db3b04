// SPDX-License-Identifier: MIT
/* vt_dlsym.h - glibc's own dlsym, reached past our dlsym export (vt_dlsym.c). */
#ifndef VT_DLSYM_H
#define VT_DLSYM_H

typedef void *(*vt_dlsym_fn)(void *, const char *);

/* glibc's dlsym itself (NULL if not found), for the emulations of vt_hook_dl.c. */
vt_dlsym_fn vt_real_dlsym_get(void);

/* The real dlsym. Never call dlsym by name inside the recorder: that is our own export. */
void *vt_real_dlsym(void *handle, const char *name);

#endif /* VT_DLSYM_H */
