/*
 * win32_native.c - native stack walks on Windows (platform.h): none yet.  The sampled thread is
 * suspended there, not interrupted, and no walk runs on it, so no native frames are taken.
 */
#include "platform/platform.h"

int plat_context_frame(const void *context, uint64_t *ip, uint64_t *sp, uint64_t *fp)
{
    (void)context;
    *ip = *sp = *fp = 0;
    return 0;
}

int plat_context_moved(const void *context, uint64_t ip, uint64_t sp, uint64_t fp, void *moved)
{
    (void)context, (void)ip, (void)sp, (void)fp, (void)moved;
    return 0;
}

int plat_read_memory(uint64_t address, void *buffer, size_t size)
{
    (void)address, (void)buffer, (void)size;
    return 0;
}

/* Code the loader mapped from an image (an EXE or a DLL), not generated at run time. */
int plat_native_code(uint64_t address)
{
    MEMORY_BASIC_INFORMATION info;
    return VirtualQuery((LPCVOID)(uintptr_t)address, &info, sizeof(info)) == sizeof(info) && info.Type == MEM_IMAGE;
}

int plat_native_symbol(uint64_t address, char *name, size_t size)
{
    (void)address, (void)name, (void)size;
    return 0;
}

size_t plat_read_memory_prefix(uint64_t address, void *buffer, size_t size)
{
    (void)address, (void)buffer, (void)size;
    return 0;
}

int plat_native_unwind_rule(uint64_t address, plat_unwind_rule *rule)
{
    (void)address, (void)rule;
    return 0;
}

int plat_os_thread_name(DWORD os_tid, char *name, size_t size)
{
    (void)os_tid, (void)name, (void)size;
    return 0;
}
