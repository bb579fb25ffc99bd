/*
 * posix_registry.c - the registry of platform.h on POSIX: regedit-format files
 * (common/regfile.h does the format; this file finds, trusts, caches and rewrites them).
 *
 *   HKLM, and the classes HKCR shows and writes:  $JEVMON_REGISTRY_SYSTEM,
 *                                                 else /etc/jevmon/system.reg
 *   HKCU:  $JEVMON_REGISTRY_USER, else ${XDG_CONFIG_HOME:-$HOME/.config}/jevmon/user.reg
 *   $JEVMON_REGISTRY_FILES: colon-separated files of any hive, merged last, never written.
 * A variable set to "" counts as unset.
 *
 * A missing file is an empty one.  A file that someone other than root or this user
 * could have written (group- or world-writable, owned by another user, not a regular
 * file), or put in its place (a directory or symbolic link on its path that another user
 * could change: posix_open_trusted) is refused with one log line: a monitor named in it
 * would run inside the JVM.
 * Reads of a hive one of its files was refused for, or could not be read, fail with
 * PLAT_REG_ERROR rather than answer from part of the registry.
 *
 * Reading merges every file into one tree, kept until one of the files changes (their
 * stat identity is the cache key).  A bad file is reported once per process, not at every
 * read, nor again by a monitor's own copy of this layer (first_reading).
 * Writing reads the hive's own file afresh, changes it and replaces it atomically
 * (temporary file, then rename), mode 0644.  A file with malformed lines is not
 * rewritten: the rewrite would drop them.  Writers in several processes at once are not
 * serialised (registration is a one-off, interactive step).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/regfile.h"
#include "platform/platform.h"
#include "platform/posix_once.h"
#include "platform/posix_trust.h"

#define SYSTEM_FILE_DEFAULT "/etc/jevmon/system.reg"
#define SYSTEM_HIVES (JV_REG_HIVE_BIT(PLAT_HKLM) | JV_REG_HIVE_BIT(PLAT_HKCR))
#define USER_HIVES JV_REG_HIVE_BIT(PLAT_HKCU)

/* What a reader of each hive depends on: HKCR shows both hives' classes. */
static unsigned hives_read_by(plat_hive hive)
{
    return hive == PLAT_HKCR ? JV_REG_ALL_HIVES : JV_REG_HIVE_BIT(hive);
}

/* ---- Where the files are -------------------------------------------------------------------- */

static char *join(const char *dir, const char *rest)
{
    size_t len = strlen(dir) + strlen(rest) + 1;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%s%s", dir, rest);
    return path;
}

static char *system_file(void)
{
    const char *env = getenv("JEVMON_REGISTRY_SYSTEM");
    return strdup(env && *env ? env : SYSTEM_FILE_DEFAULT);
}

/* NULL when there is no home directory to hold it. */
static char *user_file(void)
{
    const char *env = getenv("JEVMON_REGISTRY_USER");
    if (env && *env)
        return strdup(env);
    const char *config = getenv("XDG_CONFIG_HOME");
    if (config && *config == '/') /* the XDG rule: a relative value is ignored */
        return join(config, "/jevmon/user.reg");
    const char *home = getenv("HOME");
    if (!home || !*home) {
        const struct passwd *pw = getpwuid(geteuid());
        home = pw ? pw->pw_dir : NULL;
    }
    return home && *home ? join(home, "/.config/jevmon/user.reg") : NULL;
}

/* The file writes to hive go to, or NULL (logged). */
static char *file_of_hive(plat_hive hive)
{
    char *path = hive == PLAT_HKCU ? user_file() : system_file();
    if (!path)
        jv_log("registry: cannot write HKEY_CURRENT_USER: no JEVMON_REGISTRY_USER, XDG_CONFIG_HOME or home "
               "directory to keep jevmon/user.reg in");
    return path;
}

/* ---- Reading one file, if it can be trusted ---------------------------------------------------- */

/* A file's identity and version: when any of it changes, the file has to be read again. */
typedef struct file_state {
    int exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    mode_t mode;
    uid_t uid;
    struct timespec mtime, ctime;
} file_state;

static void state_from_stat(file_state *state, const struct stat *st)
{
    memset(state, 0, sizeof(*state));
    state->exists = 1;
    state->dev = st->st_dev;
    state->ino = st->st_ino;
    state->size = st->st_size;
    state->mode = st->st_mode;
    state->uid = st->st_uid;
    state->mtime = st->st_mtim;
    state->ctime = st->st_ctim;
}

static void state_of_path(const char *path, file_state *state)
{
    struct stat st;
    if (stat(path, &st) == 0)
        state_from_stat(state, &st);
    else
        memset(state, 0, sizeof(*state));
}

static int same_state(const file_state *a, const file_state *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mode == b->mode && a->uid == b->uid && a->mtime.tv_sec == b->mtime.tv_sec &&
           a->mtime.tv_nsec == b->mtime.tv_nsec && a->ctime.tv_sec == b->ctime.tv_sec &&
           a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/*
 * Whether what is wrong with the file at path in this state, if anything, is still to be
 * said in this process.  The agent and each monitor linked with this layer read the same
 * files with caches of their own, so without a process-wide record (posix_once.h) every bad
 * file would be reported by each of them.  A file that changes is a new file.
 */
static int first_reading(const char *path, const file_state *state)
{
    size_t len = strlen(path) + 200;
    char *key = malloc(len);
    if (!key)
        return 1;
    snprintf(key, len, "registry file %s %d %llu %llu %lld %lld.%09ld %lld.%09ld %o %u", path, state->exists,
             (unsigned long long)state->dev, (unsigned long long)state->ino, (long long)state->size,
             (long long)state->mtime.tv_sec, state->mtime.tv_nsec, (long long)state->ctime.tv_sec,
             state->ctime.tv_nsec, (unsigned)state->mode, (unsigned)state->uid);
    for (char *nl = strchr(key, '\n'); nl; nl = strchr(nl, '\n'))
        *nl = '?'; /* the record's keys are lines */
    int first = posix_first_in_process(key);
    free(key);
    return first;
}

/*
 * The contents of the file at path in *data (malloc'd, NULL when there is no file), its
 * state, and in *say whether its problems are to be said (first_reading).  Returns 0
 * (logged, if *say) when the file is refused or cannot be read.
 */
static int read_trusted(const char *path, char **data, size_t *size, file_state *state, int *say)
{
    char why[PATH_MAX + 256];
    struct stat st;
    *data = NULL;
    *size = 0;
    *say = 1;
    int fd = posix_open_trusted(path, why, sizeof(why)); /* the file and every step of its path */
    if (fd < 0) {
        int error = errno;
        state_of_path(path, state);
        if (error == ENOENT || error == ENOTDIR)
            return 1;
        if ((*say = first_reading(path, state)))
            jv_log(error == EACCES ? "registry file %s refused: %s" : "registry file %s cannot be read: %s; ignored",
                   path, why);
        return 0;
    }
    if (fstat(fd, &st) != 0) {
        jv_log("registry file %s cannot be read: %s; ignored", path, strerror(errno));
        close(fd);
        state_of_path(path, state);
        return 0;
    }
    state_from_stat(state, &st);
    *say = first_reading(path, state);
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *buf = malloc(cap);
    for (ssize_t n = 1; buf && n > 0;) {
        if (len == cap) { /* the file grew while being read */
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            n = 1;
        else if (n < 0) {
            jv_log("registry file %s cannot be read: %s; ignored", path, strerror(errno));
            free(buf);
            close(fd);
            return 0;
        } else
            len += (size_t)n;
    }
    close(fd);
    if (!buf) {
        jv_log("registry file %s cannot be read: out of memory; ignored", path);
        return 0;
    }
    *data = buf;
    *size = len;
    return 1;
}

/* Merges the file into tree; 0 (logged) when it was refused or unreadable.  *errors counts its bad lines. */
static int load_file(jv_reg_tree *tree, const char *path, unsigned hives, file_state *state, unsigned *errors)
{
    char *data;
    size_t size;
    int say;
    *errors = 0;
    if (!read_trusted(path, &data, &size, state, &say))
        return 0;
    if (data)
        *errors = (say ? jv_reg_parse : jv_reg_parse_quietly)(tree, path, data, size, hives);
    free(data);
    return 1;
}

/* ---- The merged tree readers use ------------------------------------------------------------------ */

typedef struct source_file {
    char *path;
    unsigned hives; /* what it may hold */
    file_state state;
} source_file;

/* The files of the registry in merge order, as the environment names them now; NULL when out of memory. */
static source_file *list_files(size_t *count)
{
    const char *extra = getenv("JEVMON_REGISTRY_FILES");
    size_t max = 3 + (extra ? strlen(extra) : 0), n = 0;
    source_file *files = calloc(max, sizeof(*files));
    if (!files)
        return NULL;
    files[n].path = system_file();
    files[n++].hives = SYSTEM_HIVES;
    files[n].path = user_file();
    files[n].hives = USER_HIVES;
    n += files[n].path != NULL;
    for (const char *p = extra; p && *p;) {
        size_t len = strcspn(p, ":");
        if (len) { /* "a::b" and a trailing ':' name no file */
            files[n].path = strndup(p, len);
            files[n++].hives = JV_REG_ALL_HIVES;
        }
        p += len + (p[len] == ':');
    }
    for (size_t i = 0; i < n; i++)
        if (!files[i].path) {
            for (size_t k = 0; k < n; k++)
                free(files[k].path);
            free(files);
            return NULL;
        }
    *count = n;
    return files;
}

static void free_files(source_file *files, size_t count)
{
    for (size_t i = 0; files && i < count; i++)
        free(files[i].path);
    free(files);
}

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

/* The merged registry, under registry_lock. */
static struct {
    source_file *files;
    size_t count;
    jv_reg_tree *tree;
    unsigned failed_hives; /* those a refused or unreadable file may hold */
} cache;

static int cache_is_current(const source_file *files, size_t count)
{
    if (!cache.tree || count != cache.count)
        return 0;
    for (size_t i = 0; i < count; i++) {
        file_state now;
        state_of_path(files[i].path, &now);
        if (strcmp(files[i].path, cache.files[i].path) != 0 || files[i].hives != cache.files[i].hives ||
            !same_state(&now, &cache.files[i].state))
            return 0;
    }
    return 1;
}

static void cache_drop(void)
{
    free_files(cache.files, cache.count);
    jv_reg_tree_free(cache.tree);
    memset(&cache, 0, sizeof(cache));
}

/*
 * Takes registry_lock and returns the merged tree, read again if a file changed; NULL
 * (lock released, logged) when a file of hive was refused or unreadable, or out of memory.
 */
static const jv_reg_tree *lock_tree(plat_hive hive)
{
    size_t count;
    pthread_mutex_lock(&registry_lock);
    source_file *files = list_files(&count);
    if (!files) {
        pthread_mutex_unlock(&registry_lock);
        jv_log("registry: out of memory");
        return NULL;
    }
    if (cache_is_current(files, count)) {
        free_files(files, count);
    } else {
        cache_drop();
        cache.tree = jv_reg_tree_create();
        cache.files = files;
        cache.count = count;
        for (size_t i = 0; cache.tree && i < count; i++) {
            unsigned errors;
            if (!load_file(cache.tree, files[i].path, files[i].hives, &files[i].state, &errors))
                cache.failed_hives |= files[i].hives;
        }
        if (!cache.tree) {
            cache_drop();
            pthread_mutex_unlock(&registry_lock);
            jv_log("registry: out of memory");
            return NULL;
        }
    }
    if (cache.failed_hives & hives_read_by(hive)) {
        pthread_mutex_unlock(&registry_lock);
        return NULL;
    }
    return cache.tree;
}

static void unlock_tree(void)
{
    pthread_mutex_unlock(&registry_lock);
}

plat_reg_status plat_reg_get_string(plat_hive hive, const char *key, const char *name, char **value)
{
    const jv_reg_tree *tree = lock_tree(hive);
    if (!tree)
        return PLAT_REG_ERROR;
    plat_reg_status status = jv_reg_get_string(tree, hive, key, name, value);
    unlock_tree();
    return status;
}

plat_reg_status plat_reg_get_dword(plat_hive hive, const char *key, const char *name, DWORD *value)
{
    const jv_reg_tree *tree = lock_tree(hive);
    if (!tree)
        return PLAT_REG_ERROR;
    plat_reg_status status = jv_reg_get_dword(tree, hive, key, name, value);
    unlock_tree();
    return status;
}

plat_reg_status plat_reg_subkeys(plat_hive hive, const char *key, char ***names, size_t *count)
{
    *names = NULL; /* an empty list whatever happens, for callers that free it regardless */
    *count = 0;
    const jv_reg_tree *tree = lock_tree(hive);
    if (!tree)
        return PLAT_REG_ERROR;
    plat_reg_status status = jv_reg_subkeys(tree, hive, key, names, count);
    unlock_tree();
    return status;
}

/* ---- Writing ------------------------------------------------------------------------------------ */

/* Creates the directories above path that are missing; 0 (errno set) on failure. */
static int make_parent_dirs(char *path)
{
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        int failed = mkdir(path, 0755) != 0 && errno != EEXIST;
        *slash = '/';
        if (failed)
            return 0;
    }
    return 1;
}

/* Replaces the file at path with text, atomically: readers see the old file or the new one. */
static int replace_file(const char *path, const char *text, size_t len)
{
    char *dir_end, *temp = malloc(strlen(path) + 16);
    const char *step = "cannot create its directory";
    int fd = -1, created = 0;
    if (!temp) {
        jv_log("registry file %s cannot be written: out of memory", path);
        return 0;
    }
    strcpy(temp, path);
    dir_end = strrchr(temp, '/');
    /* A hidden temporary file beside it, so that rename stays within one file system. */
    if (dir_end)
        sprintf(dir_end + 1, ".%s.XXXXXX", strrchr(path, '/') + 1);
    else
        sprintf(temp, ".%s.XXXXXX", path);
    if (!make_parent_dirs(temp))
        goto failed;
    step = "cannot create a temporary file beside it";
    if ((fd = mkostemp(temp, O_CLOEXEC)) < 0)
        goto failed;
    created = 1;
    step = "cannot write the temporary file";
    for (size_t done = 0; done < len;) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno != EINTR)
            goto failed;
        done += n > 0 ? (size_t)n : 0;
    }
    if (fchmod(fd, 0644) != 0 || fsync(fd) != 0)
        goto failed;
    step = "cannot close the temporary file";
    if (close(fd) != 0) {
        fd = -1;
        goto failed;
    }
    fd = -1;
    step = "cannot rename the temporary file over it";
    if (rename(temp, path) != 0)
        goto failed;
    free(temp);
    return 1;
failed:
    jv_log("registry file %s cannot be written: %s: %s", path, step, strerror(errno));
    if (fd >= 0)
        close(fd);
    if (created)
        unlink(temp);
    free(temp);
    return 0;
}

typedef struct reg_change {
    enum { SET_STRING, SET_DWORD, DELETE_TREE } kind;
    const char *key, *name, *text;
    DWORD dword;
} reg_change;

/* Applies change to the hive's file: read it, change the tree, write it back. */
static plat_reg_status change_hive_file(plat_hive hive, const reg_change *change)
{
    char *path = file_of_hive(hive);
    jv_reg_tree *tree = jv_reg_tree_create();
    plat_reg_status status = PLAT_REG_ERROR;
    file_state state;
    unsigned errors;
    if (!path || !tree) {
        if (path)
            jv_log("registry: out of memory");
        goto done;
    }
    pthread_mutex_lock(&registry_lock);
    if (!load_file(tree, path, hive == PLAT_HKCU ? USER_HIVES : SYSTEM_HIVES, &state, &errors)) {
        /* refused or unreadable: logged */
    } else if (errors) {
        jv_log("registry file %s is not rewritten: it has malformed lines (above) the rewrite would drop", path);
    } else {
        switch (change->kind) {
        case SET_STRING:
            status = jv_reg_set_string(tree, hive, change->key, change->name, change->text);
            break;
        case SET_DWORD:
            status = jv_reg_set_dword(tree, hive, change->key, change->name, change->dword);
            break;
        case DELETE_TREE:
            status = jv_reg_delete_tree(tree, hive, change->key);
            break;
        }
        size_t len;
        char *text = status == PLAT_REG_OK ? jv_reg_write(tree, hive, &len) : NULL;
        if (status == PLAT_REG_OK && (!text || !replace_file(path, text, len))) {
            if (!text)
                jv_log("registry file %s cannot be written: out of memory", path);
            status = PLAT_REG_ERROR;
        }
        free(text);
        cache_drop(); /* readers see the change even within the file system's time resolution */
    }
    pthread_mutex_unlock(&registry_lock);
done:
    jv_reg_tree_free(tree);
    free(path);
    return status;
}

plat_reg_status plat_reg_set_string(plat_hive hive, const char *key, const char *name, const char *value)
{
    reg_change change = {SET_STRING, key, name, value, 0};
    return change_hive_file(hive, &change);
}

plat_reg_status plat_reg_set_dword(plat_hive hive, const char *key, const char *name, DWORD value)
{
    reg_change change = {SET_DWORD, key, name, NULL, value};
    return change_hive_file(hive, &change);
}

plat_reg_status plat_reg_delete_tree(plat_hive hive, const char *key)
{
    reg_change change = {DELETE_TREE, key, NULL, NULL, 0};
    return change_hive_file(hive, &change);
}
