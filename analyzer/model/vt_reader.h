// SPDX-License-Identifier: MIT
/* vt_reader.h - streams the records of one trace file: header, then chunk after chunk,
 * each decompressed into one reused buffer and decoded record by record.
 *
 * A file that is cut short or damaged is read up to the last good record; the reader
 * then says where and why it stopped (vt_reader.stopped, .err, .err_offset) and the
 * caller reports what was read. */
#ifndef VT_READER_H
#define VT_READER_H

#include <stdint.h>
#include <stddef.h>

#include "vt_codec.h"
#include "vt_format.h"

struct vt_progress;

/* vt_reader_open results */
enum {
    VT_READ_OK = 0,
    VT_READ_IO = 1,        /* cannot open or read the file (errno message in err) */
    VT_READ_NOT_TRACE = 2, /* bad magic */
    VT_READ_VERSION = 3,   /* another major version */
    VT_READ_BAD_HEADER = 4,/* magic is right but the header is cut short or inconsistent */
    VT_READ_NOMEM = 5
};

typedef struct {
    const char *path;
    int fd;
    uint64_t file_size;
    vt_file_header hdr;       /* fields beyond those of 1.0 are zero */
    char *host;               /* NUL-terminated copies of the header blobs */
    char *exe;
    char *cmdline;            /* argv joined by NUL bytes */
    uint32_t cmdline_len;

    /* the chunk being decoded */
    const uint8_t *pos, *end;
    uint64_t chunk_offset;    /* file offset of its chunk header */
    uint32_t chunk_records;   /* records decoded from it so far */
    uint64_t chunk_base_time; /* its base_time_ns */
    vt_codec codec;

    uint64_t offset;          /* file bytes consumed */
    uint64_t nchunks;
    uint64_t nrecords;
    int stopped;              /* 1: stopped early at err_offset, err says why */
    int eof;                  /* 1: reached the end (cleanly or not) */
    char err[256];
    uint64_t err_offset;

    struct vt_progress *progress;

    void *impl;               /* buffers, zstd contexts, decompression threads */
} vt_reader;

/* Opens path and reads its header. On error returns VT_READ_* and puts a one-line
 * message (without the "vramtrace: " prefix) in msg; r needs no close then. */
int vt_reader_open(vt_reader *r, const char *path, char *msg, size_t msglen);

/* Decompresses the next chunks on other threads (two of them from two cores up)
 * while this one decodes. Call once after open, before the first vt_reader_next. */
void vt_reader_start_async(vt_reader *r);

/* Reads the next record into *rec. Returns 1, or 0 at the end of the records (check
 * r->stopped). Pointers in rec stay valid until the next call. */
int vt_reader_next(vt_reader *r, vt_rec *rec);

/* Decompresses and decodes the next chunks on other threads (two of them from two
 * cores up) into vt_ev events, while this thread replays: for readers of every record
 * that take ALLOC and FREE records through vt_reader_events. vt_reader_next then
 * returns the other records in full, but the ALLOC and FREE records it is left with
 * only with the fields of vt_ev. Call once after open, instead of
 * vt_reader_start_async. */
void vt_reader_start_events(vt_reader *r);

/* vt_reader_start_events, and the events keep their stream (vt_rec.stream): of the
 * records vt_reader_next returns, and of each run vt_reader_events returns
 * (vt_reader_event_streams). For `fit`, whose models keep a pool per stream; the
 * others go without (8 more bytes an event, to decode and to move). */
void vt_reader_start_events_streams(vt_reader *r);

/* The fast path for long traces: points *ev at the ALLOC and FREE records that come
 * next in the current chunk, decoded, and returns how many (valid until the next call
 * of this or vt_reader_next). Returns 0 before any other record, at the end of a chunk
 * and before a record the codec must judge: vt_reader_next then reads the next record.
 * The two may be mixed freely; the records come in file order either way. */
size_t vt_reader_events(vt_reader *r, const vt_ev **ev);

/* After vt_reader_start_events_streams: the streams of the run vt_reader_events
 * returned last, one per event (valid as long as the run). NULL otherwise. */
const uint64_t *vt_reader_event_streams(const vt_reader *r);

void vt_reader_close(vt_reader *r);

#endif /* VT_READER_H */
