/*
 * posix_cfi.c - the call frame information of a code address (platform.h: plat_native_unwind_rule),
 * from its library's .eh_frame, read by elfutils' libdw (libdwfl for this process's libraries).
 *
 * A function that sets up no frame pointer (a leaf, as GCC builds them, or any function of a library
 * built without frame pointers, Debian's C library among them) is invisible to a frame-pointer
 * walk, or ends it where it keeps data in the register: the call frame information says where its
 * return address and its caller's frame pointer are instead.  Asked off the signal path (when a
 * sample is handed to a monitor), under one lock; the libraries are reported when first asked, and
 * again when the dynamic loader's counts of libraries loaded and unloaded (dl_iterate_phdr) have
 * moved since (a JNI library loaded as the program runs has rules from its first sample).  The rules of
 * the addresses asked last are kept in a cache (a sample's return addresses repeat from sample to
 * sample): libdw interprets a function's instructions up to the address on every question.
 *
 * libdw is loaded at the first question (dlopen), not linked: with the five libraries it brings, it
 * was 0.22 ms of every JVM's start, for rules asked for only where native frames are walked.
 */
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"

#define REPORT_AGAIN_NS 1000000000u
#define DWARF_X86_64_RBP 6
#define DWARF_X86_64_RSP 7
#define DWARF_X86_64_RA 16
#define CACHED 4096 /* rules, by address */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *dwfl;
static uint64_t reported_ns;
static unsigned long long reported_loads[2]; /* the loader's counts at that report: added, removed */
static char *debuginfo_path; /* libdwfl's search path for debug files: its default */
static struct cached_rule {
    uint64_t address; /* 0: none */
    int known;
    plat_unwind_rule rule;
} cache[CACHED];
static Dwfl_Callbacks callbacks = {.debuginfo_path = &debuginfo_path};

/* libdw's functions, from its library once loaded (load_libdw). */
static struct {
    __typeof__(dwfl_begin) *begin;
    __typeof__(dwfl_end) *end;
    __typeof__(dwfl_linux_proc_report) *linux_proc_report;
    __typeof__(dwfl_report_end) *report_end;
    __typeof__(dwfl_addrmodule) *addrmodule;
    __typeof__(dwfl_module_eh_cfi) *module_eh_cfi;
    __typeof__(dwarf_cfi_addrframe) *cfi_addrframe;
    __typeof__(dwarf_frame_cfa) *frame_cfa;
    __typeof__(dwarf_frame_register) *frame_register;
} dw;

/* Loads libdw and finds its functions: 1, or 0 where it cannot (said once; no rules then).  Called
 * with the lock held. */
static int load_libdw(void)
{
    static int tried, loaded;
    if (tried)
        return loaded;
    tried = 1;
    void *library = dlopen("libdw.so.1", RTLD_LAZY | RTLD_LOCAL);
    void **slots[] = {(void **)&dw.begin, (void **)&dw.end, (void **)&dw.linux_proc_report,
                      (void **)&dw.report_end, (void **)&dw.addrmodule, (void **)&dw.module_eh_cfi,
                      (void **)&dw.cfi_addrframe, (void **)&dw.frame_cfa, (void **)&dw.frame_register,
                      (void **)&callbacks.find_elf, (void **)&callbacks.find_debuginfo};
    static const char *const names[] = {"dwfl_begin", "dwfl_end", "dwfl_linux_proc_report", "dwfl_report_end",
                                        "dwfl_addrmodule", "dwfl_module_eh_cfi", "dwarf_cfi_addrframe",
                                        "dwarf_frame_cfa", "dwarf_frame_register", "dwfl_linux_proc_find_elf",
                                        "dwfl_standard_find_debuginfo"};
    _Static_assert(sizeof(slots) / sizeof(*slots) == sizeof(names) / sizeof(*names), "a name per function");
    const char *missing = library ? NULL : dlerror();
    for (size_t i = 0; library && !missing && i < sizeof(names) / sizeof(*names); i++)
        if (!(*slots[i] = dlsym(library, names[i])))
            missing = names[i];
    if (missing)
        jv_log("native frames: libdw cannot be used (%s): functions without frame pointers end walks", missing);
    return loaded = !missing;
}

static int loader_counts(struct dl_phdr_info *info, size_t size, void *counts)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
        ((unsigned long long *)counts)[0] = info->dlpi_adds;
        ((unsigned long long *)counts)[1] = info->dlpi_subs;
    }
    return 1; /* the counts are the same in every entry */
}

/* This process's libraries, reported again when never reported, when the loader's counts moved
 * since, or a second after a report that failed: 1 when reported again.  Called with the lock held. */
static int report(void)
{
    unsigned long long loads[2] = {0, 0};
    dl_iterate_phdr(loader_counts, loads);
    if (reported_ns && loads[0] == reported_loads[0] && loads[1] == reported_loads[1] &&
        (dwfl || plat_now_ns() - reported_ns < REPORT_AGAIN_NS))
        return 0;
    reported_loads[0] = loads[0], reported_loads[1] = loads[1];
    if (dwfl)
        dw.end(dwfl);
    dwfl = dw.begin(&callbacks);
    if (dwfl && (dw.linux_proc_report(dwfl, getpid()) != 0 || dw.report_end(dwfl, NULL, NULL) != 0)) {
        dw.end(dwfl);
        dwfl = NULL;
    }
    reported_ns = plat_now_ns();
    memset(cache, 0, sizeof(cache)); /* a library unloaded since may have left rules of others' addresses */
    return 1;
}

enum { SAME_VALUE, AT_CFA, UNDEFINED, OTHER };

/* A register's rule as libdw gives it (dwarf_frame_register): the same value, saved at the CFA plus
 * *offset, undefined (not kept: the outermost function's return address), or another (an
 * expression, a value rather than a place, an error). */
static int register_rule(Dwarf_Frame *frame, int regno, int64_t *offset)
{
    Dwarf_Op ops_mem[3], *ops = NULL;
    size_t count = 0;
    if (dw.frame_register(frame, regno, ops_mem, &ops, &count) != 0)
        return OTHER;
    if (count == 0)
        return ops == NULL ? SAME_VALUE : UNDEFINED;
    if (ops[0].atom != DW_OP_call_frame_cfa || count > 2 || (count == 2 && ops[1].atom != DW_OP_plus_uconst))
        return OTHER;
    *offset = count == 2 ? (int64_t)ops[1].number : 0; /* libdw gives a negative offset so, wrapped */
    return AT_CFA;
}

/* The rule at address in the libraries as reported: 1, or 0 where its library has none, or -1 where
 * it is in no library (not to be cached); called with the lock held. */
static int rule_reported(uint64_t address, plat_unwind_rule *rule)
{
    Dwfl_Module *module = dwfl ? dw.addrmodule(dwfl, address) : NULL;
    if (!module)
        return -1;
    Dwarf_Addr bias = 0;
    Dwarf_CFI *cfi = dw.module_eh_cfi(module, &bias);
    Dwarf_Frame *frame = NULL;
    if (!cfi || dw.cfi_addrframe(cfi, address - bias, &frame) != 0)
        return 0;
    Dwarf_Op *ops = NULL;
    size_t count = 0;
    int found = 0;
    if (dw.frame_cfa(frame, &ops, &count) == 0 && count == 1 &&
        (ops[0].atom == DW_OP_bregx || (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31))) {
        uint64_t reg = ops[0].atom == DW_OP_bregx ? ops[0].number : (uint64_t)(ops[0].atom - DW_OP_breg0);
        int ra = register_rule(frame, DWARF_X86_64_RA, &rule->ra_offset);
        int fp = register_rule(frame, DWARF_X86_64_RBP, &rule->fp_offset);
        rule->cfa_fp = reg == DWARF_X86_64_RBP;
        rule->cfa_offset = (int64_t)(ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number);
        rule->fp_saved = fp == AT_CFA;
        rule->ra_saved = ra == AT_CFA;
        found = (reg == DWARF_X86_64_RBP || reg == DWARF_X86_64_RSP) &&
                (ra == UNDEFINED || (ra == AT_CFA && (fp == SAME_VALUE || fp == AT_CFA)));
    }
    free(frame);
    return found;
}

/* The rule at address, as rule_reported; asked again of the libraries reported again when it was
 * not found and the loader has loaded or unloaded since (a file mapped at that address before a
 * library was may still be reported there).  Called with the lock held. */
static int look_up(uint64_t address, plat_unwind_rule *rule)
{
    int found = rule_reported(address, rule);
    return found > 0 || !report() ? found : rule_reported(address, rule);
}

int plat_native_unwind_rule(uint64_t address, plat_unwind_rule *rule)
{
    struct cached_rule *c = &cache[(address ^ (address >> 12)) % CACHED];
    pthread_mutex_lock(&lock);
    int known = c->known;
    if (c->address == address) {
        *rule = c->rule;
    } else if (!load_libdw()) {
        known = 0;
    } else if ((known = look_up(address, rule)) >= 0) {
        c->address = address, c->known = known, c->rule = *rule;
    }
    pthread_mutex_unlock(&lock);
    return known > 0;
}
