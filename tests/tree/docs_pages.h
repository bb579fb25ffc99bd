/*
 * docs_pages.h - the pages test_docs and test_docs_style read (docs_pages.c).
 */
#ifndef JEVMON_TESTS_DOCS_PAGES_H
#define JEVMON_TESTS_DOCS_PAGES_H

#define DOCS_MAX_PAGES 64

/* The pages found by docs_find_pages, as paths relative to the source tree. */
extern char docs_pages[DOCS_MAX_PAGES][256];
extern int docs_npages;

/* The source tree (JEVMON_SRC). */
const char *docs_source_dir(void);
/* README.md, the README.md of each top-level folder and of each folder of src/, and every .md file
 * of docs/, sorted so that failures read in order. */
void docs_find_pages(void);
/* A page's text (malloc'd); fails the test when it is missing or empty. */
char *docs_read_page(const char *page);

#endif
