/*
 * docs_pages.c - the pages the documentation suites read (docs_pages.h): README.md, each top-level
 * folder's README.md and every page of docs/, from the source tree JEVMON_SRC names.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../support/testkit.h"
#include "docs_pages.h"

char docs_pages[DOCS_MAX_PAGES][256];
int docs_npages;

const char *docs_source_dir(void)
{
    const char *root = getenv("JEVMON_SRC");
    ck_assert_msg(root != NULL, "JEVMON_SRC is not set");
    return root;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Adds dir/name to the pages when it is a file of the tree. */
static void add_page_if_present(const char *dir, const char *name)
{
    char page[256], path[4096];
    snprintf(page, sizeof(page), "%s/%s", dir, name);
    snprintf(path, sizeof(path), "%s/%s", docs_source_dir(), page);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        ck_assert_int_lt(docs_npages, DOCS_MAX_PAGES);
        snprintf(docs_pages[docs_npages++], sizeof(docs_pages[0]), "%s", page);
    }
}

void docs_find_pages(void)
{
    docs_npages = 0;
    snprintf(docs_pages[docs_npages++], sizeof(docs_pages[0]), "README.md");
    DIR *top = opendir(docs_source_dir());
    ck_assert_ptr_nonnull(top);
    for (struct dirent *e; (e = readdir(top)) != NULL;)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "build") != 0)
            add_page_if_present(e->d_name, "README.md");
    closedir(top);
    char src[4096];
    snprintf(src, sizeof(src), "%s/src", docs_source_dir());
    DIR *folders = opendir(src);
    ck_assert_ptr_nonnull(folders);
    for (struct dirent *e; (e = readdir(folders)) != NULL;)
        if (e->d_name[0] != '.') {
            char dir[300];
            snprintf(dir, sizeof(dir), "src/%s", e->d_name);
            add_page_if_present(dir, "README.md");
        }
    closedir(folders);
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/docs", docs_source_dir());
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "no docs/ folder at %s", dir);
    int first_doc = docs_npages;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n > 3 && strcmp(e->d_name + n - 3, ".md") == 0)
            add_page_if_present("docs", e->d_name);
    }
    closedir(d);
    qsort(docs_pages[1], (size_t)(first_doc - 1), sizeof(docs_pages[0]), compare_names);
    qsort(docs_pages[first_doc], (size_t)(docs_npages - first_doc), sizeof(docs_pages[0]), compare_names);
    ck_assert_msg(docs_npages - first_doc >= 10, "docs/ holds %d pages", docs_npages - first_doc);
}

char *docs_read_page(const char *page)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", docs_source_dir(), page);
    char *text = tk_read_file(path);
    ck_assert_msg(text[0] != '\0', "%s is missing or empty", page);
    return text;
}
