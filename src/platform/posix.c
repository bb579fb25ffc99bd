/*
 * posix.c - the small services of platform.h on POSIX systems: environment copies,
 * string lists, per-thread COM set-up (there is none without COM), module paths, the process
 * id and making directories.
 * The registry is posix_registry.c, class activation posix_activation.c, threads,
 * locks and time posix_thread.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"

char *plat_getenv(const char *name)
{
    const char *value = getenv(name);
    return value ? strdup(value) : NULL;
}

void plat_free_strings(char **strings, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(strings[i]);
    free(strings);
}

/* In-process servers on POSIX are plain shared libraries: no apartment to join. */
HRESULT plat_com_init(void)
{
    return S_OK;
}

void plat_com_uninit(void)
{
}

char *plat_module_path(const void *addr)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) || !info.dli_fname)
        return NULL;
    /* For the executable, dladdr names argv[0], which may be relative or a bare command name. */
    const char *file = map && map->l_name[0] == '\0' ? "/proc/self/exe" : info.dli_fname;
    return realpath(file, NULL);
}

void *plat_module_symbol(const void *addr, const char *name)
{
    Dl_info info;
    if (!dladdr(addr, &info) || !info.dli_fname)
        return NULL;
    void *module = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!module)
        return NULL;
    void *symbol = dlsym(module, name);
    dlclose(module); /* RTLD_NOLOAD took a reference of its own; the module stays */
    return symbol;
}

DWORD plat_process_id(void)
{
    return (DWORD)getpid();
}

int plat_make_directories(const char *path, char *why, size_t why_len)
{
    char *copy = strdup(path);
    struct stat st;
    int error = copy ? 0 : ENOMEM;
    /* Each parent, then the directory; the first refusal other than "exists" is the reason. */
    for (char *p = copy && *copy ? copy + 1 : NULL; p; p = *p ? p + 1 : NULL) {
        if (*p && *p != '/')
            continue;
        char kept = *p;
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST && !error) /* private to its owner's writes, whatever the umask */
            error = errno;
        *p = kept;
    }
    free(copy);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    snprintf(why, why_len, "%s", error ? strerror(error) : "it is not a directory");
    return -1;
}
