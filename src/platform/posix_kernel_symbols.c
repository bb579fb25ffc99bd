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
 * /proc/modules; a later run of that boot with those modules reads its table of starts (4 bytes a
 * function) and leaves the names in the file, read one by one as they are named: under a
 * millisecond, where reading the whole file into fresh memory took 4.  The file is read only as
 * this user's regular file (never through a link) and checked before use: one that is not this
 * user's is said in one line and left alone, one that is not whole is said and written again.
 * Writing one removes those of other boots.  It holds what /proc/kallsyms showed this user,
 * readable by this user alone.
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

/* The table: each function's start as an offset from the lowest (the kernel's text and its
 * modules lie within 4 GB of each other), by address, and its name's offset.  The names are in
 * memory when read from /proc/kallsyms, and stay in the cache file when read from there (a few
 * hundred are ever wanted: each is read from the file when named).  Under symbols_lock. */
static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static int symbols_read;
static uint64_t base;
static uint32_t *starts, *name_offsets; /* starts[symbol_count], then name_offsets[symbol_count] */
static size_t symbol_count;
static char *names;       /* or NULL: in names_file, from names_at on */
static size_t names_size;
static int names_file = -1;
static off_t names_at;

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

/* The functions of /proc/kallsyms ("address type name [module]", types t, T, w, W), by address,
 * into the table (those more than 4 GB above the lowest are left out: none is, on x86-64 or
 * AArch64). */
static void read_symbols(void)
{
    size_t length, capacity = 0, count = 0, used = 0;
    int sorted = 1; /* as the kernel lists them, where no module's functions come out of order */
    kernel_symbol *all = NULL;
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
            if (count == capacity) {
                capacity = capacity ? 2 * capacity : 65536;
                kernel_symbol *grown = realloc(all, capacity * sizeof(*grown));
                if (!grown)
                    break;
                all = grown;
            }
            if (used + module_length + name_length + 2 > length + 64)
                break;
            sorted &= !count || all[count - 1].address <= address;
            all[count++] = (kernel_symbol){address, used};
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
        qsort(all, count, sizeof(*all), by_address);
    if (count && (starts = malloc(2 * count * sizeof(*starts)))) {
        base = all[0].address;
        name_offsets = starts + count;
        for (size_t i = 0; i < count && all[i].address - base <= UINT32_MAX && all[i].name <= UINT32_MAX; i++) {
            starts[i] = (uint32_t)(all[i].address - base);
            name_offsets[i] = (uint32_t)all[i].name;
            symbol_count = i + 1;
        }
    }
    free(all);
}

/* ---- The cache ------------------------------------------------------------------------------ */

#define CACHE_MAGIC "jevmon kernel 2"
#define CACHE_PREFIX "kernel-symbols-"
#define CACHE_MAX_BYTES ((off_t)256 << 20) /* ten times a large kernel's table: anything bigger is not one */

/* What a cache file starts with: what it was made of; then starts[count], name_offsets[count] and
 * names[names_size], as the table has them. */
typedef struct cache_header {
    char magic[16];
    char boot_id[40];  /* /proc/sys/kernel/random/boot_id, NUL-padded */
    uint64_t modules;  /* modules_signature() */
    uint64_t count;
    uint64_t names_size;
    uint64_t base;
} cache_header;

typedef struct cache {
    int dir;             /* the cache directory (O_PATH), -1 when there is none */
    char path[4096];     /* of the directory, for the lines said */
    char file[80];       /* CACHE_PREFIX and the boot id */
    cache_header header; /* of this boot and these modules */
} cache;

/* hash (FNV-1a) carried on over length bytes. */
static uint64_t fnv1a(uint64_t hash, const char *bytes, size_t length)
{
    for (size_t i = 0; i < length; i++)
        hash = (hash ^ (unsigned char)bytes[i]) * 1099511628211ull;
    return hash;
}

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
        hash = fnv1a(hash, line, name_length);
        if (address)
            hash = fnv1a(hash, address, (size_t)(end - address));
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

/* Why the cache file (its header h, size bytes in all) does not hold a table of this boot and these
 * modules, or NULL when it does; "" when it is another boot's or modules' (not an error). */
static const char *cache_unfit(const cache *c, const cache_header *h, off_t size)
{
    if (memcmp(h->magic, CACHE_MAGIC, sizeof(CACHE_MAGIC)) != 0)
        return "not a table of this version of jevmon";
    if (memcmp(h->boot_id, c->header.boot_id, sizeof(h->boot_id)) != 0 || h->modules != c->header.modules)
        return "";
    if (!h->count || h->count > (uint64_t)size / 8 || !h->names_size || h->names_size > UINT32_MAX ||
        sizeof(*h) + 8 * h->count + h->names_size != (uint64_t)size)
        return "its sizes do not add up";
    return NULL;
}

/* Why the table read from the cache is not one (functions out of order, names out of bounds, the
 * names' last byte not a NUL), or NULL. */
static const char *table_unfit(int fd)
{
    char last = 1;
    for (size_t i = 0; i < symbol_count; i++)
        if ((i && starts[i] < starts[i - 1]) || name_offsets[i] >= names_size)
            return "a function out of order or a name out of bounds";
    if (pread(fd, &last, 1, names_at + (off_t)names_size - 1) != 1 || last != '\0')
        return "its names do not end";
    return NULL;
}

/* Takes the table from this boot's cache file: its starts and name offsets are read, its names
 * stay in the file (kept open).  1; 0 when there is none to take (missing, another boot's, or not
 * whole: said), to be written; -1 when what is there is left alone (said). */
static int cache_read(const cache *c)
{
    struct stat st;
    cache_header h;
    char why[256];
    const char *refused = NULL, *unfit = NULL;
    int fd = openat(c->dir, c->file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0)
        refused = errno == ELOOP ? "it is a symbolic link" : strerror(errno);
    else if (fstat(fd, &st) != 0)
        refused = strerror(errno);
    else if ((refused = posix_distrust(&st, 0, why, sizeof(why))) == NULL && st.st_uid != geteuid())
        refused = "it is not this user's";
    else if (!refused && (st.st_size < (off_t)sizeof(h) || st.st_size > CACHE_MAX_BYTES))
        unfit = "its size is not a table's";
    else if (!refused && pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
        unfit = "its header cannot be read";
    else if (!refused && (unfit = cache_unfit(c, &h, st.st_size)) == NULL) {
        size_t bytes = 8 * (size_t)h.count;
        if (!(starts = malloc(bytes)))
            unfit = "out of memory";
        else if (pread(fd, starts, bytes, sizeof(h)) != (ssize_t)bytes)
            unfit = "it shrank while read";
        else {
            symbol_count = (size_t)h.count, names_size = (size_t)h.names_size, base = h.base;
            name_offsets = starts + symbol_count;
            names_at = (off_t)(sizeof(h) + bytes);
            unfit = table_unfit(fd);
        }
    }
    if (refused || unfit) {
        if (refused || *unfit)
            jv_log("kernel symbol cache %s/%s: not used (%s); /proc/kallsyms is read instead%s", c->path, c->file,
                   refused ? refused : unfit, refused ? ", and the file left as it is" : ", and the file written again");
        if (fd >= 0)
            close(fd);
        free(starts);
        starts = name_offsets = NULL;
        symbol_count = names_size = 0;
        return refused ? -1 : 0;
    }
    names_file = fd;
    return 1;
}

static int cache_fill(FILE *out, void *context)
{
    cache_header h = ((const cache *)context)->header;
    h.count = symbol_count, h.names_size = names_size, h.base = base;
    return fwrite(&h, sizeof(h), 1, out) != 1 || fwrite(starts, sizeof(*starts), symbol_count, out) != symbol_count ||
           fwrite(name_offsets, sizeof(*name_offsets), symbol_count, out) != symbol_count ||
           fwrite(names, 1, names_size, out) != names_size;
}

/* Writes the table read as this boot's cache file and removes those of other boots (or said why not). */
static void cache_write(const cache *c)
{
    char why[512];
    if (posix_replace_file_at(c->dir, c->file, cache_fill, (void *)c, why, sizeof(why)) != 0) {
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

/* The name of function i into name (size bytes): from memory, or read from the cache file; 0
 * when the file no longer has it whole. */
static int name_of(size_t i, char *name, size_t size)
{
    if (names) {
        snprintf(name, size, "%s", names + name_offsets[i]);
        return 1;
    }
    size_t wanted = names_size - name_offsets[i] < size ? names_size - name_offsets[i] : size;
    ssize_t got = pread(names_file, name, wanted, names_at + (off_t)name_offsets[i]);
    if (got <= 0 || !memchr(name, '\0', (size_t)got)) {
        if (got > 0 && (size_t)got == size && size) {
            name[size - 1] = '\0'; /* longer than the caller's buffer: cut, as snprintf cuts */
            return 1;
        }
        return 0;
    }
    return 1;
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
    if (symbol_count && address >= base && address - base <= UINT32_MAX && size) {
        uint32_t offset = (uint32_t)(address - base);
        size_t low = 0, high = symbol_count; /* the first function above address */
        while (low < high) {
            size_t middle = low + (high - low) / 2;
            if (starts[middle] <= offset)
                low = middle + 1;
            else
                high = middle;
        }
        found = low > 0 && name_of(low - 1, name, size);
    }
    pthread_mutex_unlock(&symbols_lock);
    return found;
}
