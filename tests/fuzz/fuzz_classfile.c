/* fuzz_classfile.c - libFuzzer target over the class-file reader and rewriter (`make fuzz`; oracle in tests/posix/fuzz_oracles). */
#include <stdio.h>
#include <stdlib.h>

#include "../posix/fuzz_oracles/oracles.h"

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
