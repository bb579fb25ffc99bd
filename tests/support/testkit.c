/* testkit.c - helpers every test suite may use (see testkit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "testkit.h"

char *tk_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long size = 0;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        size = 0;
    char *text = calloc(1, (size_t)size + 1);
    if (f && text && fread(text, 1, (size_t)size, f) != (size_t)size)
        text[0] = '\0';
    if (f)
        fclose(f);
    return text;
}

/* A plain scan: under ASan every strstr call measures the rest of the text, which made
 * counting in a long monitor log quadratic. */
int tk_count(const char *text, const char *what)
{
    size_t length = strlen(what);
    int n = 0;
    for (const char *p = text; p && *p && length;)
        if (*p == *what && strncmp(p, what, length) == 0) {
            n++;
            p += length;
        } else
            p++;
    return n;
}

char tk_log_lines[TK_LOG_KEPT][1024];
int tk_log_count;

static void capture_line(const char *line, void *context)
{
    (void)context;
    if (tk_log_count < TK_LOG_KEPT)
        snprintf(tk_log_lines[tk_log_count], sizeof(tk_log_lines[0]), "%s", line);
    tk_log_count++;
}

void tk_capture_log(void)
{
    tk_log_count = 0;
    jv_log_set_sink(capture_line, NULL);
}

int tk_logged(const char *text)
{
    int n = 0;
    for (int i = 0; i < tk_log_count && i < TK_LOG_KEPT; i++)
        n += strstr(tk_log_lines[i], text) != NULL;
    return n;
}

int tk_run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
