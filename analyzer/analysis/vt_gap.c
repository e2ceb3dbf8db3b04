/* SPDX-License-Identifier: MIT */
/* vt_gap.c - NVML's figure against the traced bytes and the pools' slack. */
#include "vt_gap.h"

#include <stdio.h>
#include <string.h>

/* "GPU-xxxxxxxx-...", the form NVML prints */
static void uuid_text(char buf[48], const uint8_t u[16])
{
    snprintf(buf, 48, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
}

const vt_nvml *vt_gap_nvml(const vt_replay *rp, int device, int *by_index)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    const vt_device *d = vt_replay_device(rp, device);
    *by_index = 0;
    if (d && vt_device_has_uuid(d)) {
        char u[48];
        uuid_text(u, d->uuid);
        for (int i = 0; i < VT_NDEV; i++)
            if (res->nvml[i].seen && strcmp(res->nvml[i].uuid, u) == 0) return &res->nvml[i];
    }
    if (device >= 0 && device + 1 < VT_NDEV && res->nvml[device + 1].seen && !res->nvml[device + 1].uuid[0]) {
        *by_index = 1;
        return &res->nvml[device + 1];
    }
    return NULL;
}

void vt_gap_of(const vt_replay *rp, int device, vt_gap *g)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    memset(g, 0, sizeof *g);
    const vt_nvml *nv = vt_gap_nvml(rp, device, &g->by_index);
    if (device >= 0 && device + 1 < VT_NDEV && res->pool[device + 1].seen) {
        const vt_pool_dev *p = &res->pool[device + 1];
        g->has_pool = 1;
        /* at NVML's maximum when there is one, else the most the pools held idle */
        int at_nvml = nv && nv->has_proc && device < VT_NVML_SNAP;
        g->pool_slack = at_nvml ? nv->slack_snap[device] : p->slack_max;
        g->pool_reserved = at_nvml ? nv->reserved_snap[device] : p->reserved_at_slack_max;
    }
    if (!nv || !nv->has_proc) return;
    g->known = 1;
    g->figure = nv->proc_max;
    g->time = nv->proc_max_time;
    g->traced = device >= 0 && device < VT_NVML_SNAP ? nv->proc_snap[device] : 0;
    uint64_t explained = g->traced + g->pool_slack;
    g->unexplained = g->figure > explained ? g->figure - explained : 0;
}
