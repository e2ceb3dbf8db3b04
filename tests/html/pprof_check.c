// SPDX-License-Identifier: MIT
/* pprof_check.c - decodes a profile written by `vramtrace export --format pprof` with
 * the protobuf-c code generated from analyzer/out/profile.proto and checks it the way a
 * pprof reader would: gzip, string_table[0] == "", every id and string index points
 * at something, every sample has one value per sample type, and the values of the
 * sample types named on the command line sum to the figures given.
 *
 *   pprof_check FILE [TYPE=SUM]...     e.g. pprof_check p.pb.gz peak_space=3243357216
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "vt_profile.pb-c.h"

static int fails;

static void fail(const char *fmt, const char *a, uint64_t b)
{
    printf("FAIL: ");
    printf(fmt, a, b);
    printf("\n");
    fails++;
}

static uint8_t *gunzip(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *in = malloc(cap);
    for (size_t k; in && (k = fread(in + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) in = realloc(in, cap *= 2);
    }
    fclose(f);
    if (!in || n < 2 || in[0] != 0x1f || in[1] != 0x8b) {
        printf("FAIL: %s is not gzip\n", path);
        free(in);
        return NULL;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return NULL;
    size_t ocap = n * 4 + 1024, on = 0;
    uint8_t *out = malloc(ocap);
    z.next_in = in;
    z.avail_in = (uInt)n;
    int rc;
    do {
        if (on == ocap) out = realloc(out, ocap *= 2);
        z.next_out = out + on;
        z.avail_out = (uInt)(ocap - on);
        rc = inflate(&z, Z_NO_FLUSH);
        on = ocap - z.avail_out;
    } while (rc == Z_OK);
    inflateEnd(&z);
    free(in);
    if (rc != Z_STREAM_END) {
        printf("FAIL: %s: bad gzip stream\n", path);
        free(out);
        return NULL;
    }
    *len = on;
    return out;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pprof_check FILE [TYPE=SUM]... [mapped_locations>=N] [build_ids=N]\n");
        return 2;
    }
    size_t len;
    uint8_t *buf = gunzip(argv[1], &len);
    if (!buf) return 1;
    Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
    if (!p) {
        printf("FAIL: protobuf-c cannot unpack the profile\n");
        return 1;
    }
    size_t ns = p->n_string_table;
#define STR_OK(i) ((i) >= 0 && (uint64_t)(i) < ns)
    if (!ns || strcmp(p->string_table[0], "")) fail("string_table[0] is not \"\"%s%" PRIu64, "", 0);
    for (size_t i = 0; i < p->n_sample_type; i++)
        if (!STR_OK(p->sample_type[i]->type) || !STR_OK(p->sample_type[i]->unit))
            fail("sample type %s%" PRIu64 " names no string", "", i);
    if (!STR_OK(p->default_sample_type)) fail("default_sample_type%s %" PRIu64 " names no string", "", 0);
    for (size_t i = 0; i < p->n_function; i++) {
        const Perftools__Profiles__Function *f = p->function[i];
        if (f->id == 0 || !STR_OK(f->name) || !STR_OK(f->filename)) fail("function %s%" PRIu64 " is bad", "", i);
    }
    /* Mappings: the modules, with a path and a build-id; native locations point into one,
     * at an address inside it. */
    size_t with_id = 0, mapped = 0;
    for (size_t i = 0; i < p->n_mapping; i++) {
        const Perftools__Profiles__Mapping *m = p->mapping[i];
        if (m->id != i + 1 || !STR_OK(m->filename) || !STR_OK(m->build_id) || m->memory_limit < m->memory_start)
            fail("mapping %s%" PRIu64 " is bad", "", i);
        else if (p->string_table[m->build_id][0]) with_id++;
    }
    for (size_t i = 0; i < p->n_location; i++) {
        const Perftools__Profiles__Location *l = p->location[i];
        if (l->mapping_id) {
            const Perftools__Profiles__Mapping *m = l->mapping_id <= p->n_mapping ? p->mapping[l->mapping_id - 1] : NULL;
            if (!m || l->address < m->memory_start || l->address >= m->memory_limit)
                fail("location %s%" PRIu64 " is outside its mapping", "", l->id);
            mapped++;
        }
    }
    if (!p->n_mapping || !with_id) fail("no mappings with build-ids%s%" PRIu64, "", 0);
    for (size_t i = 0; i < p->n_location; i++) {
        const Perftools__Profiles__Location *l = p->location[i];
        if (l->id == 0 || !l->n_line) fail("location %s%" PRIu64 " has no id or no line", "", i);
        for (size_t k = 0; k < l->n_line; k++) {
            int found = 0;
            for (size_t j = 0; j < p->n_function && !found; j++) found = p->function[j]->id == l->line[k]->function_id;
            if (!found) fail("location %s%" PRIu64 " names a missing function", "", l->id);
        }
    }
    uint64_t *sums = calloc(p->n_sample_type + 1, sizeof *sums);
    for (size_t i = 0; i < p->n_sample; i++) {
        const Perftools__Profiles__Sample *s = p->sample[i];
        if (s->n_value != p->n_sample_type) fail("sample %s%" PRIu64 " has the wrong number of values", "", i);
        if (!s->n_location_id) fail("sample %s%" PRIu64 " has no location", "", i);
        for (size_t k = 0; k < s->n_location_id; k++) {
            int found = 0;
            for (size_t j = 0; j < p->n_location && !found; j++) found = p->location[j]->id == s->location_id[k];
            if (!found) fail("sample %s%" PRIu64 " names a missing location", "", i);
        }
        for (size_t k = 0; k < s->n_label; k++)
            if (!STR_OK(s->label[k]->key) || !STR_OK(s->label[k]->str))
                fail("sample %s%" PRIu64 " has a bad label", "", i);
        for (size_t k = 0; k < s->n_value && k < p->n_sample_type; k++) {
            if (s->value[k] < 0) fail("sample %s%" PRIu64 " has a negative value", "", i);
            sums[k] += (uint64_t)s->value[k];
        }
    }
    printf("profile: %zu samples, %zu locations (%zu in %zu mappings, %zu with build-ids), %zu functions, "
           "%zu strings, default %s\n", p->n_sample, p->n_location, mapped, p->n_mapping, with_id, p->n_function, ns, STR_OK(p->default_sample_type) ? p->string_table[p->default_sample_type] : "?");
    for (size_t k = 0; k < p->n_sample_type; k++)
        if (STR_OK(p->sample_type[k]->type))
            printf("  %s: %" PRIu64 " %s\n", p->string_table[p->sample_type[k]->type], sums[k],
                   STR_OK(p->sample_type[k]->unit) ? p->string_table[p->sample_type[k]->unit] : "?");
    for (int a = 2; a < argc; a++) {
        char name[128];
        uint64_t want;
        if (sscanf(argv[a], "mapped_locations>=%" SCNu64, &want) == 1) { /* native frames in mappings */
            if (p->n_location && mapped < want) fail("%s: only %" PRIu64 " locations are in a mapping", argv[a], mapped);
            continue;
        }
        if (sscanf(argv[a], "build_ids=%" SCNu64, &want) == 1) { /* every module the trace has an id of */
            if (with_id != want) fail("%s: %" PRIu64 " mappings have build-ids", argv[a], with_id);
            continue;
        }
        if (sscanf(argv[a], "%127[^=]=%" SCNu64, name, &want) != 2) {
            fprintf(stderr, "bad argument %s\n", argv[a]);
            return 2;
        }
        int found = 0;
        for (size_t k = 0; k < p->n_sample_type; k++) {
            if (!STR_OK(p->sample_type[k]->type) || strcmp(p->string_table[p->sample_type[k]->type], name)) continue;
            found = 1;
            if (sums[k] != want) fail("%s sums to %" PRIu64 ", not the expected figure", name, sums[k]);
            else printf("ok: %s sums to %" PRIu64 "\n", name, want);
        }
        if (!found) fail("no sample type %s%" PRIu64, name, 0);
    }
    free(sums);
    perftools__profiles__profile__free_unpacked(p, NULL);
    free(buf);
    return fails ? 1 : 0;
}
