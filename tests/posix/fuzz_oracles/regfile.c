/* regfile.c - the registry parser's oracle (oracles.h). */
#include <stdlib.h>
#include <string.h>

#include "com/regfile.h"
#include "oracles.h"

static void discard(const char *line, void *context)
{
    (void)line, (void)context;
}

const char *fuzz_regfile_check(const uint8_t *data, size_t size)
{
    static const plat_hive hives[] = {PLAT_HKLM, PLAT_HKCU};
    const char *failure = NULL;
    jv_log_set_sink(discard, NULL); /* the messages are formatted all the same */
    jv_reg_tree *tree = jv_reg_tree_create();
    if (!tree)
        return NULL;
    jv_reg_parse(tree, "fuzz.reg", data, size, JV_REG_ALL_HIVES);
    for (size_t h = 0; !failure && h < sizeof(hives) / sizeof(*hives); h++) {
        size_t first_size = 0, second_size = 0;
        char *first = jv_reg_write(tree, hives[h], &first_size), *second = NULL;
        jv_reg_tree *again = jv_reg_tree_create();
        if (first && again) {
            if (jv_reg_parse(again, "written.reg", first, first_size, JV_REG_ALL_HIVES) != 0)
                failure = "the written file does not parse without errors";
            else if (!(second = jv_reg_write(again, hives[h], &second_size)))
                failure = NULL; /* out of memory: nothing to compare */
            else if (second_size != first_size || memcmp(first, second, first_size) != 0)
                failure = "write -> parse -> write changed the file";
        }
        free(first);
        free(second);
        jv_reg_tree_free(again);
    }
    jv_reg_tree_free(tree);
    jv_log_set_sink(NULL, NULL);
    return failure;
}
