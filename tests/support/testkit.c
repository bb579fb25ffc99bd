/* testkit.c - helpers every test suite may use (see testkit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "testkit.h"

char *tk_read_file(const char *path)
{
    /* read to the end rather than by the size ftell reports: /proc files say 0 */
    FILE *f = fopen(path, "rb");
    size_t size = 0, capacity = 4096;
    char *text = malloc(capacity);
    while (f && text) {
        size += fread(text + size, 1, capacity - size - 1, f);
        if (size < capacity - 1)
            break;
        char *grown = realloc(text, capacity *= 2);
        if (!grown)
            free(text);
        text = grown;
    }
    if (text)
        text[f && !ferror(f) ? size : 0] = '\0';
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
    /* A failure's message may carry a whole report (a jevprof report with every path is tens of
     * KiB): past Check's 4 KiB it ends the test with "Message string too long" and no message. */
    check_set_max_msg_size(1u << 20);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
