/* classfile.c - the class-file reader's and rewriter's oracle (oracles.h). */
#include <stdlib.h>
#include <string.h>

#include "classfile/classfile.h"
#include "oracles.h"
#include "platform/platform.h"

static void discard(const char *line, void *context)
{
    (void)line, (void)context;
}

static int32_t next_id(void *context, const cf_method_info *method)
{
    (void)method;
    return (*(int32_t *)context)++;
}

/* parse -> write of bytes gives them back; NULL when it does (or they do not parse). */
static const char *round_trip(const uint8_t *data, size_t size, int must_parse)
{
    char error[256];
    uint8_t *out = NULL;
    size_t out_size = 0;
    const char *failure = NULL;
    cf_class *cls = cf_parse(data, size, error, sizeof(error));
    if (!cls)
        return must_parse ? "the rewritten class does not parse" : NULL;
    if (cf_write(cls, &out, &out_size, error, sizeof(error)) != 0)
        failure = "a parsed class cannot be written";
    else if (out_size != size || memcmp(out, data, size) != 0)
        failure = "parse -> write did not give the input back";
    free(out);
    cf_free(cls);
    return failure;
}

const char *fuzz_classfile_check(const uint8_t *data, size_t size)
{
    int32_t ids = 0;
    const cf_hooks hooks = {"jevmon/Bridge", "enter", "(I)V", "exit", "(I)V", "on", "[B",
                            next_id, NULL, &ids, "unwind", "(I)V", NULL};
    char error[256];
    uint8_t *out = NULL;
    size_t out_size = 0;
    const char *failure = round_trip(data, size, 0);
    if (failure)
        return failure;
    jv_log_set_sink(discard, NULL); /* methods left alone are logged */
    if (cf_instrument_class(data, size, &hooks, &out, &out_size, NULL, error, sizeof(error)) == 1)
        failure = round_trip(out, out_size, 1);
    jv_log_set_sink(NULL, NULL);
    free(out);
    return failure;
}
