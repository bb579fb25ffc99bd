/*
 * posix_kernel_symbols.c - the names of kernel frames (plat_kernel_symbol, platform.h): the
 * kernel's functions by address, read once from /proc/kallsyms at the first kernel frame named,
 * off the signal path, and kept for the later runs of the same boot in this user's cache.
 *
 * Printing /proc/kallsyms (about 120,000 functions) takes the kernel 25-40 ms of processor time at
 * each read: for a short program, most of what naming its kernel frames costs.  The functions stay
 * as they are while the machine runs, modules loaded or unloaded aside, so the table read is kept
 * (as perf keeps kallsyms under ~/.debug) in $XDG_CACHE_HOME/jevmon, else ~/.cache/jevmon: a
 * directory made 0700 and held to be this user's alone, walked trusted from the root
 * (posix_trust.h).  Its file kernel-symbols-<boot id> names the boot and holds a signature of
 * /proc/modules; a later run of that boot with those modules reads it instead.  The file is read
 * only as this user's regular file (never through a link) and checked whole before use: one that
 * is not this user's, or not whole, is said in one line and written again.  Writing one removes
 * those of other boots.  It holds what /proc/kallsyms showed this user, readable by this user alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"
#include "platform/posix_files.h"
#include "platform/posix_trust.h"

typedef struct kernel_symbol {
    uint64_t address;
    uint64_t name; /* offset in names: "vmlinux`function" or "module`function" */
} kernel_symbol;

static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static int symbols_read; /* under symbols_lock, as everything below */
static kernel_symbol *symbols;
static size_t symbol_count;
static char *names;
static size_t names_size;

static int by_address(const void *a, const void *b)
{
    const kernel_symbol *x = a, *y = b;
    return (x->address > y->address) - (x->address < y->address);
}

/* The whole of a file of /proc, NUL-terminated (malloc'd; size bytes to start with), or NULL. */
static char *read_proc_file(const char *path, size_t size, size_t *length)
{
    size_t used = 0;
    char *text = malloc(size);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    for (ssize_t got = 1; text && fd >= 0 && got > 0;) {
        if (size - used < 65536) {
            char *grown = realloc(text, size * 2);
            if (!grown)
                break;
            text = grown, size *= 2;
        }
        got = read(fd, text + used, size - used - 1);
        used += got > 0 ? (size_t)got : 0;
    }
    if (fd < 0) {
        free(text);
        return NULL;
    }
    close(fd);
    if (text)
        text[used] = '\0';
    *length = used;
    return text;
}

/* The functions of /proc/kallsyms ("address type name [module]", types t, T, w, W), by address. */
static void read_symbols(void)
{
    size_t length, capacity = 0, used = 0;
    int sorted = 1; /* as the kernel lists them, where no module's functions come out of order */
    char *text = read_proc_file("/proc/kallsyms", 1 << 22, &length);
    if (!text || !(names = malloc(length + 64))) {
        free(text);
        return;
    }
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        char *type = strchr(line, ' '), *name = type ? strchr(type + 1, ' ') : NULL;
        uint64_t address = strtoull(line, NULL, 16);
        if (name && name < end && strchr("tTwW", type[1]) && address) {
            char *module = memchr(name + 1, '[', (size_t)(end - name - 1));
            size_t name_length = (size_t)((module ? module - 1 : end) - (name + 1));
            size_t module_length = module ? (size_t)(end - module - 2) : 7;
            if (symbol_count == capacity) {
                capacity = capacity ? 2 * capacity : 65536;
                kernel_symbol *grown = realloc(symbols, capacity * sizeof(*grown));
                if (!grown)
                    break;
                symbols = grown;
            }
            if (used + module_length + name_length + 2 > length + 64)
                break;
            sorted &= !symbol_count || symbols[symbol_count - 1].address <= address;
            symbols[symbol_count++] = (kernel_symbol){address, used};
            memcpy(names + used, module ? module + 1 : "vmlinux", module_length);
            used += module_length;
            names[used++] = '`';
            memcpy(names + used, name + 1, name_length);
            used += name_length;
            names[used++] = '\0';
        }
        if (!*end)
            break;
    }
    free(text);
    names_size = used;
    if (!sorted)
        qsort(symbols, symbol_count, sizeof(*symbols), by_address);
}

/* ---- The cache ------------------------------------------------------------------------------ */

#define CACHE_MAGIC "jevmon kernel 1"
#define CACHE_PREFIX "kernel-symbols-"
#define CACHE_MAX_BYTES ((off_t)256 << 20) /* ten times a large kernel's table: anything bigger is not one */

/* What a cache file starts with: what it was made of, then symbols[count] and names[names_size]. */
typedef struct cache_header {
    char magic[16];
    char boot_id[40];  /* /proc/sys/kernel/random/boot_id, NUL-padded */
    uint64_t modules;  /* modules_signature() */
    uint64_t count;
    uint64_t names_size;
} cache_header;

typedef struct cache {
    int dir;             /* the cache directory (O_PATH), -1 when there is none */
    char path[4096];     /* of the directory, for the lines said */
    char file[80];       /* CACHE_PREFIX and the boot id */
    cache_header header; /* of this boot and these modules */
} cache;

/* FNV-1a over each line's name and address of /proc/modules (not the counts that change as modules
 * are used): modules loaded or unloaded change it.  0 where there are no modules. */
static uint64_t modules_signature(void)
{
    size_t length;
    char *text = read_proc_file("/proc/modules", 1 << 16, &length);
    uint64_t hash = 14695981039346656037ull;
    if (!text)
        return 0;
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n'), *address = NULL;
        size_t name_length = strcspn(line, " \n");
        if (!end)
            end = line + strlen(line);
        for (char *p = end; p > line; p--) /* the last field: the load address */
            if (p[-1] == ' ') {
                address = p;
                break;
            }
        for (size_t i = 0; i < name_length; i++)
            hash = (hash ^ (unsigned char)line[i]) * 1099511628211ull;
        for (const char *p = address; p && p < end; p++)
            hash = (hash ^ (unsigned char)*p) * 1099511628211ull;
        line = *end ? end + 1 : end;
    }
    free(text);
    return hash;
}

/* The key of this boot's cache and its directory, opened; 0 when there is none (no boot id, no
 * home, or a directory refused: said in one line). */
static int cache_open(cache *c)
{
    char boot_id[64] = "", why[1024];
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    memset(c, 0, sizeof(*c));
    c->dir = -1;
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, boot_id, sizeof(boot_id) - 1) : -1;
    if (fd >= 0)
        close(fd);
    boot_id[got > 0 ? strcspn(boot_id, "\n") : 0] = '\0';
    if (strlen(boot_id) < 8 || strlen(boot_id) >= sizeof(c->header.boot_id) ||
        strspn(boot_id, "0123456789abcdef-") != strlen(boot_id))
        return 0;
    if (xdg && *xdg == '/')
        snprintf(c->path, sizeof(c->path), "%s/jevmon", xdg);
    else if (home && *home == '/')
        snprintf(c->path, sizeof(c->path), "%s/.cache/jevmon", home);
    else
        return 0;
    if ((c->dir = posix_open_trusted_directory(c->path, 0700, 1, why, sizeof(why))) < 0) {
        if (errno == EACCES)
            jv_log("kernel symbol cache %s: not used: %s", c->path, why);
        return 0;
    }
    snprintf(c->file, sizeof(c->file), CACHE_PREFIX "%s", boot_id);
    memcpy(c->header.magic, CACHE_MAGIC, sizeof(CACHE_MAGIC));
    memcpy(c->header.boot_id, boot_id, strlen(boot_id));
    c->header.modules = modules_signature();
    return 1;
}

/* Why the cache file's bytes (size of them, 8-byte aligned) are not a whole table of this boot and
 * these modules, or NULL when they are; "" when they are another boot's or modules' (not an error). */
static const char *cache_unfit(const cache *c, const unsigned char *bytes, size_t size)
{
    cache_header h;
    if (size < sizeof(h))
        return "shorter than its header";
    memcpy(&h, bytes, sizeof(h));
    if (memcmp(h.magic, CACHE_MAGIC, sizeof(CACHE_MAGIC)) != 0)
        return "not a table of this version of jevmon";
    if (memcmp(h.boot_id, c->header.boot_id, sizeof(h.boot_id)) != 0 || h.modules != c->header.modules)
        return "";
    if (!h.count || h.count > (size - sizeof(h)) / sizeof(kernel_symbol) || !h.names_size ||
        sizeof(h) + h.count * sizeof(kernel_symbol) + h.names_size != size)
        return "its sizes do not add up";
    const kernel_symbol *table = (const kernel_symbol *)(bytes + sizeof(h));
    const char *text = (const char *)(table + h.count);
    if (text[h.names_size - 1] != '\0')
        return "its names do not end";
    for (uint64_t i = 0; i < h.count; i++)
        if (table[i].name >= h.names_size || (i && table[i].address < table[i - 1].address))
            return "a function out of order or a name out of bounds";
    return NULL;
}

/* Takes the table from this boot's cache file: 1; 0 when there is none to take (missing, another
 * boot's, or not whole: said), to be written; -1 when what is there is left alone (said). */
static int cache_read(const cache *c)
{
    struct stat st;
    char why[256];
    const char *refused = NULL, *unfit = NULL;
    unsigned char *bytes = NULL;
    int fd = openat(c->dir, c->file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0)
        refused = errno == ELOOP ? "it is a symbolic link" : strerror(errno);
    else if (fstat(fd, &st) != 0)
        refused = strerror(errno);
    else if ((refused = posix_distrust(&st, 0, why, sizeof(why))) == NULL && st.st_uid != geteuid())
        refused = "it is not this user's";
    else if (!refused && (st.st_size < (off_t)sizeof(cache_header) || st.st_size > CACHE_MAX_BYTES))
        unfit = "its size is not a table's";
    else if (!refused && !(bytes = malloc((size_t)st.st_size)))
        unfit = "out of memory";
    for (size_t used = 0; !refused && !unfit && used < (size_t)st.st_size;) {
        ssize_t got = read(fd, bytes + used, (size_t)st.st_size - used);
        if (got <= 0)
            unfit = got < 0 ? strerror(errno) : "it shrank while read";
        used += got > 0 ? (size_t)got : 0;
    }
    if (fd >= 0)
        close(fd);
    if (!refused && !unfit)
        unfit = cache_unfit(c, bytes, (size_t)st.st_size);
    if (refused || unfit) {
        if (refused || *unfit)
            jv_log("kernel symbol cache %s/%s: not used (%s); /proc/kallsyms is read instead%s", c->path, c->file,
                   refused ? refused : unfit, refused ? ", and the file left as it is" : ", and the file written again");
        free(bytes);
        return refused ? -1 : 0;
    }
    cache_header h;
    memcpy(&h, bytes, sizeof(h));
    symbols = (kernel_symbol *)(bytes + sizeof(h)); /* the one allocation, kept as long as the process */
    names = (char *)(symbols + h.count);
    symbol_count = h.count, names_size = h.names_size;
    return 1;
}

static int cache_fill(FILE *out, void *context)
{
    cache_header h = ((const cache *)context)->header;
    h.count = symbol_count, h.names_size = names_size;
    return fwrite(&h, sizeof(h), 1, out) != 1 || fwrite(symbols, sizeof(*symbols), symbol_count, out) != symbol_count ||
           fwrite(names, 1, names_size, out) != names_size;
}

/* Writes the table read as this boot's cache file and removes those of other boots (or said why not). */
static void cache_write(const cache *c)
{
    char why[512];
    if (posix_replace_file_at(c->dir, c->file, cache_fill, (void *)c, 0, why, sizeof(why)) != 0) {
        jv_log("kernel symbol cache %s/%s: not written: %s", c->path, c->file, why);
        return;
    }
    int listing = openat(c->dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *entries = listing >= 0 ? fdopendir(listing) : NULL;
    if (!entries) {
        if (listing >= 0)
            close(listing);
        return;
    }
    for (struct dirent *e; (e = readdir(entries)) != NULL;)
        if (!strncmp(e->d_name, CACHE_PREFIX, strlen(CACHE_PREFIX)) && strcmp(e->d_name, c->file) != 0)
            unlinkat(c->dir, e->d_name, 0); /* a directory of that name stays: unlinkat without AT_REMOVEDIR */
    closedir(entries);
}

/* The table: from this boot's cache, else read from /proc/kallsyms and cached. */
static void load_symbols(void)
{
    cache c;
    int cached = cache_open(&c), taken = cached ? cache_read(&c) : -1;
    if (taken != 1)
        read_symbols();
    if (taken == 0 && symbol_count)
        cache_write(&c);
    if (cached)
        close(c.dir);
}

int plat_kernel_symbol(uint64_t address, char *name, size_t size)
{
    int found = 0;
    if ((int64_t)address >= 0)
        return 0; /* the kernel's half is the upper one (x86-64, AArch64): no need to read its symbols */
    pthread_mutex_lock(&symbols_lock);
    if (!symbols_read) {
        symbols_read = 1;
        load_symbols();
    }
    size_t low = 0, high = symbol_count; /* the first symbol above address */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (symbols[middle].address <= address)
            low = middle + 1;
        else
            high = middle;
    }
    if (low > 0 && size) {
        snprintf(name, size, "%s", names + symbols[low - 1].name);
        found = 1;
    }
    pthread_mutex_unlock(&symbols_lock);
    return found;
}
