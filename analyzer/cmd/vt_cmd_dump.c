// SPDX-License-Identifier: MIT
/* vt_cmd_dump.c - `vramtrace dump TRACE`: the header, then every record on a line of
 * its own, in a stable text form (tests diff it; people grep it). */
#include "vt_cmds.h"

#include "vt_args.h"
#include "vt_format.h"
#include "vt_names.h"
#include "vt_reader.h"
#include "vt_show.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void str_field(const char *name, const char *s, uint32_t n)
{
    printf(" %s=\"", name);
    vt_show_escaped(stdout, s ? s : "", s ? n : 0);
    putchar('"');
}

static void hex_field(const char *name, const uint8_t *b, uint32_t n)
{
    printf(" %s=", name);
    if (!n) putchar('-');
    for (uint32_t i = 0; i < n; i++) printf("%02x", b[i]);
}

static const char *lookup_how(uint64_t how)
{
    switch (how) {
    case VT_LOOKUP_DLSYM: return "dlsym";
    case VT_LOOKUP_GETPROC: return "cuGetProcAddress";
    case VT_LOOKUP_GETPROC_V2: return "cuGetProcAddress_v2";
    case VT_LOOKUP_RUNTIME: return "cudaGetDriverEntryPoint";
    default: return "other";
    }
}

static void dump_rec(const vt_rec *r)
{
    const char *tn = vt_rec_type_name(r->type);
    switch (r->type) {
    case VT_REC_ALLOC:
        printf("alloc t=%" PRIu64 " tid=%u dev=%d kind=%s addr=0x%" PRIx64 " size=%" PRIu64
               " stream=0x%" PRIx64 " stack=%u flags=0x%x\n", r->time_ns, r->tid, r->device,
               vt_kind_name(r->kind), r->addr, r->size, r->stream, r->stack_id, r->flags);
        break;
    case VT_REC_FREE:
        printf("free t=%" PRIu64 " tid=%u dev=%d kind=%s addr=0x%" PRIx64 " stream=0x%" PRIx64
               " stack=%u flags=0x%x\n", r->time_ns, r->tid, r->device, vt_kind_name(r->kind), r->addr,
               r->stream, r->stack_id, r->flags);
        break;
    case VT_REC_OOM:
        printf("oom t=%" PRIu64 " tid=%u dev=%d kind=%s size=%" PRIu64 " stream=0x%" PRIx64
               " stack=%u free=%" PRIu64 " total=%" PRIu64 " flags=0x%x\n", r->time_ns, r->tid, r->device,
               vt_kind_name(r->kind), r->size, r->stream, r->stack_id, r->aux0, r->aux1, r->flags);
        break;
    case VT_REC_VMM:
        printf("vmm t=%" PRIu64 " tid=%u dev=%d op=%s", r->time_ns, r->tid, r->device, vt_vmm_op_name(r->kind));
        switch (r->kind) {
        case VT_VMM_MAP:
            printf(" va=0x%" PRIx64 " size=%" PRIu64 " offset=%" PRIu64 " handle=0x%" PRIx64, r->addr, r->size,
                   r->aux0, r->aux1);
            break;
        case VT_VMM_RETAIN:
            printf(" va=0x%" PRIx64 " handle=0x%" PRIx64, r->addr, r->aux1);
            break;
        case VT_VMM_RESERVE:
            printf(" va=0x%" PRIx64 " size=%" PRIu64 " align=%" PRIu64 " hint=0x%" PRIx64, r->addr, r->size,
                   r->aux0, r->aux1);
            break;
        default:
            printf(" va=0x%" PRIx64 " size=%" PRIu64 " aux0=%" PRIu64 " aux1=0x%" PRIx64, r->addr, r->size,
                   r->aux0, r->aux1);
            break;
        }
        printf(" stack=%u\n", r->stack_id);
        break;
    case VT_REC_POOL_TRIM:
        printf("pool_trim t=%" PRIu64 " tid=%u dev=%d pool=0x%" PRIx64 " keep=%" PRIu64 "\n", r->time_ns,
               r->tid, r->device, r->addr, r->size);
        break;
    case VT_REC_STACK:
        printf("stack id=%u parent=%u kind=%s value=0x%" PRIx64 "\n", r->id, r->parent,
               r->kind == VT_FRAME_NATIVE ? "native" : r->kind == VT_FRAME_PYTHON ? "python"
               : r->kind == VT_FRAME_SCOPE ? "scope" : "other", r->addr);
        break;
    case VT_REC_MODULE:
        printf("module bias=0x%" PRIx64 " size=0x%" PRIx64, r->addr, r->size);
        hex_field("build_id", r->bytes, r->bytes_len);
        str_field("path", r->str, r->str_len);
        putchar('\n');
        break;
    case VT_REC_DEVICE: {
        printf("device dev=%d memory=%" PRIu64 " cc=%" PRIu64 ".%" PRIu64, r->device, r->size, r->aux0, r->aux1);
        hex_field("uuid", r->bytes, r->bytes_len);
        str_field("name", r->str, r->str_len);
        if (r->id) printf(" sms=%" PRIu32 " threads_per_sm=%" PRIu32, r->id, r->line);
        putchar('\n');
        break;
    }
    case VT_REC_DRIVER:
        printf("driver t=%" PRIu64 " version=%" PRIu64 "\n", r->time_ns, r->aux0);
        break;
    case VT_REC_NVML:
        printf("nvml t=%" PRIu64 " index=%d process_used=", r->time_ns, r->device);
        if (r->aux0) printf("%" PRIu64, r->aux0 - 1);
        else printf("unknown");
        printf(" device_used=%" PRIu64 " device_total=%" PRIu64 "\n", r->size, r->aux1);
        break;
    case VT_REC_NVML_DEVICE:
        printf("nvml_device index=%d", r->device);
        str_field("uuid", r->str, r->str_len);
        putchar('\n');
        break;
    case VT_REC_THREAD:
        printf("thread tid=%u", r->tid);
        str_field("name", r->str, r->str_len);
        putchar('\n');
        break;
    case VT_REC_STRING:
        printf("string id=%u", r->id);
        str_field("text", r->str, r->str_len);
        putchar('\n');
        break;
    case VT_REC_LOOKUP:
        printf("lookup t=%" PRIu64 " tid=%u how=%s flags=0x%x ptr=0x%" PRIx64 " aux1=%" PRIu64, r->time_ns,
               r->tid, lookup_how(r->aux0), r->flags, r->addr, r->aux1);
        str_field("name", r->str, r->str_len);
        putchar('\n');
        break;
    case VT_REC_LOST:
        printf("lost t=%" PRIu64 " events=%" PRIu64 "\n", r->time_ns, r->size);
        break;
    case VT_REC_POOL:
        printf("pool t=%" PRIu64 " device=%d pool=0x%" PRIx64 " reserved=%" PRIu64 " used=%" PRIu64 "\n",
               r->time_ns, r->device, r->addr, r->aux0, r->aux1);
        break;
    case VT_REC_PAUSE:
        printf("pause t=%" PRIu64 " tid=%u paused=%" PRIu64 "\n", r->time_ns, r->tid, r->aux0);
        break;
    case VT_REC_SYMBOL:
        printf("symbol ip=0x%" PRIx64 " index=%" PRIu64 "/%" PRIu64, r->addr, r->aux0, r->aux1);
        str_field("function", r->str, r->str_len);
        str_field("file", (const char *)r->bytes, r->bytes_len);
        printf(" line=%u\n", r->line);
        break;
    case VT_REC_SOURCE:
        printf("source");
        str_field("file", r->str, r->str_len);
        printf(" line=%u", r->line);
        str_field("layer", (const char *)r->bytes, r->bytes_len);
        putchar('\n');
        break;
    case VT_REC_MARK:
        printf("mark t=%" PRIu64 " tid=%u", r->time_ns, r->tid);
        str_field("name", r->str, r->str_len);
        putchar('\n');
        break;
    case VT_REC_ANNOTATE:
        printf("annotate t=%" PRIu64 " tid=%u device=%d addr=0x%" PRIx64 " size=%" PRIu64 " role=%s layer=%" PRIu64
               " batch=%" PRIu64 "\n", r->time_ns, r->tid, r->device, r->addr, r->size, vt_annot_role_name(r->kind),
               r->aux0, r->aux1);
        break;
    case VT_REC_TRAILER:
        printf("trailer t=%" PRIu64 " flags=0x%x", r->time_ns, r->flags);
        for (unsigned i = 0; r->counts && i < VT_REC_TYPE_MAX; i++)
            if (r->counts[i]) printf(" %s=%" PRIu64, vt_rec_type_name(i), r->counts[i]);
        putchar('\n');
        break;
    case VT_REC_PYFRAME:
        printf("pyframe id=%u file=%" PRIu64 " function=%" PRIu64 " line=%u\n", r->id, r->aux0, r->aux1, r->line);
        break;
    default:
        printf("%s (unknown record type, skipped)\n", tn);
        break;
    }
}

static const char usage[] =
    "usage: vramtrace dump TRACE\n"
    "  Prints the trace header and every record, one line each.\n";

int vt_cmd_dump(int argc, char **argv)
{
    enum { O_HELP = 1 };
    static const vt_opt opts[] = { { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 } };
    vt_args a;
    vt_args_init(&a, "dump", argc, argv);
    const char *path = NULL, *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        if (id == VT_ARGS_ERROR) return 2;
        if (id == O_HELP) { fputs(usage, stdout); return 0; }
        if (path) {
            vt_args_error(&a, "one TRACE only");
            return 2;
        }
        path = v;
    }
    if (!path) {
        vt_args_error(&a, "missing TRACE operand");
        return 2;
    }
    vt_reader rd;
    char msg[512];
    if (vt_reader_open(&rd, path, msg, sizeof msg) != VT_READ_OK) {
        fprintf(stderr, "vramtrace: %s\n", msg);
        return 2;
    }
    const vt_file_header *h = &rd.hdr;
    printf("header version=%u.%u header_size=%u pid=%u ppid=%u rank=%d", h->version_major, h->version_minor,
           h->header_size, h->pid, h->ppid, h->rank);
    if (h->flags & VT_HDR_LOCAL_RANK) printf(" local_rank=%d", h->local_rank);
    printf(" stack_depth=%u flags=0x%x", h->stack_depth, h->flags);
    if (h->arch) printf(" arch=%s", vt_arch_name(h->arch)); /* 0: written before the field */
    putchar('\n');
    printf("header start_realtime_ns=%" PRIu64 " start_monotonic_ns=%" PRIu64 "\n", h->start_realtime_ns,
           h->start_monotonic_ns);
    printf("header");
    str_field("host", rd.host, (uint32_t)strlen(rd.host));
    str_field("exe", rd.exe, (uint32_t)strlen(rd.exe));
    printf(" argv=");
    vt_show_command(stdout, &rd);
    putchar('\n');

    vt_rec rec;
    uint64_t chunks = 0;
    while (vt_reader_next(&rd, &rec)) {
        if (rd.nchunks != chunks) {
            chunks = rd.nchunks;
            printf("chunk offset=%" PRIu64 " base_time=%" PRIu64 "\n", rd.chunk_offset, rd.chunk_base_time);
        }
        dump_rec(&rec);
    }
    if (rd.stopped) {
        printf("end stopped offset=%" PRIu64 " records=%" PRIu64 " chunks=%" PRIu64 "\n", rd.err_offset,
               rd.nrecords, rd.nchunks);
        fprintf(stderr, "vramtrace: %s: trace ends early at byte %" PRIu64 ": %s; reporting what was read\n",
                path, rd.err_offset, rd.err);
    } else {
        printf("end offset=%" PRIu64 " records=%" PRIu64 " chunks=%" PRIu64 "\n", rd.offset, rd.nrecords,
               rd.nchunks);
    }
    vt_reader_close(&rd);
    return 0;
}
