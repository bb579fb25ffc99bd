/*
 * jevdlwatch.c - preloaded into a JVM by test_profile_truth: one line on stderr whenever dladdr or
 * dlopen is called with SIGPROF blocked, as it is inside jevmon's SIGPROF handler.  There a lookup
 * may wait for the loader's lock that the interrupted code holds, and the thread never returns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void say_if_in_handler(const char *function)
{
    sigset_t blocked;
    if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0 || sigismember(&blocked, SIGPROF) != 1)
        return;
    char line[96] = "jevdlwatch: ";
    strcat(line, function);
    strcat(line, " called inside a SIGPROF handler\n");
    if (write(STDERR_FILENO, line, strlen(line)) < 0)
        return; /* nothing more to do about it */
}

int dladdr(const void *address, Dl_info *info)
{
    int (*real)(const void *, Dl_info *) = (int (*)(const void *, Dl_info *))dlsym(RTLD_NEXT, "dladdr");
    say_if_in_handler("dladdr");
    return real(address, info);
}

void *dlopen(const char *file, int mode)
{
    void *(*real)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    say_if_in_handler("dlopen");
    return real(file, mode);
}
