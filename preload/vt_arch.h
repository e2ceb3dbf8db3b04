// SPDX-License-Identifier: MIT
/* vt_arch.h - what the stack walker (vt_unwind.c) knows of the CPU it runs on: the DWARF
 * numbers of the registers its rules name, and how a return address read from the stack
 * becomes a code address. x86-64 and aarch64 (docs/design-recorder.md, "Architectures"). */
#ifndef VT_ARCH_H
#define VT_ARCH_H

#include <stdint.h>

#if defined(__x86_64__)
/* RBP, RSP, and the return-address column (the pushed RIP) */
enum { VT_DW_FP = 6, VT_DW_SP = 7, VT_DW_RA = 16 };
/* GCC's stack realignment (CFA = *(RBP + k)) and the CIE augmentation opcodes are x86's */
#define VT_ARCH_CFA_DEREF 1

static inline uintptr_t vt_arch_code(uintptr_t ra)
{
    return ra;
}

static inline uintptr_t vt_arch_backtrace_ip(uintptr_t ip)
{
    return ip;
}

#elif defined(__aarch64__)
/* x29 (frame pointer), sp, and x30 (the link register) as the return-address column */
enum { VT_DW_FP = 29, VT_DW_SP = 31, VT_DW_RA = 30 };
#define VT_ARCH_CFA_DEREF 0
/* DW_CFA_AARCH64_negate_ra_state: from here the saved x30 is signed (pointer
 * authentication, -mbranch-protection; Ubuntu 24.04 builds its arm64 packages so). */
#define VT_DW_CFA_NEGATE_RA_STATE 0x2d

/* A saved return address may carry a pointer-authentication code in its top bits. XPACLRI
 * (HINT #7: a no-op on a CPU without PAC) strips it; an address without one is unchanged,
 * so every return address goes through it, signed or not. */
static inline uintptr_t vt_arch_code(uintptr_t ra)
{
    register uintptr_t x30 __asm__("x30") = ra;
    __asm__("hint #7" : "+r"(x30));
    return x30;
}

/* libunwind 1.6's unw_backtrace gives each aarch64 return address minus 1 (unw_step's IP
 * does not; measured under QEMU, tests/bench/memo_check.sh). Instructions are 4 bytes, so
 * rounding up gives the return address back: the stack the walker would have stored. */
static inline uintptr_t vt_arch_backtrace_ip(uintptr_t ip)
{
    return (ip + 3) & ~(uintptr_t)3;
}

#else
#error "vramtrace's recorder walks stacks on x86-64 and aarch64 only"
#endif

#endif /* VT_ARCH_H */
