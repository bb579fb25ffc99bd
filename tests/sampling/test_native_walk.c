/*
 * test_native_walk.c - native frames on Linux: the frame-pointer walk a sampled thread runs in its
 * signal handler (sampling/native_walk.c) names the functions it is in, stops without a fault
 * where a frame pointer leads to memory that is not mapped, and the naming (plat_native_symbol)
 * finds a library's functions, demangles C++ names, and names no address outside a library.
 */
#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <ucontext.h>

#include "platform/platform.h"
#include "sampling/native_walk.h"
#include "../support/testkit.h"

static atomic_int spinning, stop;
static _Atomic DWORD spinner_tid;
static jv_native_stack walked;
static JEVMON_NATIVE_STACK handed; /* as a monitor gets it: outermost first */

__attribute__((noinline)) static void spin_leaf(void)
{
    atomic_store(&spinning, 1);
    while (!atomic_load(&stop))
        __asm__ volatile("");
}

__attribute__((noinline)) static void spin_middle(void)
{
    spin_leaf();
    __asm__ volatile(""); /* not a tail call: spin_middle keeps its frame */
}

static void spinner(void *arg)
{
    (void)arg;
    atomic_store(&spinner_tid, plat_os_thread_id());
    spin_middle();
    __asm__ volatile(""); /* not a tail call */
}

static void walk_hook(void *context, void *arg)
{
    (void)arg;
    jv_native_walk(context, &walked);
}

/* Does the stack handed to monitors hold a frame named so (library`function)? */
static int walked_through(const char *function)
{
    char name[512];
    for (DWORD i = 0; i < handed.count; i++) {
        const char *tick = plat_native_symbol(handed.frames[i], name, sizeof(name)) ? strchr(name, '`') : NULL;
        if (tick && strcmp(tick + 1, function) == 0)
            return 1;
    }
    return 0;
}

START_TEST(a_sampled_thread_is_walked_to_its_start)
{
    plat_registers regs;
    ck_assert_int_eq(plat_sample_init(), 1);
    jv_native_set_flags(JEVMON_NATIVE_FRAMES);
    plat_thread *t = plat_thread_start("test", spinner, NULL);
    while (!atomic_load(&spinning))
        plat_sleep_ms(1);
    ck_assert_int_eq(plat_sample_thread(atomic_load(&spinner_tid), 5000, walk_hook, NULL, &regs), 1);
    atomic_store(&stop, 1);
    plat_thread_join(t);
    jv_native_stack_out(&walked, 0, &handed);
    for (DWORD i = 0; i < handed.count; i++) {
        char name[512];
        printf("  frame %lu: %s\n", (unsigned long)i,
               plat_native_symbol(handed.frames[i], name, sizeof(name)) ? name : "(none)");
    }
    fflush(stdout);
    ck_assert_uint_eq(handed.os_thread, atomic_load(&spinner_tid));
    /* spin_leaf sets up no frame pointer (a leaf): spin_middle comes from its call frame information */
    ck_assert_msg(walked_through("spin_leaf") && walked_through("spin_middle") && walked_through("spinner"),
                  "%lu frames, not spin_leaf, spin_middle and spinner", (unsigned long)handed.count);
    ck_assert_uint_eq(handed.walk, JEVMON_NATIVE_COMPLETE);
    jv_native_set_flags(0);
}
END_TEST

START_TEST(a_frame_pointer_to_unmapped_memory_stops_the_walk)
{
    /* A stack page whose last frame's caller lies in the next page, which cannot be read. */
    ucontext_t context;
    unsigned char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(pages, MAP_FAILED);
    ck_assert_int_eq(mprotect(pages + 4096, 4096, PROT_NONE), 0);
    uint64_t *frames = (uint64_t *)(pages + 4096 - 32);
    frames[0] = (uint64_t)(uintptr_t)(frames + 2); /* the next frame: readable, in the same page */
    frames[1] = (uint64_t)(uintptr_t)&spin_middle + 4;
    frames[2] = (uint64_t)(uintptr_t)(pages + 4096 + 64); /* then one in the page that cannot be read */
    frames[3] = (uint64_t)(uintptr_t)&spinner + 4;
    memset(&context, 0, sizeof(context));
    context.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)&spin_leaf;
    context.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)frames;
    context.uc_mcontext.gregs[REG_RBP] = (greg_t)(uintptr_t)frames;
    jv_native_set_flags(JEVMON_NATIVE_FRAMES);
    jv_native_walk(&context, &walked);
    ck_assert_int_eq(walked.end, JV_NATIVE_BROKEN);
    ck_assert_int_eq(walked.count, 3); /* where it ran, and the two callers it could read */
    ck_assert_uint_eq(walked.pcs[2], (uint64_t)(uintptr_t)&spinner + 3);
    jv_native_set_flags(0);
    jv_native_walk(&context, &walked); /* not asked for: no walk */
    ck_assert_int_eq(walked.end, JV_NATIVE_NOT_WALKED);
    ck_assert_int_eq(walked.count, 0);
    munmap(pages, 8192);
}
END_TEST

START_TEST(memory_that_is_not_mapped_is_read_as_not_readable)
{
    uint64_t value = 42, copy = 0;
    unsigned char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_int_eq(plat_read_memory((uint64_t)(uintptr_t)&value, &copy, sizeof(copy)), 1);
    ck_assert_uint_eq(copy, 42);
    ck_assert_int_eq(plat_read_memory((uint64_t)(uintptr_t)page, &copy, sizeof(copy)), 0);
    ck_assert_int_eq(plat_read_memory(0, &copy, sizeof(copy)), 0);
    munmap(page, 4096);
}
END_TEST

START_TEST(library_functions_are_named_and_demangled)
{
    char name[512];
    void *cxx = dlsym(RTLD_DEFAULT, "_ZSt9terminatev"); /* std::terminate(), in libstdc++ */
    ck_assert_ptr_nonnull(cxx);
    ck_assert_int_eq(plat_native_symbol((uint64_t)(uintptr_t)cxx + 1, name, sizeof(name)), 1);
    ck_assert_str_eq(name, "libstdc++.so.6`std::terminate");
    ck_assert_int_eq(plat_native_symbol((uint64_t)(uintptr_t)&spin_middle + 1, name, sizeof(name)), 1);
    ck_assert_str_eq(strchr(name, '`'), "`spin_middle"); /* a static function: .symtab */
    void *heap = malloc(16);
    ck_assert_int_eq(plat_native_symbol((uint64_t)(uintptr_t)heap, name, sizeof(name)), 0);
    free(heap);
}
END_TEST

START_TEST(a_library_loaded_from_its_descriptor_has_its_file_name)
{
    /* As jevmon loads a monitor (posix_activation.c): dlopen("/proc/self/fd/N"); Expat, a library
     * this program has not loaded (the loader would otherwise hand back the one it has). */
    char path[64], name[512];
    int fd = open("/lib/x86_64-linux-gnu/libexpat.so.1", O_RDONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_ptr_nonnull(library);
    void *function = dlsym(library, "XML_ParserCreate");
    ck_assert_ptr_nonnull(function);
    ck_assert_int_eq(plat_native_symbol((uint64_t)(uintptr_t)function + 1, name, sizeof(name)), 1);
    /* the file the descriptor leads to (libexpat.so.1 is a link to libexpat.so.1.x.y), not "N" */
    ck_assert_msg(strncmp(name, "libexpat.so.1", 13) == 0 && strcmp(strchr(name, '`'), "`XML_ParserCreate") == 0, "%s",
                  name);
}
END_TEST

START_TEST(a_thread_has_the_name_the_system_gives_it)
{
    char name[64];
    prctl(PR_SET_NAME, "jevmon-walker");
    ck_assert_int_eq(plat_os_thread_name(plat_os_thread_id(), name, sizeof(name)), 1);
    ck_assert_str_eq(name, "jevmon-walker");
    ck_assert_int_eq(plat_os_thread_name(0x7ffffff0, name, sizeof(name)), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("native_walk");
    TCase *tc = tcase_create("native_walk");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, a_sampled_thread_is_walked_to_its_start);
    tcase_add_test(tc, a_frame_pointer_to_unmapped_memory_stops_the_walk);
    tcase_add_test(tc, memory_that_is_not_mapped_is_read_as_not_readable);
    tcase_add_test(tc, library_functions_are_named_and_demangled);
    tcase_add_test(tc, a_library_loaded_from_its_descriptor_has_its_file_name);
    tcase_add_test(tc, a_thread_has_the_name_the_system_gives_it);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
