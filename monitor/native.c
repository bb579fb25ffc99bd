/* native.c - cpu and wall modes' native frames and threads (see native.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "tree.h"

int jp_native_init(jp_native *n, IJavaEventMonitorIDInfo2 *info)
{
    memset(n, 0, sizeof(*n));
    if (!(n->lock = plat_mutex_create()))
        return -1;
    if (FAILED(IJavaEventMonitorIDInfo2_QueryInterface(info, &IID_IJevmonNativeSampling, (void **)&n->iface)))
        n->iface = NULL; /* an agent before native frames: Java frames only */
    return 0;
}

void jp_native_free(jp_native *n)
{
    for (size_t i = 0; i < n->count; i++)
        free(n->names[i]);
    for (size_t i = 0; i < n->thread_count; i++)
        free(n->threads[i].name);
    free(n->names);
    free(n->threads);
    jp_idmap_free(&n->addresses);
    jp_idmap_free(&n->functions);
    jp_idmap_free(&n->thread_index);
    if (n->iface)
        IJevmonNativeSampling_Release(n->iface);
    if (n->lock)
        plat_mutex_destroy(n->lock);
    memset(n, 0, sizeof(*n));
}

void jp_native_configure(jp_native *n, int frames, int vm_threads, const char *no_kernel)
{
    DWORD flags = (frames ? JEVMON_NATIVE_FRAMES : 0) | (vm_threads ? JEVMON_NATIVE_VM_THREADS : 0) |
                  (frames && !no_kernel ? JEVMON_NATIVE_KERNEL_FRAMES : 0);
    n->no_kernel = frames ? no_kernel : "no native frames: cstack no";
    if (n->iface && SUCCEEDED(IJevmonNativeSampling_SetNativeSampling(n->iface, flags)))
        n->flags = flags;
}

JEVMON_NATIVE_STACK *jp_native_buffer(jp_native *n)
{
    return n->iface && n->flags ? &n->stack : NULL;
}

#define KERNEL_SUFFIX "_[k]" /* async-profiler's mark of a kernel frame, which FlameGraph's colours know */

/* The name of a code address, malloc'd ("library`function", or the address where none is known);
 * a kernel frame's is its function's with KERNEL_SUFFIX ("read_zero_[k]"). */
static char *address_name(jp_native *n, ULONGLONG address, int kernel)
{
    LPSTR name = NULL;
    char unnamed[64];
    HRESULT hr = IJevmonNativeSampling_GetNativeFrameName(n->iface, address, &name);
    if (hr != S_OK || !name)
        snprintf(unnamed, sizeof(unnamed), kernel ? "0x%" PRIx64 : "[unknown code 0x%" PRIx64 "]", (uint64_t)address);
    const char *known = hr == S_OK && name ? name : unnamed, *function = kernel ? strchr(known, '`') : NULL;
    function = function ? function + 1 : known;
    char *copy = malloc(strlen(function) + sizeof(KERNEL_SUFFIX));
    if (copy)
        sprintf(copy, "%s%s", function, kernel ? KERNEL_SUFFIX : "");
    CoTaskMemFree(name);
    return copy;
}

/* Is a frame's name a kernel function's? */
static int kernel_name(const char *name)
{
    size_t length = strlen(name), suffix = sizeof(KERNEL_SUFFIX) - 1;
    return length > suffix && !strcmp(name + length - suffix, KERNEL_SUFFIX) && !strchr(name, '`');
}

/* FNV-1a of a name, never 0: its first key in the functions map. */
static UniqueID name_key(const char *name)
{
    uint64_t hash = 14695981039346656037ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        hash = (hash ^ *p) * 1099511628211ull;
    return hash ? hash : 1;
}

/* The frame index of a function's name, added when new (name is taken, or freed); -1 out of
 * memory.  Names whose keys collide take the next key; called with the lock held. */
static long function_index(jp_native *n, char *name)
{
    for (UniqueID key = name_key(name);; key = key + 1 ? key + 1 : 1) {
        jp_idmap_entry *e = jp_idmap_insert(&n->functions, key);
        if (!e) {
            free(name);
            return -1;
        }
        if (e->value && strcmp(n->names[e->value - 1], name) == 0) {
            free(name);
            return (long)e->value - 1;
        }
        if (e->value)
            continue;
        if (n->count == n->capacity) {
            size_t capacity = n->capacity ? 2 * n->capacity : 1024;
            char **names = realloc(n->names, capacity * sizeof(*names));
            if (!names) {
                jp_idmap_remove(&n->functions, key);
                free(name);
                return -1;
            }
            n->names = names;
            n->capacity = capacity;
        }
        n->names[n->count] = name;
        e->value = ++n->count;
        return (long)n->count - 1;
    }
}

/* The frame of a code address: its function's (every instruction of a function is one frame, as
 * its samples spread over them), named and added when new; called with the lock held. */
static MethodID frame_of(jp_native *n, ULONGLONG address, int kernel)
{
    jp_idmap_entry *e = jp_idmap_insert(&n->addresses, (UniqueID)address);
    if (!e)
        return JP_UNKNOWN_METHOD;
    if (!e->value) {
        if (n->count == JP_MAX_NATIVE_FRAMES) {
            e->value = JP_MAX_NATIVE_FRAMES;
            return JP_NATIVE_FRAME(JP_MAX_NATIVE_FRAMES - 1);
        }
        char *name = address_name(n, address, kernel);
        long index = name ? function_index(n, name) : -1;
        if (index < 0) {
            jp_idmap_remove(&n->addresses, (UniqueID)address);
            return JP_UNKNOWN_METHOD;
        }
        e->value = (uintptr_t)index + 1;
    }
    return JP_NATIVE_FRAME(e->value - 1);
}

/* The thread's entry, added (and named) when new, or NULL; called with the lock held. */
static jp_native_thread *thread_of(jp_native *n, DWORD os_thread, int vm_thread)
{
    jp_idmap_entry *e = os_thread ? jp_idmap_insert(&n->thread_index, os_thread) : NULL;
    if (!e)
        return NULL;
    if (!e->value) {
        if (n->thread_count == JP_MAX_THREAD_FRAMES)
            return NULL;
        if (n->thread_count == n->thread_capacity) {
            size_t capacity = n->thread_capacity ? 2 * n->thread_capacity : 64;
            jp_native_thread *grown = realloc(n->threads, capacity * sizeof(*grown));
            if (!grown) {
                jp_idmap_remove(&n->thread_index, os_thread);
                return NULL;
            }
            n->threads = grown;
            n->thread_capacity = capacity;
        }
        LPSTR name = NULL;
        jp_native_thread *t = &n->threads[n->thread_count];
        memset(t, 0, sizeof(*t));
        t->os_thread = os_thread;
        if (SUCCEEDED(IJevmonNativeSampling_GetOsThreadName(n->iface, os_thread, &name)) && name &&
            (t->name = malloc(strlen(name) + 3)))
            sprintf(t->name, "[%s]", name); /* the frame's name; the thread table leaves the brackets out */
        CoTaskMemFree(name);
        e->value = ++n->thread_count;
    }
    jp_native_thread *t = &n->threads[e->value - 1];
    t->vm_thread = vm_thread; /* a reused OS thread id may now be another kind of thread */
    return t;
}

void jp_native_count(jp_native *n, DWORD os_thread, uint64_t weight)
{
    if (!n->lock || !n->iface || !n->flags || !os_thread)
        return;
    plat_mutex_lock(n->lock);
    jp_native_thread *t = thread_of(n, os_thread, 0);
    if (t)
        t->samples += weight;
    plat_mutex_unlock(n->lock);
}

size_t jp_native_compose(jp_native *n, const MethodID *frames, const DWORD *offsets, size_t count, uint64_t weight)
{
    const JEVMON_NATIVE_STACK *stack = &n->stack;
    int stopped = stack->walk == JEVMON_NATIVE_STOPPED;
    size_t natives = stack->count > JEVMON_NATIVE_MAX_FRAMES ? 0 : stack->count, composed = 0;
    size_t kernel = stack->kernel <= natives ? stack->kernel : 0; /* the innermost of them */
    if (!count && !natives)
        return 0;
    if (count > 2 + 2048)
        count = 2 + 2048; /* the innermost are kept */
    plat_mutex_lock(n->lock);
    jp_native_thread *t = thread_of(n, stack->os_thread, stack->vm_thread);
    if (t)
        t->samples += weight;
    if (stack->walk != JEVMON_NATIVE_NOT_WALKED) {
        n->counts.walked += !stopped;
        n->counts.stopped += stopped;
    }
    n->counts.kernel += kernel > 0;
    if (!count) {
        if (t) {
            n->frames[composed] = JP_THREAD_FRAME(t - n->threads);
            n->offsets[composed++] = JP_NO_OFFSET;
        }
        if (stopped || stack->walk == JEVMON_NATIVE_TO_JAVA) { /* Java callers the sample does not have */
            n->frames[composed] = JP_UNKNOWN_CALLERS;
            n->offsets[composed++] = JP_NO_OFFSET;
        }
    } else {
        memcpy(n->frames, frames, count * sizeof(*frames));
        for (size_t i = 0; i < count; i++)
            n->offsets[i] = offsets ? offsets[i] : JP_NO_OFFSET;
        composed = count;
        if (stopped && natives) {
            n->frames[composed] = JP_NATIVE_GAP;
            n->offsets[composed++] = JP_NO_OFFSET;
        }
    }
    for (size_t i = 0; i < natives; i++) {
        n->frames[composed] = frame_of(n, stack->frames[i], i >= natives - kernel);
        n->offsets[composed++] = JP_NO_OFFSET;
    }
    plat_mutex_unlock(n->lock);
    return composed;
}

const char *jp_native_frame_name(jp_native *n, MethodID method)
{
    const char *name = NULL;
    if (!n->lock || method > JP_NATIVE_FRAME(0) || method < JP_NATIVE_GAP)
        return NULL;
    plat_mutex_lock(n->lock);
    if (method == JP_NATIVE_GAP) {
        name = "(native frames not walked)";
    } else if (method >= JP_NATIVE_FRAME(JP_MAX_NATIVE_FRAMES - 1)) {
        size_t index = (size_t)(JP_NATIVE_FRAME(0) - method);
        name = index < n->count ? n->names[index] : "[unknown code]";
    } else {
        size_t index = (size_t)(JP_THREAD_FRAME(0) - method);
        const jp_native_thread *t = index < n->thread_count ? &n->threads[index] : NULL;
        name = t && t->name ? t->name : "[unnamed thread]";
    }
    plat_mutex_unlock(n->lock);
    return name;
}

int jp_native_frame_kind(jp_native *n, MethodID method, jp_frame_kind *kind)
{
    if (!n->lock || method > JP_NATIVE_FRAME(0) || method < JP_NATIVE_GAP)
        return 0;
    if (method >= JP_NATIVE_FRAME(JP_MAX_NATIVE_FRAMES - 1)) {
        size_t index = (size_t)(JP_NATIVE_FRAME(0) - method);
        plat_mutex_lock(n->lock);
        /* a library's function ("library`function"), the kernel's, or the VM's generated code (a stub) */
        const char *name = index < n->count ? n->names[index] : "`";
        *kind = strchr(name, '`') ? JP_FRAME_C_CODE : kernel_name(name) ? JP_FRAME_KERNEL : JP_FRAME_VM;
        plat_mutex_unlock(n->lock);
    } else {
        *kind = method == JP_NATIVE_GAP ? JP_FRAME_OTHER : JP_FRAME_THREAD;
    }
    return 1;
}

/* Why the kernel frames that are missing are (JEVMON_KERNEL_FRAMES). */
static const char *kernel_missing(DWORD state)
{
    switch (state) {
    case JEVMON_KERNEL_FRAMES_REFUSED:
        return "the kernel refuses them to this process (perf_event_paranoid above 1, without CAP_PERFMON or "
               "CAP_SYS_ADMIN)";
    case JEVMON_KERNEL_FRAMES_HIDDEN:
        return "/proc/kallsyms hides the kernel's addresses (kptr_restrict)";
    case JEVMON_KERNEL_FRAMES_NO_BUFFER:
        return "the kernel would not map a timer's ring buffer (perf_event_mlock_kb)";
    case JEVMON_KERNEL_FRAMES_NO_TIMERS:
        return "the processor-time timers are not perf events here";
    default:
        return "not asked of the VM";
    }
}

/* The report's one line on kernel frames: how many samples have them, or why there are none. */
static void write_kernel_line(FILE *out, jp_native *n)
{
    JEVMON_KERNEL_FRAME_COUNTS c = {JEVMON_KERNEL_FRAMES_NOT_ASKED, 0, 0, 0, 0};
    if (!(n->flags & JEVMON_NATIVE_KERNEL_FRAMES)) {
        fprintf(out, "Kernel frames: not taken (%s)\n", n->no_kernel ? n->no_kernel : "not asked of the VM");
        return;
    }
    if (FAILED(IJevmonNativeSampling_GetKernelFrameCounts(n->iface, &c)))
        c.state = JEVMON_KERNEL_FRAMES_NOT_ASKED;
    if (c.state == JEVMON_KERNEL_FRAMES_TAKEN || c.threads)
        fprintf(out, "Kernel frames: %" PRIu64 " samples in the kernel, its frames named from /proc/kallsyms, %" PRIu64
                     " ring-buffer records skipped", n->counts.kernel, (uint64_t)c.skipped);
    if (c.state == JEVMON_KERNEL_FRAMES_TAKEN)
        fputc('\n', out);
    else if (c.threads)
        fprintf(out, "; %" PRIu64 " of %" PRIu64 " threads without them: %s\n", (uint64_t)c.threads_without,
                (uint64_t)(c.threads + c.threads_without), kernel_missing(c.state));
    else
        fprintf(out, "Kernel frames: not taken: %s\n", kernel_missing(c.state));
}

static int most_samples_first(const void *a, const void *b)
{
    const jp_native_thread *x = a, *y = b;
    return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : (x->os_thread > y->os_thread) - (x->os_thread < y->os_thread);
}

void jp_native_write(FILE *out, jp_native *n, unsigned top)
{
    if (!n->lock || !n->iface || !n->flags)
        return;
    plat_mutex_lock(n->lock);
    uint64_t total = 0;
    for (size_t i = 0; i < n->thread_count; i++)
        total += n->threads[i].samples;
    fprintf(out, "Native frames: %" PRIu64 " samples walked to their Java frames or their thread's start, %" PRIu64
                 " could not be walked (a caller neither frame pointers nor call frame information found: the frames"
                 " up to there are kept)\n",
            n->counts.walked, n->counts.stopped);
    write_kernel_line(out, n);
    jp_native_thread *sorted = n->thread_count ? malloc(n->thread_count * sizeof(*sorted)) : NULL;
    if (sorted) {
        memcpy(sorted, n->threads, n->thread_count * sizeof(*sorted));
        qsort(sorted, n->thread_count, sizeof(*sorted), most_samples_first);
        fprintf(out, "\nThreads by samples (%zu threads%s)\n", n->thread_count,
                n->flags & JEVMON_NATIVE_VM_THREADS ? ", the JVM's own included" : ", Java threads");
        fprintf(out, "%10s %7s %10s  %-4s  %s\n", "samples", "share", "OS thread", "kind", "name");
        for (size_t i = 0; i < n->thread_count && i < top; i++) {
            const char *name = sorted[i].name ? sorted[i].name + 1 : "?]";
            fprintf(out, "%10" PRIu64 " %6.2f%% %10lu  %-4s  %.*s\n", sorted[i].samples,
                    total ? 100.0 * (double)sorted[i].samples / (double)total : 0.0, (unsigned long)sorted[i].os_thread,
                    sorted[i].vm_thread ? "JVM" : "Java", (int)strlen(name) - 1, name);
        }
        free(sorted);
    }
    plat_mutex_unlock(n->lock);
}
