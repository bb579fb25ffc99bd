/*
 * test_docs_style.c - the documentation reads as reference, not as a log (test_docs.c: it holds
 * together).
 * - No page of docs/ but the API reference passes 300 lines.
 * - No page holds a table cell over 200 characters, a sentence over SENTENCE_MAX_WORDS words, or a
 *   log's words ("now", "no longer", "before the fix").
 * - docs/benchmarks.md is the current tables: each section dated, the page short.
 * Each check has a twin that runs it on a text made to fail it.
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../support/testkit.h"
#include "docs_pages.h"

#define DOC_MAX_LINES 300 /* a reference page, not a log */
#define CELL_MAX_CHARS 200 /* the detail goes to a paragraph under the table */
#define SENTENCE_MAX_WORDS 50 /* "about 25" on average: a longer one is a list or several sentences */
#define BENCHMARKS_MAX_LINES 180 /* one table per part of `make bench`, with its date */

/* docs/ is reference: a page past 300 lines is split by subject.  The API reference, one
 * table per interface, is the exception. */
START_TEST(docs_pages_are_at_most_300_lines)
{
    docs_find_pages();
    for (int i = 0; i < docs_npages; i++) {
        if (strncmp(docs_pages[i], "docs/", 5) != 0 || strcmp(docs_pages[i], "docs/api.md") == 0)
            continue;
        char *text = docs_read_page(docs_pages[i]);
        int lines = tk_count(text, "\n");
        ck_assert_msg(lines <= DOC_MAX_LINES, "%s has %d lines; at most %d: split it by subject", docs_pages[i], lines,
                      DOC_MAX_LINES);
        free(text);
    }
}
END_TEST

/* The longest table cell of a page (outside code blocks), its length in *length and its line in
 * *line_number. */
static const char *longest_cell(const char *text, size_t *length, int *line_number)
{
    const char *longest = NULL;
    int in_code = 0, number = 0;
    *length = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        number++;
        if (len >= 3 && strncmp(line, "```", 3) == 0)
            in_code = !in_code;
        else if (!in_code && line[0] == '|')
            for (const char *cell = line + 1; cell < line + len;) {
                const char *bar = memchr(cell, '|', (size_t)(line + len - cell));
                size_t cell_len = bar ? (size_t)(bar - cell) : (size_t)(line + len - cell);
                if (cell_len > *length) {
                    *length = cell_len;
                    longest = cell;
                    *line_number = number;
                }
                cell += cell_len + 1;
            }
        line = end ? end + 1 : line + len;
    }
    return longest;
}

START_TEST(table_cells_are_short)
{
    docs_find_pages();
    for (int i = 0; i < docs_npages; i++) {
        char *text = docs_read_page(docs_pages[i]);
        size_t length;
        int line = 0;
        const char *cell = longest_cell(text, &length, &line);
        ck_assert_msg(length <= CELL_MAX_CHARS, "%s:%d: a table cell of %zu characters ('%.60s...'); at most %d",
                      docs_pages[i], line, length, cell ? cell : "", CELL_MAX_CHARS);
        free(text);
    }
}
END_TEST

START_TEST(the_cell_check_finds_what_it_should)
{
    char page[1024];
    snprintf(page, sizeof(page), "# t\n\n| a | b |\n| --- | --- |\n| x | %0400d |\n", 0);
    size_t length;
    int line = 0;
    ck_assert_ptr_nonnull(longest_cell(page, &length, &line));
    ck_assert_uint_eq(length, 402);
    ck_assert_int_eq(line, 5);
    longest_cell("```\n| not a table, a code block's line |\n```\ntext\n", &length, &line);
    ck_assert_uint_eq(length, 0);
}
END_TEST

/* The words of a sentence, counted by longest_sentence. */
typedef struct sentence_count {
    int words, line;
    const char *start;
    int longest, longest_line;
    const char *longest_start;
} sentence_count;

static void end_sentence(sentence_count *s)
{
    if (s->words > s->longest) {
        s->longest = s->words;
        s->longest_line = s->line;
        s->longest_start = s->start;
    }
    s->words = 0;
}

/* The length of the marker ("- ", "* " or "12. ") that opens a list item at line (its
 * indentation skipped), or 0 where no item opens. */
static size_t list_marker(const char *line)
{
    if ((line[0] == '-' || line[0] == '*') && line[1] == ' ')
        return 2;
    size_t digits = strspn(line, "0123456789");
    return digits > 0 && line[digits] == '.' && line[digits + 1] == ' ' ? digits + 2 : 0;
}

/* Counts the words of one line of prose into s; a word ending in '.', '!' or '?' (before closing
 * brackets, quotes or emphasis) ends a sentence. */
static void count_words(sentence_count *s, const char *line, size_t len, int number)
{
    for (size_t i = 0; i < len; i++) {
        if (isspace((unsigned char)line[i]) || (i > 0 && !isspace((unsigned char)line[i - 1])))
            continue;
        if (s->words++ == 0) {
            s->start = line + i;
            s->line = number;
        }
        size_t end = i;
        while (end + 1 < len && !isspace((unsigned char)line[end + 1]))
            end++;
        size_t last = end;
        while (last > i && strchr(")]\"'`*_", line[last]))
            last--;
        if (line[last] == '.' || line[last] == '!' || line[last] == '?')
            end_sentence(s);
    }
}

/* The longest sentence of a page's prose, in words; its start in *where and its line in
 * *line_number.  Code blocks (fenced, or indented four spaces after a blank line), tables and
 * headings are not prose; a paragraph, a list item and a heading end a sentence. */
static int longest_sentence(const char *text, const char **where, int *line_number)
{
    sentence_count s = {0, 0, NULL, 0, 0, NULL};
    int in_code = 0, indented_code = 0, previous_blank = 1, number = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        size_t indent = strspn(line, " ");
        int blank = indent >= len;
        number++;
        if (blank)
            indented_code = 0;
        else if (previous_blank && indent >= 4 && !in_code)
            indented_code = 1;
        int fence = !blank && len - indent >= 3 && strncmp(line + indent, "```", 3) == 0;
        if (fence)
            in_code = !in_code;
        int prose = !blank && !fence && !in_code && !indented_code && line[indent] != '|' && line[indent] != '#';
        size_t marker = prose ? list_marker(line + indent) : 0;
        if (!prose || marker)
            end_sentence(&s);
        if (prose)
            count_words(&s, line + indent + marker, len - indent - marker, number);
        previous_blank = blank;
        line = end ? end + 1 : line + len;
    }
    end_sentence(&s);
    *where = s.longest_start;
    *line_number = s.longest_line;
    return s.longest;
}

/* "Sentences of about 25 words": a page of run-on sentences reads as a log.  The limit is the
 * longest a list or a dense reference sentence may grow before it is split. */
START_TEST(sentences_are_short)
{
    docs_find_pages();
    for (int i = 0; i < docs_npages; i++) {
        char *text = docs_read_page(docs_pages[i]);
        const char *where;
        int line = 0;
        int words = longest_sentence(text, &where, &line);
        ck_assert_msg(words <= SENTENCE_MAX_WORDS, "%s:%d: a sentence of %d words ('%.60s...'); at most %d", docs_pages[i],
                      line, words, where ? where : "", SENTENCE_MAX_WORDS);
        free(text);
    }
}
END_TEST

START_TEST(the_sentence_check_finds_what_it_should)
{
    const char *where;
    int line;
    char page[2048] = "# t\n\nOne two three. Four five\nsix (seven eight).\n\n";
    ck_assert_int_eq(longest_sentence(page, &where, &line), 5);
    ck_assert_int_eq(line, 3);
    ck_assert(strncmp(where, "Four", 4) == 0);
    ck_assert_int_eq(longest_sentence("- a b c\n- d e\n\n| x y z w v u t s |\n", &where, &line), 3);
    ck_assert_int_eq(longest_sentence("a b:\n\n    code code code code\n\n```\nx y z w\n```\n", &where, &line), 2);
    for (int i = 0; i < 70; i++)
        strcat(page, "word ");
    strcat(page, "end.\n");
    ck_assert_int_eq(longest_sentence(page, &where, &line), 71);
}
END_TEST

/* The words of a log, not of a reference: what the code did once belongs in CHANGELOG.md. */
static const char *const history_phrases[] = {"no longer", "used to be", "before the fix", "after the fix", "now"};

/* The first history phrase in text as whole words (case aside), or NULL. */
static const char *history_phrase(const char *text)
{
    size_t size = strlen(text) + 1;
    char *lower = malloc(size);
    ck_assert_ptr_nonnull(lower);
    for (size_t i = 0; i < size; i++)
        lower[i] = (char)tolower((unsigned char)text[i]);
    const char *found = NULL;
    for (size_t i = 0; !found && i < sizeof(history_phrases) / sizeof(history_phrases[0]); i++) {
        size_t len = strlen(history_phrases[i]);
        for (const char *p = strstr(lower, history_phrases[i]); p && !found; p = strstr(p + 1, history_phrases[i]))
            if ((p == lower || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[len]))
                found = history_phrases[i];
    }
    free(lower);
    return found;
}

START_TEST(docs_are_in_the_present_tense)
{
    docs_find_pages();
    for (int i = 0; i < docs_npages; i++) {
        char *text = docs_read_page(docs_pages[i]);
        const char *phrase = history_phrase(text);
        ck_assert_msg(phrase == NULL, "%s says \"%s\": the history belongs in CHANGELOG.md", docs_pages[i], phrase);
        free(text);
    }
    ck_assert_str_eq(history_phrase("The bridge now counts it"), "now");
    ck_assert_str_eq(history_phrase("It No longer fails"), "no longer");
    ck_assert_ptr_null(history_phrase("a known thread, snow, nowhere"));
}
END_TEST

/* Whether text holds a date written 2026-11-29. */
static int has_date(const char *text, size_t len)
{
    static const char shape[] = "dddd-dd-dd";
    for (size_t i = 0; i + sizeof(shape) - 1 <= len; i++) {
        size_t k = 0;
        while (shape[k] && (shape[k] == 'd' ? isdigit((unsigned char)text[i + k]) : text[i + k] == shape[k]))
            k++;
        if (!shape[k])
            return 1;
    }
    return 0;
}

/* docs/benchmarks.md holds the current tables of `make bench`, not the log of how they came
 * about: the page stays short, and every section has a table whose figures are dated before it. */
START_TEST(benchmarks_are_current_tables)
{
    char *page = docs_read_page("docs/benchmarks.md");
    int lines = tk_count(page, "\n");
    ck_assert_msg(lines <= BENCHMARKS_MAX_LINES,
                  "docs/benchmarks.md has %d lines; at most %d: the older figures go to CHANGELOG.md", lines,
                  BENCHMARKS_MAX_LINES);
    int sections = 0;
    for (const char *s = strstr(page, "\n## "); s; s = strstr(s + 1, "\n## ")) {
        const char *next = strstr(s + 1, "\n## ");
        const char *table = strstr(s, "\n| ");
        ck_assert_msg(table && (!next || table < next), "docs/benchmarks.md: section '%.40s' has no table", s + 4);
        ck_assert_msg(has_date(s, (size_t)(table - s)), "docs/benchmarks.md: section '%.40s' does not date its figures",
                      s + 4);
        sections++;
    }
    ck_assert_int_ge(sections, 5);
    free(page);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("docs_style");
    TCase *tc = tcase_create("docs_style");
    tcase_add_test(tc, docs_pages_are_at_most_300_lines);
    tcase_add_test(tc, table_cells_are_short);
    tcase_add_test(tc, the_cell_check_finds_what_it_should);
    tcase_add_test(tc, sentences_are_short);
    tcase_add_test(tc, the_sentence_check_finds_what_it_should);
    tcase_add_test(tc, docs_are_in_the_present_tense);
    tcase_add_test(tc, benchmarks_are_current_tables);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
