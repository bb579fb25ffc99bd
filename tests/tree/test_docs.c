/*
 * test_docs.c - the documentation holds together (test_docs_style.c: it reads as reference).
 * - README.md stays a short front page (at most 150 lines, the rest in docs/ by topic).
 * - Every relative link of README.md, the top-level folders' README.md (jevprof's, the
 *   samples') and the .md files of docs/ names a file that exists (and, with a #fragment, a
 *   heading of that file, as GitHub makes its anchors).
 * - The README leads to the architecture's "Follow one event", whose files and functions exist,
 *   and every folder of src/ has a README.md.
 * - Neither a page of user documentation nor a file of the code (src/, tools/, tests/,
 *   monitor/, ...) cites an issue by number (the history is CHANGELOG.md's).
 */
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../support/testkit.h"
#include "docs_pages.h"

#define README_MAX_LINES 150

/* GitHub's anchor for a heading's text: lower case, spaces to '-', other punctuation but '-'
 * and '_' dropped. */
static void anchor_of(const char *heading, size_t len, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < size; i++) {
        unsigned char c = (unsigned char)heading[i];
        if (isalnum(c) || c == '-' || c == '_')
            out[o++] = (char)tolower(c);
        else if (c == ' ')
            out[o++] = '-';
        else if (c >= 0x80) /* UTF-8 letters stay */
            out[o++] = (char)c;
    }
    out[o] = '\0';
}

/* Whether text (a page) has a heading, outside code blocks, whose anchor is fragment. */
static int has_anchor(const char *text, const char *fragment)
{
    int in_code = 0;
    for (const char *line = text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line)) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len >= 3 && strncmp(line, "```", 3) == 0)
            in_code = !in_code;
        else if (!in_code && line[0] == '#') {
            size_t hashes = strspn(line, "#");
            if (hashes < len && line[hashes] == ' ') {
                char anchor[512];
                anchor_of(line + hashes + 1, len - hashes - 1, anchor, sizeof(anchor));
                if (strcmp(anchor, fragment) == 0)
                    return 1;
            }
        }
    }
    return 0;
}

/* Checks one link target written in page; returns 1 when it resolves, else says why in why. */
static int link_resolves(const char *page, const char *page_text, const char *target, char *why, size_t size)
{
    if (strncmp(target, "http://", 7) == 0 || strncmp(target, "https://", 8) == 0 || strncmp(target, "mailto:", 7) == 0)
        return 1;
    char file[1024];
    snprintf(file, sizeof(file), "%s", target);
    char *hash = strchr(file, '#');
    const char *fragment = NULL;
    if (hash) {
        *hash = '\0';
        fragment = hash + 1;
    }
    char *fragment_page = NULL;
    if (file[0] != '\0') {
        char dir[512];
        snprintf(dir, sizeof(dir), "%s", page);
        char *slash = strrchr(dir, '/');
        if (slash)
            slash[1] = '\0';
        else
            dir[0] = '\0';
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s%s", docs_source_dir(), dir, file);
        struct stat st;
        if (stat(path, &st) != 0) {
            snprintf(why, size, "%s: link to %s: no such file", page, target);
            return 0;
        }
        if (fragment && S_ISREG(st.st_mode))
            fragment_page = tk_read_file(path);
    }
    int ok = 1;
    if (fragment && (fragment_page || file[0] == '\0')) {
        ok = has_anchor(fragment_page ? fragment_page : page_text, fragment);
        if (!ok)
            snprintf(why, size, "%s: link to %s: no heading makes that anchor", page, target);
    }
    free(fragment_page);
    return ok;
}

START_TEST(readme_is_at_most_150_lines)
{
    char *readme = docs_read_page("README.md");
    int lines = tk_count(readme, "\n");
    ck_assert_msg(lines <= README_MAX_LINES, "README.md has %d lines; at most %d, the rest goes to docs/", lines,
                  README_MAX_LINES);
    free(readme);
}
END_TEST

START_TEST(every_relative_link_resolves)
{
    docs_find_pages();
    int links = 0, broken = 0;
    char first_broken[2048] = "";
    for (int i = 0; i < docs_npages; i++) {
        char *text = docs_read_page(docs_pages[i]);
        int in_code = 0;
        for (char *line = text; *line;) {
            char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            if (len >= 3 && strncmp(line, "```", 3) == 0)
                in_code = !in_code;
            for (char *l = line; !in_code && (l = strstr(l, "](")) != NULL && l < line + len; l += 2) {
                char *close = strchr(l + 2, ')');
                if (!close || close > line + len)
                    break;
                char target[1024];
                snprintf(target, sizeof(target), "%.*s", (int)(close - (l + 2)), l + 2);
                char why[2048];
                links++;
                if (!link_resolves(docs_pages[i], text, target, why, sizeof(why))) {
                    fprintf(stderr, "%s\n", why);
                    if (broken++ == 0)
                        snprintf(first_broken, sizeof(first_broken), "%s", why);
                }
            }
            line = end ? end + 1 : line + len;
        }
        free(text);
    }
    ck_assert_msg(broken == 0, "%d of %d links are broken, the first: %s", broken, links, first_broken);
    ck_assert_msg(links >= 30, "only %d links found: README.md should link every docs/ page", links);
}
END_TEST

/* "issue 22", "Issue 8", "issues 20", "issue #27", and with hash_numbers "(#27)": the history's
 * words, not a reader's.  Code writes "#N" for other things (a class file's constant-pool entry
 * "Class #1"), so only the word form counts there. */
static const char *issue_reference(const char *text, int hash_numbers)
{
    for (const char *p = text; *p; p++) {
        if (strncasecmp(p, "issue", 5) == 0 && (p == text || !isalpha((unsigned char)p[-1]))) {
            const char *q = p + 5;
            if (*q == 's')
                q++;
            while (*q == ' ')
                q++;
            if (*q == '#')
                q++;
            if (isdigit((unsigned char)*q))
                return p;
        }
        if (hash_numbers && *p == '#' && isdigit((unsigned char)p[1]) &&
            (p == text || p[-1] == ' ' || p[-1] == '(')) {
            const char *q = p + 1;
            while (isdigit((unsigned char)*q))
                q++;
            if (!isalpha((unsigned char)*q))
                return p;
        }
    }
    return NULL;
}

START_TEST(no_issue_numbers_in_user_documentation)
{
    docs_find_pages();
    for (int i = 0; i < docs_npages; i++) {
        char *text = docs_read_page(docs_pages[i]);
        const char *at = issue_reference(text, 1);
        ck_assert_msg(at == NULL, "%s cites an issue by number (the history belongs in CHANGELOG.md): '%.40s'",
                      docs_pages[i], at ? at : "");
        free(text);
    }
}
END_TEST

/* The folders of code, searched whole; this file is left out, since its own checks below must
 * hold the words they look for. */
static const char *const code_folders[] = {"src", "tools", "tests", "monitor", "samples", "include", "idl", "bin", "mk", "bench"};
#define THIS_FILE "tests/tree/test_docs.c"

/* Calls visit(rel, text, context) for every regular file under dir (relative to the tree), in any
 * order, with the file's path relative to the tree and its text; hidden files are left out, and a
 * folder that is not there has no files. */
static void for_each_file(const char *dir, void (*visit)(const char *rel, const char *text, void *context),
                          void *context)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", docs_source_dir(), dir);
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char rel[2048], full[8192];
        struct stat st;
        snprintf(rel, sizeof(rel), "%s/%s", dir, e->d_name);
        snprintf(full, sizeof(full), "%s/%s", docs_source_dir(), rel);
        if (e->d_name[0] == '.' || stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            for_each_file(rel, visit, context);
        } else if (S_ISREG(st.st_mode)) {
            char *text = tk_read_file(full);
            visit(rel, text, context);
            free(text);
        }
    }
    closedir(d);
}

typedef struct issue_citations {
    int found;
    char first[2200];
} issue_citations;

/* A file that cites an issue by number is named on stderr and counted; the first is kept. */
static void check_issue_citations(const char *rel, const char *text, void *context)
{
    issue_citations *c = context;
    const char *at = strcmp(rel, THIS_FILE) == 0 ? NULL : issue_reference(text, 0);
    if (at) {
        fprintf(stderr, "%s cites an issue by number: '%.40s'\n", rel, at);
        if (c->found++ == 0)
            snprintf(c->first, sizeof(c->first), "%s: '%.40s'", rel, at);
    }
}

START_TEST(no_issue_numbers_in_the_code)
{
    issue_citations c = {0, ""};
    for (size_t i = 0; i < sizeof(code_folders) / sizeof(code_folders[0]); i++)
        for_each_file(code_folders[i], check_issue_citations, &c);
    ck_assert_msg(c.found == 0, "%d files cite an issue by number (the history belongs in CHANGELOG.md), the first %s",
                  c.found, c.first);
}
END_TEST

START_TEST(the_issue_check_finds_what_it_should)
{
    ck_assert_ptr_nonnull(issue_reference("where the layout differs from issue 22's proposal", 1));
    ck_assert_ptr_nonnull(issue_reference("Issue 8 asked for 10x", 1));
    ck_assert_ptr_nonnull(issue_reference("as asked (#27)", 1));
    ck_assert_ptr_nonnull(issue_reference("see issue #31", 1));
    ck_assert_ptr_null(issue_reference("a colour #1f77b4, the issue's figures, `JEVPROF_LOOP=60`", 1));
    ck_assert_ptr_nonnull(issue_reference("/* method calls by bytecode instrumentation (issue 8). */", 0));
    ck_assert_ptr_nonnull(issue_reference("# Real programs (H2, Groovy, JRuby; issues 30)", 0));
    ck_assert_ptr_null(issue_reference("0x07, 0x00, 0x01, /* 2 Class #1 */ tissue 3", 0));
}
END_TEST

typedef struct sources {
    char *text;
    size_t size;
} sources;

/* Appends a .c or .h file's text, after a newline, to the sources "Follow one event" cites. */
static void append_source(const char *rel, const char *text, void *context)
{
    sources *all = context;
    size_t n = strlen(rel), len = strlen(text);
    if (n < 3 || (strcmp(rel + n - 2, ".c") != 0 && strcmp(rel + n - 2, ".h") != 0))
        return;
    all->text = realloc(all->text, all->size + len + 2);
    ck_assert_ptr_nonnull(all->text);
    all->text[all->size++] = '\n';
    memcpy(all->text + all->size, text, len + 1);
    all->size += len;
}

/* Whether name occurs in text as a whole identifier. */
static int has_identifier(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        int starts = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int ends = !(isalnum((unsigned char)p[len]) || p[len] == '_');
        if (starts && ends)
            return 1;
    }
    return 0;
}

/* "Follow one event" names files and functions step by step: every path it cites exists and
 * every function (a backquoted name in lower case with an underscore; the spec's constants are
 * upper case) is in the sources, so that a file moved or a function renamed fails here until the
 * walk-through follows it. */
START_TEST(follow_one_event_names_what_exists)
{
    char *page = docs_read_page("docs/architecture.md");
    const char *start = strstr(page, "\n## Follow one event\n");
    ck_assert_msg(start != NULL, "docs/architecture.md has no section \"Follow one event\"");
    const char *end = strstr(start + 1, "\n## ");
    if (!end)
        end = start + strlen(start);
    sources code = {NULL, 0};
    for_each_file("src", append_source, &code);
    for_each_file("monitor", append_source, &code);
    int paths = 0, functions = 0;
    for (const char *p = strchr(start, '`'); p && p < end;) {
        const char *close = strchr(p + 1, '`');
        if (!close || close > end)
            break;
        char token[256];
        snprintf(token, sizeof(token), "%.*s", (int)(close - p - 1), p + 1);
        size_t n = strlen(token);
        int identifier = n > 0 && strspn(token, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n &&
                         !isdigit((unsigned char)token[0]);
        if (strncmp(token, "src/", 4) == 0 || strncmp(token, "monitor/", 8) == 0 || strncmp(token, "tests/", 6) == 0 ||
            strncmp(token, "tools/", 6) == 0) {
            char path[4096];
            struct stat st;
            snprintf(path, sizeof(path), "%s/%s", docs_source_dir(), token);
            ck_assert_msg(stat(path, &st) == 0, "Follow one event cites %s, which does not exist", token);
            paths++;
        } else if (identifier && strchr(token, '_') && strpbrk(token, "abcdefghijklmnopqrstuvwxyz")) {
            ck_assert_msg(has_identifier(code.text, token), "Follow one event cites %s, which src/ and monitor/ lack",
                          token);
            functions++;
        }
        p = strchr(close + 1, '`');
    }
    ck_assert_int_ge(paths, 20);
    ck_assert_int_ge(functions, 40);
    free(code.text);
    free(page);
}
END_TEST

/* A newcomer reaches the code paths from the front page in one click. */
START_TEST(readme_leads_to_follow_one_event)
{
    char *readme = docs_read_page("README.md");
    ck_assert_msg(strstr(readme, "](docs/architecture.md#follow-one-event)") != NULL,
                  "README.md does not link docs/architecture.md#follow-one-event");
    free(readme);
}
END_TEST

/* Every folder of the bridge says in a README.md what it owns, its main files and what it may call. */
START_TEST(every_src_folder_has_a_readme)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/src", docs_source_dir());
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int folders = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char path[8192];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        folders++;
        snprintf(path, sizeof(path), "%s/%s/README.md", dir, e->d_name);
        ck_assert_msg(stat(path, &st) == 0 && S_ISREG(st.st_mode), "src/%s has no README.md", e->d_name);
    }
    closedir(d);
    ck_assert_int_ge(folders, 10);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("docs");
    TCase *tc = tcase_create("docs");
    tcase_add_test(tc, readme_is_at_most_150_lines);
    tcase_add_test(tc, every_relative_link_resolves);
    tcase_add_test(tc, no_issue_numbers_in_user_documentation);
    tcase_add_test(tc, no_issue_numbers_in_the_code);
    tcase_add_test(tc, the_issue_check_finds_what_it_should);
    tcase_add_test(tc, readme_leads_to_follow_one_event);
    tcase_add_test(tc, follow_one_event_names_what_exists);
    tcase_add_test(tc, every_src_folder_has_a_readme);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
