/* SPDX-License-Identifier: MIT */
/* vt_trace_symbols.c - appends SYMBOL records to a trace: its native addresses resolved with
 * this host's binaries, so that the trace reads the same anywhere. */
#include "vt_trace_symbols.h"

#include "vt_codec.h"
#include "vt_format.h"
#include "vt_reader.h"
#include "vt_sym.h"
#include "vt_table.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

/* Chunks of about 1 MiB of raw records, as the recorder cuts them. */
#define SW_CHUNK (1u << 20)

typedef struct {
    int fd;
    uint8_t *raw;
    size_t len;
    uint32_t nrec;
    vt_codec codec;
    ZSTD_CCtx *cc;
    uint64_t bytes;
} sw_out;

static int sw_flush(sw_out *o)
{
    if (!o->nrec) return 0;
    size_t bound = ZSTD_compressBound(o->len);
    uint8_t *z = malloc(sizeof(vt_chunk_header) + bound);
    if (!z) return -1;
    size_t zn = ZSTD_compress2(o->cc, z + sizeof(vt_chunk_header), bound, o->raw, o->len);
    if (ZSTD_isError(zn)) { free(z); return -1; }
    vt_chunk_header h = { VT_CHUNK_MAGIC, (uint32_t)zn, (uint32_t)o->len, o->nrec, 0 };
    memcpy(z, &h, sizeof h);
    size_t n = sizeof h + zn, off = 0;
    while (off < n) {
        ssize_t w = write(o->fd, z + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { free(z); return -1; }
        off += (size_t)w;
    }
    free(z);
    o->bytes += n;
    o->len = 0;
    o->nrec = 0;
    vt_codec_reset(&o->codec, 0);
    return 0;
}

static int sw_emit(sw_out *o, const vt_rec *r)
{
    size_t bound = vt_codec_bound(r);
    if (o->len + bound > SW_CHUNK && sw_flush(o)) return -1;
    o->len += vt_codec_encode(&o->codec, r, o->raw + o->len);
    o->nrec++;
    return 0;
}

/* Byte lengths of the strings a SYMBOL record carries: file names and demangled C++
 * names can be long, but a record must fit a chunk. */
static uint32_t cap_len(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return (uint32_t)(n < 4096 ? n : 4096);
}

int vt_trace_symbols_write(const char *path, vt_trace_symbols_stats *st, char *msg, size_t msglen)
{
    memset(st, 0, sizeof *st);
    vt_reader rd;
    if (vt_reader_open(&rd, path, msg, msglen) != VT_READ_OK) return -1;
    vt_sym *sym = vt_sym_new();
    vt_idmap ips = { 0 }, done = { 0 }; /* native addresses of the stacks; those with SYMBOL records */
        uint64_t *list = NULL;
    size_t nlist = 0, cap = 0;
    int rc = -1, trailer = 0;
    if (!sym) { snprintf(msg, msglen, "out of memory"); goto out; }
    vt_rec r;
    while (vt_reader_next(&rd, &r)) {
        if (r.type == VT_REC_MODULE) {
            /* the record's path points into the chunk and is not NUL-terminated */
            char *mpath = strndup(r.str_len ? r.str : "", r.str_len);
            if (!mpath || vt_sym_add_module(sym, mpath, r.addr, r.size, r.bytes, r.bytes_len)) {
                free(mpath);
                snprintf(msg, msglen, "out of memory");
                goto out;
            }
            free(mpath);
        } else if (r.type == VT_REC_STACK && r.kind == VT_FRAME_NATIVE && r.addr) {
            if (vt_idmap_get(&ips, r.addr)) continue;
            if (nlist == cap) {
                cap = cap ? 2 * cap : 4096;
                uint64_t *t = realloc(list, cap * sizeof *t);
                if (!t) { snprintf(msg, msglen, "out of memory"); goto out; }
                list = t;
            }
            if (vt_idmap_put(&ips, r.addr, (uint32_t)nlist)) { snprintf(msg, msglen, "out of memory"); goto out; }
            list[nlist++] = r.addr;
        } else if (r.type == VT_REC_SYMBOL && r.aux0 == 0) {
            if (vt_idmap_put(&done, r.addr, 1)) { snprintf(msg, msglen, "out of memory"); goto out; }
        } else if (r.type == VT_REC_TRAILER) {
            trailer = 1;
        }
    }
    if (rd.stopped || !trailer) {
        snprintf(msg, msglen, "%s: %s; only a trace that ended cleanly can be symbolized (it is left as it is)",
                 path, rd.stopped ? rd.err : "no trailer (the program did not exit normally)");
        goto out;
    }
    st->addresses = nlist;

    sw_out o = { .fd = -1 };
    o.raw = malloc(SW_CHUNK + 64 * 1024);
    o.cc = ZSTD_createCCtx();
    off_t size0 = -1;
    if (!o.raw || !o.cc) { snprintf(msg, msglen, "out of memory"); goto out_o; }
    ZSTD_CCtx_setParameter(o.cc, ZSTD_c_checksumFlag, 1);
    vt_codec_reset(&o.codec, 0);
    o.fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (o.fd < 0) { snprintf(msg, msglen, "%s: cannot write: %s", path, strerror(errno)); goto out_o; }
    size0 = lseek(o.fd, 0, SEEK_END);
    vt_frame vf[64];
    for (size_t i = 0; i < nlist; i++) {
        uint64_t ip = list[i];
        if (vt_idmap_get(&done, ip)) { st->already++; continue; }
        int k = vt_sym_resolve_inline(sym, ip, vf, 64);
        if (k > 64) k = 64;
        if (k < 1 || !vf[0].function) { st->unresolved++; continue; }
        for (int j = 0; j < k; j++) {
            vt_rec y = { .type = VT_REC_SYMBOL, .device = -1, .addr = ip, .aux0 = (uint64_t)j, .aux1 = (uint64_t)k,
                         .str = vf[j].function, .str_len = cap_len(vf[j].function),
                         .bytes = (const uint8_t *)vf[j].file, .bytes_len = cap_len(vf[j].file),
                         .line = vf[j].line };
            if (sw_emit(&o, &y)) goto write_err;
            st->records++;
        }
        st->resolved++;
    }
    if (sw_flush(&o)) goto write_err;
    if (fsync(o.fd) && errno != EINVAL) goto write_err;
    st->bytes = o.bytes;
    const char *const *w;
    size_t nw = vt_sym_warnings(sym, &w);
    st->nwarn = nw;
    for (size_t i = 0; i < nw && i < 4; i++) snprintf(st->warn[i], sizeof st->warn[i], "%s", w[i]);
    rc = 0;
    goto out_o;
write_err:
    snprintf(msg, msglen, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
    /* What was recorded is never lost: the file goes back to what it was. */
    if (size0 >= 0 && ftruncate(o.fd, size0)) { /* the reader stops at the cut chunk */ }
out_o:
    if (o.fd >= 0) close(o.fd);
    ZSTD_freeCCtx(o.cc);
    free(o.raw);
out:
    free(list);
    vt_idmap_free(&ips);
    vt_idmap_free(&done);
    if (sym) vt_sym_free(sym);
    vt_reader_close(&rd);
    return rc;
}
