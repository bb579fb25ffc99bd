/*
 * posix_cfi.c - the call frame information of a code address (platform.h: plat_native_cfa), from
 * its library's .eh_frame, read by elfutils' libdw (libdwfl for this process's libraries).
 *
 * A function that sets up no frame pointer (a leaf, as GCC builds them, or any function of a library
 * built without frame pointers, Debian's C library among them) leaves the frame-pointer walk its
 * caller's caller: the call frame information says where the function's return address is instead.
 * Asked off the signal path (when a sample is handed to a monitor), under one lock; the libraries
 * are reported once, and again when an address lies in none of them (a library loaded since), at
 * most once a second.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "platform/platform.h"

#define REPORT_AGAIN_NS 1000000000u
#define DWARF_X86_64_RBP 6
#define DWARF_X86_64_RSP 7

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *dwfl;
static uint64_t reported_ns;
static char *debuginfo_path; /* libdwfl's search path for debug files: its default */
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

/* This process's libraries, reported again; called with the lock held. */
static void report(void)
{
    if (dwfl)
        dwfl_end(dwfl);
    dwfl = dwfl_begin(&callbacks);
    if (dwfl && (dwfl_linux_proc_report(dwfl, getpid()) != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0)) {
        dwfl_end(dwfl);
        dwfl = NULL;
    }
    reported_ns = plat_now_ns();
}

int plat_native_cfa(uint64_t address, int *fp_based, int64_t *offset)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    if (!dwfl && (!reported_ns || plat_now_ns() - reported_ns >= REPORT_AGAIN_NS))
        report();
    Dwfl_Module *module = dwfl ? dwfl_addrmodule(dwfl, address) : NULL;
    if (!module && dwfl && plat_now_ns() - reported_ns >= REPORT_AGAIN_NS) {
        report();
        module = dwfl ? dwfl_addrmodule(dwfl, address) : NULL;
    }
    Dwarf_Addr bias = 0;
    Dwarf_CFI *cfi = module ? dwfl_module_eh_cfi(module, &bias) : NULL;
    Dwarf_Frame *frame = NULL;
    if (cfi && dwarf_cfi_addrframe(cfi, address - bias, &frame) == 0) {
        Dwarf_Op *ops = NULL;
        size_t count = 0;
        if (dwarf_frame_cfa(frame, &ops, &count) == 0 && count == 1) {
            uint64_t reg = ops[0].atom == DW_OP_bregx ? ops[0].number : (uint64_t)(ops[0].atom - DW_OP_breg0);
            int64_t by = (int64_t)(ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number);
            if ((ops[0].atom == DW_OP_bregx || (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)) &&
                (reg == DWARF_X86_64_RBP || reg == DWARF_X86_64_RSP)) {
                *fp_based = reg == DWARF_X86_64_RBP;
                *offset = by;
                found = 1;
            }
        }
        free(frame);
    }
    pthread_mutex_unlock(&lock);
    return found;
}
