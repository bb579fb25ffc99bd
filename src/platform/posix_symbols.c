/*
 * posix_symbols.c - a code address's name (platform.h: plat_native_symbol): the library the
 * loader mapped there (dladdr1: its path and load bias) and the function symbol covering the
 * address in the library's ELF symbol table.  The table is .symtab where the library has one; a
 * stripped library's is looked for in Debian's debug files (/usr/lib/debug/.build-id/xx/yyyy.debug
 * by its build id, or its .gnu_debuglink under /usr/lib/debug), else .dynsym, the exported
 * functions only.  C++ names are demangled by the C++ runtime's __cxa_demangle, and their
 * parameter lists left out, as async-profiler shows them.  A library loaded from a descriptor
 * (/proc/self/fd/N: jevmon loads monitors so) is named by the file the descriptor leads to.
 *
 * Each library is read once, when its first address is named: its file is mapped (and stays: the
 * symbols' sizes and names are read there) and its function symbols sorted by address.  Callers are the
 * monitors' threads off the signal path, never a signal handler; one lock serializes them.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"

/* The C++ runtime's demangler (libstdc++, cxxabi.h: __cxa_demangle), found at the first C++ name:
 * linking libstdc++ into the agent made every JVM load it at start (0.8 ms; HotSpot carries its
 * own C++ runtime inside libjvm.so) for names wanted mostly at the end.  NULL where there is none:
 * names stay mangled.  Called with the lock held. */
typedef char *(*demangler)(const char *mangled, char *buffer, size_t *length, int *status);
static demangler cxa_demangle(void)
{
    static int looked;
    static demangler found;
    if (!looked) {
        looked = 1;
        void *runtime = dlsym(RTLD_DEFAULT, "__cxa_demangle"); /* a C++ monitor brought it */
        void *library = runtime ? NULL : dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        found = (demangler)(runtime ? runtime : library ? dlsym(library, "__cxa_demangle") : NULL);
    }
    return found;
}

/* A function: 8 bytes, its size and name left in the mapped table.  Reading and sorting libjvm.so's
 * 58,000 took 1.6 ms with 24-byte entries (start, size, name), 0.8 ms so: the pages written are
 * most of it.  A library's addresses fit 32 bits; a symbol beyond them is left out. */
typedef struct symbol {
    uint32_t start;
    uint32_t index; /* in the library's symbol table */
} symbol;

typedef struct library {
    char *path;
    char *shown;      /* the path the library has for a user: a library loaded as /proc/self/fd/N, the file's */
    const char *base; /* the file name, in shown */
    symbol *symbols;
    size_t count;
    const Elf64_Sym *table; /* the symbol table, in the mapped file */
    const char *strings;    /* its names */
} library;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static library *libraries;
static size_t library_count, library_capacity;

/* The file mapped read-only, or NULL; *size its length. */
static const unsigned char *map_file(const char *path, size_t *size)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    void *at = fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(Elf64_Ehdr)
                   ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                   : MAP_FAILED;
    close(fd);
    if (at == MAP_FAILED)
        return NULL;
    const Elf64_Ehdr *header = at;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64 ||
        header->e_shoff == 0 || header->e_shoff + (uint64_t)header->e_shnum * sizeof(Elf64_Shdr) > (uint64_t)st.st_size) {
        munmap(at, (size_t)st.st_size);
        return NULL;
    }
    *size = (size_t)st.st_size;
    return at;
}

static const Elf64_Shdr *sections(const unsigned char *file)
{
    return (const Elf64_Shdr *)(file + ((const Elf64_Ehdr *)file)->e_shoff);
}

/* The first section of this type, or NULL. */
static const Elf64_Shdr *section_of_type(const unsigned char *file, size_t size, uint32_t type)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)file;
    for (unsigned i = 0; i < header->e_shnum; i++) {
        const Elf64_Shdr *s = &sections(file)[i];
        if (s->sh_type == type && s->sh_offset + s->sh_size <= size)
            return s;
    }
    return NULL;
}

/* The section named so, or NULL. */
static const Elf64_Shdr *section_named(const unsigned char *file, size_t size, const char *name)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)file;
    if (header->e_shstrndx >= header->e_shnum)
        return NULL;
    const Elf64_Shdr *names = &sections(file)[header->e_shstrndx];
    for (unsigned i = 0; i < header->e_shnum; i++) {
        const Elf64_Shdr *s = &sections(file)[i];
        if (names->sh_offset + s->sh_name < size && s->sh_offset + s->sh_size <= size &&
            strncmp((const char *)file + names->sh_offset + s->sh_name, name, size - names->sh_offset - s->sh_name) == 0)
            return s;
    }
    return NULL;
}

/* The kernel's vDSO (no file: its image is in memory, section headers last), or NULL. */
static const unsigned char *vdso_image(size_t *size)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
    if (!header || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64)
        return NULL;
    *size = header->e_shoff + (size_t)header->e_shnum * sizeof(Elf64_Shdr);
    return (const unsigned char *)header;
}

/* Debian's debug file for a stripped library, mapped, or NULL: by build id, else by debug link. */
static const unsigned char *map_debug_file(const unsigned char *file, size_t size, const char *path, size_t *debug_size)
{
    char debug_path[4096];
    const Elf64_Shdr *note = section_named(file, size, ".note.gnu.build-id");
    if (note && note->sh_size > sizeof(Elf64_Nhdr)) {
        const Elf64_Nhdr *n = (const Elf64_Nhdr *)(file + note->sh_offset);
        const unsigned char *id = (const unsigned char *)(n + 1) + ((n->n_namesz + 3) & ~3u);
        if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz > 1 && id + n->n_descsz <= file + note->sh_offset + note->sh_size) {
            int length = snprintf(debug_path, sizeof(debug_path), "/usr/lib/debug/.build-id/%02x/", id[0]);
            for (uint32_t i = 1; i < n->n_descsz && length < (int)sizeof(debug_path) - 8; i++)
                length += snprintf(debug_path + length, sizeof(debug_path) - (size_t)length, "%02x", id[i]);
            snprintf(debug_path + length, sizeof(debug_path) - (size_t)length, ".debug");
            const unsigned char *debug = map_file(debug_path, debug_size);
            if (debug)
                return debug;
        }
    }
    const Elf64_Shdr *link = section_named(file, size, ".gnu_debuglink");
    const char *slash = strrchr(path, '/');
    if (link && slash && link->sh_size > 1) {
        snprintf(debug_path, sizeof(debug_path), "/usr/lib/debug%.*s/%.*s", (int)(slash - path), path,
                 (int)strnlen((const char *)file + link->sh_offset, link->sh_size), (const char *)file + link->sh_offset);
        return map_file(debug_path, debug_size);
    }
    return NULL;
}

static int by_start(const void *a, const void *b)
{
    const symbol *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorts symbols by start: a radix sort, a byte of the address at a time from the lowest, the bytes
 * every start shares skipped; stable, as glibc's qsort is.  libjvm.so has about 50,000 functions:
 * qsort took 6-7 ms of a short program's exit to order them.  Without the memory, qsort does it. */
static void sort_by_start(symbol *all, size_t count)
{
    enum { DIGITS = sizeof(all->start) };
    size_t counts[DIGITS][256] = {{0}};
    symbol *spare = count > 1 ? malloc(count * sizeof(*spare)) : NULL;
    if (!spare) {
        if (count > 1)
            qsort(all, count, sizeof(*all), by_start);
        return;
    }
    for (size_t i = 0; i < count; i++)
        for (int digit = 0; digit < DIGITS; digit++)
            counts[digit][(all[i].start >> (8 * digit)) & 0xff]++;
    symbol *from = all, *to = spare;
    for (int digit = 0; digit < DIGITS; digit++) {
        size_t *bucket = counts[digit], at = 0;
        if (bucket[(from[0].start >> (8 * digit)) & 0xff] == count)
            continue; /* every start has this byte: the order stays */
        for (int b = 0; b < 256; b++) {
            size_t n = bucket[b];
            bucket[b] = at;
            at += n;
        }
        for (size_t i = 0; i < count; i++)
            to[bucket[(from[i].start >> (8 * digit)) & 0xff]++] = from[i];
        symbol *swap = from;
        from = to, to = swap;
    }
    if (from != all)
        memcpy(all, from, count * sizeof(*all));
    free(spare);
}

/* The function symbols of one symbol table section of file, added to lib. */
static void add_symbols(library *lib, const unsigned char *file, size_t size, const Elf64_Shdr *table)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)file;
    if (!table || table->sh_link >= header->e_shnum || table->sh_entsize != sizeof(Elf64_Sym))
        return;
    const Elf64_Shdr *strings = &sections(file)[table->sh_link];
    if (strings->sh_offset + strings->sh_size > size)
        return;
    size_t count = table->sh_size / sizeof(Elf64_Sym);
    symbol *all = malloc((count ? count : 1) * sizeof(*all));
    if (!all)
        return;
    const Elf64_Sym *syms = (const Elf64_Sym *)(file + table->sh_offset);
    size_t kept = 0;
    for (size_t i = 0; i < count && i <= UINT32_MAX; i++) {
        unsigned type = ELF64_ST_TYPE(syms[i].st_info);
        if ((type == STT_FUNC || type == STT_GNU_IFUNC) && syms[i].st_shndx != SHN_UNDEF && syms[i].st_value &&
            syms[i].st_value <= UINT32_MAX && syms[i].st_name < strings->sh_size)
            all[kept++] = (symbol){(uint32_t)syms[i].st_value, (uint32_t)i};
    }
    sort_by_start(all, kept);
    lib->symbols = all;
    lib->count = kept;
    lib->table = syms;
    lib->strings = (const char *)file + strings->sh_offset;
}

/* The library at path, read now if it was not; NULL out of memory.  Called with the lock held. */
static library *library_at(const char *path)
{
    for (size_t i = 0; i < library_count; i++)
        if (strcmp(libraries[i].path, path) == 0)
            return &libraries[i];
    if (library_count == library_capacity) {
        size_t capacity = library_capacity ? 2 * library_capacity : 32;
        library *grown = realloc(libraries, capacity * sizeof(*grown));
        if (!grown)
            return NULL;
        libraries = grown, library_capacity = capacity;
    }
    library *lib = &libraries[library_count];
    memset(lib, 0, sizeof(*lib));
    if (!(lib->path = strdup(path)))
        return NULL;
    /* jevmon loads a monitor from the descriptor it checked (posix_activation.c), so the loader
     * knows it as /proc/self/fd/N: the descriptor stays open, and leads to the file's own name */
    char file_path[4096];
    ssize_t length = strncmp(path, "/proc/self/fd/", 14) == 0 ? readlink(path, file_path, sizeof(file_path) - 1) : -1;
    if (length > 0)
        file_path[length] = '\0';
    if (!(lib->shown = length > 0 ? strdup(file_path) : lib->path)) {
        free(lib->path);
        return NULL;
    }
    const char *slash = strrchr(lib->shown, '/');
    lib->base = slash ? slash + 1 : lib->shown;
    library_count++;
    size_t size = 0, debug_size = 0;
    const unsigned char *file = map_file(path, &size), *debug = NULL;
    if (!file && strncmp(lib->base, "linux-vdso", 10) == 0 && (file = vdso_image(&size))) {
        add_symbols(lib, file, size, section_of_type(file, size, SHT_DYNSYM));
        return lib;
    }
    if (!file)
        return lib; /* no symbols: its addresses are named by offset */
    const Elf64_Shdr *table = section_of_type(file, size, SHT_SYMTAB);
    if (table) {
        add_symbols(lib, file, size, table);
    } else if ((debug = map_debug_file(file, size, path, &debug_size)) &&
               (table = section_of_type(debug, debug_size, SHT_SYMTAB))) {
        add_symbols(lib, debug, debug_size, table);
        munmap((void *)file, size);
    } else {
        if (debug)
            munmap((void *)debug, debug_size);
        add_symbols(lib, file, size, section_of_type(file, size, SHT_DYNSYM));
    }
    return lib;
}

/* The symbol covering address (an address in the library's own terms), or NULL. */
static const Elf64_Sym *symbol_at(const library *lib, uint64_t address)
{
    size_t low = 0, high = lib->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (lib->symbols[middle].start <= address)
            low = middle + 1;
        else
            high = middle;
    }
    if (!low)
        return NULL;
    const Elf64_Sym *s = &lib->table[lib->symbols[low - 1].index];
    /* A symbol without a size (hand-written assembly) covers up to the next one. */
    return !s->st_size || address < s->st_value + s->st_size ? s : NULL;
}

/* Copies a demangled C++ name without its parameter list (and what follows it: " const"), or a C
 * name without its symbol version. */
static void copy_without_parameters(char *name, size_t size, const char *demangled)
{
    int angle = 0;
    size_t length = strlen(demangled);
    for (size_t i = 0; demangled[i]; i++) {
        if (demangled[i] == '<')
            angle++;
        else if (demangled[i] == '>' && angle > 0)
            angle--;
        else if (demangled[i] == '(' && angle == 0 && i > 0 &&
                 !(i >= 8 && strncmp(demangled + i - 8, "operator", 8) == 0)) {
            length = i;
            break;
        }
    }
    const char *version = memchr(demangled, '@', length); /* a symbol's version: read@@GLIBC_2.2.5 */
    snprintf(name, size, "%.*s", (int)(version ? (size_t)(version - demangled) : length), demangled);
}

int plat_native_symbol(uint64_t address, char *name, size_t size)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!size || !dladdr1((void *)(uintptr_t)address, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
        return 0;
    char exe[4096];
    const char *path = map->l_name && map->l_name[0] ? map->l_name : NULL;
    if (!path) { /* the program itself */
        ssize_t length = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (length <= 0)
            return 0;
        exe[length] = '\0';
        path = exe;
    }
    uint64_t offset = address - (uint64_t)map->l_addr;
    pthread_mutex_lock(&lock);
    const library *lib = library_at(path);
    const Elf64_Sym *s = lib ? symbol_at(lib, offset) : NULL;
    const char *base = lib ? lib->base : path;
    if (s) {
        int status = -1;
        const char *mangled = lib->strings + s->st_name;
        demangler demangle = mangled[0] == '_' && mangled[1] == 'Z' ? cxa_demangle() : NULL;
        char *demangled = demangle ? demangle(mangled, NULL, NULL, &status) : NULL;
        int length = snprintf(name, size, "%s`", base);
        if (length >= 0 && (size_t)length < size)
            copy_without_parameters(name + length, size - (size_t)length, status == 0 && demangled ? demangled : mangled);
        free(demangled);
    } else {
        snprintf(name, size, "%s`0x%llx", base, (unsigned long long)offset);
    }
    pthread_mutex_unlock(&lock);
    return 1;
}
