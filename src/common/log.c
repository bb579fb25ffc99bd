/* log.c - the one-line "jevmon:" diagnostics every part of jevmon writes. */
#include <stdio.h>
#include <string.h>

#include "platform/platform.h"

static void (*log_sink)(const char *line, void *context);
static void *log_sink_context;

void jv_log_set_sink(void (*sink)(const char *line, void *context), void *context)
{
    log_sink = sink;
    log_sink_context = context;
}

void jv_vlog(const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "jevmon: ");
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    if (log_sink) {
        line[len] = '\0';
        log_sink(line, log_sink_context);
        return;
    }
    line[len++] = '\n';
    fwrite(line, 1, len, stderr); /* one write, so lines from several threads do not interleave */
    fflush(stderr);
}

void jv_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jv_vlog(fmt, ap);
    va_end(ap);
}
