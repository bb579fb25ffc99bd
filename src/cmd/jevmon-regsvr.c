/*
 * jevmon-regsvr - regsvr32 for Linux.  Registers an in-process COM server, such as an
 * event monitor, by loading it and calling its DllRegisterServer; with -u, unregisters
 * it through DllUnregisterServer.
 *
 *   jevmon-regsvr [-u] /path/to/monitor.so
 *
 * The module writes to jevmon's registry files (see src/platform/posix_registry.c):
 * $JEVMON_REGISTRY_SYSTEM, else /etc/jevmon/system.reg, for HKLM and HKCR, and
 * $JEVMON_REGISTRY_USER, else ~/.config/jevmon/user.reg, for HKCU.
 * Prints one line with the result; exits 0 when the call returned S_OK, 1 when it
 * failed or the module cannot be used, 2 on a usage error.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jevmon.h"

typedef HRESULT(STDAPICALLTYPE *server_entry)(void);

static int usage(void)
{
    fprintf(stderr, "usage: jevmon-regsvr [-u] /path/to/server.so\n"
                    "  registers the server (-u: unregisters it) in jevmon's registry files:\n"
                    "  $JEVMON_REGISTRY_SYSTEM (default /etc/jevmon/system.reg) and $JEVMON_REGISTRY_USER\n"
                    "  (default ${XDG_CONFIG_HOME:-$HOME/.config}/jevmon/user.reg)\n");
    return 2;
}

int main(int argc, char **argv)
{
    int unregister = argc == 3 && strcmp(argv[1], "-u") == 0;
    if (argc != 2 + unregister || argv[argc - 1][0] == '-')
        return usage();
    const char *entry_name = unregister ? "DllUnregisterServer" : "DllRegisterServer";

    /* Loaded by its absolute path, so that the server registers where it really is. */
    char *path = realpath(argv[argc - 1], NULL);
    if (!path) {
        fprintf(stderr, "jevmon-regsvr: %s: %s\n", argv[argc - 1], strerror(errno));
        return 1;
    }
    void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!module) {
        fprintf(stderr, "jevmon-regsvr: %s cannot be loaded: %s\n", path, dlerror());
        free(path);
        return 1;
    }
    void *symbol = dlsym(module, entry_name);
    if (!symbol) {
        fprintf(stderr, "jevmon-regsvr: %s has no %s: it is not a self-registering COM server\n", path, entry_name);
        free(path);
        return 1;
    }
    server_entry entry;
    memcpy(&entry, &symbol, sizeof(symbol)); /* POSIX: function addresses round-trip through void * */
    HRESULT hr = entry();
    if (hr == S_OK)
        printf("jevmon-regsvr: %s in %s succeeded\n", entry_name, path);
    else
        fprintf(stderr, "jevmon-regsvr: %s in %s failed (hr=0x%08X)\n", entry_name, path, (unsigned)hr);
    free(path);
    return hr == S_OK ? 0 : 1;
}
