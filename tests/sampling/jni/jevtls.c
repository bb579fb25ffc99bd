/*
 * jevtls.c - libjevtls.so, the library NativeWorkload's tls mode loads and unloads again and
 * again (libjevnative.so's churnTls): 16 KiB of thread-locals, of the model a library loaded at run
 * time has (global-dynamic: each access asks the C library's __tls_get_addr), so that each
 * thread that touches them gets a block of its own from malloc, and each load and unload moves
 * the process's generation of thread-locals.
 */
static __thread unsigned char block[16384];

/* Touches the calling thread's block (the first touch allocates it); a byte of it. */
__attribute__((visibility("default"))) unsigned jevtls_touch(unsigned seed)
{
    block[seed % sizeof(block)] = (unsigned char)seed;
    return block[0];
}
