/* fuzz_classfile.c - libFuzzer target over the class-file reader and rewriter (`make fuzz`; oracle in tests/fuzz/oracles). */
#include <stdio.h>
#include <stdlib.h>

#include "oracles/oracles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *failure = fuzz_classfile_check(data, size);
    if (failure) {
        fprintf(stderr, "fuzz_classfile: %s\n", failure);
        abort();
    }
    return 0;
}
