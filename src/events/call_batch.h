/*
 * call_batch.h - method calls in batches (docs/call-batches.md): the monitors that take them
 * (IJevmonCallBatches), each OS thread's records of the calls made on it, and their delivery to
 * those monitors' callbacks.
 *
 * A record is stored inline by the method-call paths (instrument.c, method_call.c): a thread's
 * own buffer, its owner the Java thread the records are of.  Another thread takes the buffer only
 * in jv_call_batches_flush, with a handshake: the owner marks it busy while it stores or delivers,
 * the flushing thread raises flushing and waits until the owner is not busy.  Where the system has
 * a process-wide barrier the flushing thread issues it, and the owner's side takes no fence.
 */
#ifndef JEVMON_CALL_BATCH_H
#define JEVMON_CALL_BATCH_H

#include <stdatomic.h>
#include <stdint.h>

#include "dispatch/dispatch.h"
#include "ids/thread.h"
#include "platform/platform.h"

#define JV_CALL_BATCH 1024 /* records a batch holds: one callback per 512 calls of a thread */

typedef struct jv_call_buffer {
    atomic_int busy;     /* the owning OS thread stores a record or delivers the batch */
    atomic_int flushing; /* another thread delivers the batch: the owning thread waits */
    jv_thread *owner;    /* whose records they are (a carrier's mounted virtual thread's) */
    ThreadID owner_id;
    uint32_t fill;       /* records held; 0: the owner is set again by the next record */
    struct jv_call_buffer *next;
    JEVMON_CALL_RECORD records[JV_CALL_BATCH];
} jv_call_buffer;

/* The calling OS thread's buffer, NULL before its first record. */
extern _Thread_local jv_call_buffer *jv_call_buffer_self;

void jv_call_batches_init(void);

/* Registers m's callback (NULL: m's calls come as MethodEntry and MethodExit2 again, after the
 * records held so far are delivered).  A replaced callback stays referenced until the end. */
HRESULT jv_call_batches_register(jv_monitor *m, IJevmonCallBatchCallback *callback);

/* The records that cannot be stored inline: a new batch, a full one, another owner, a flush under way. */
void jv_call_batch_store_slow(jv_thread *t, MethodID method, DWORD kind, uint64_t ticks);

/* Records a call's entry or exit (JEVMON_CALL_KIND) of the calling thread's Java thread t. */
static inline void jv_call_batch_store(jv_thread *t, MethodID method, DWORD kind)
{
    uint64_t ticks = plat_ticks();
    jv_call_buffer *b = jv_call_buffer_self;
    /* fill 0 goes the slow way: the owner is set anew, so a released thread's entry, reused, is not taken for it */
    if (b && b->owner == t && b->fill - 1u < JV_CALL_BATCH - 1u) {
        if (jv_dispatch_plain_counts) {
            atomic_store_explicit(&b->busy, 1, memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst); /* busy before flushing: the flusher's barrier does the rest */
        } else {
            atomic_store(&b->busy, 1);
        }
        if (!atomic_load_explicit(&b->flushing, memory_order_relaxed)) {
            b->records[b->fill++] = (JEVMON_CALL_RECORD){ticks, method, kind};
            atomic_store_explicit(&b->busy, 0, memory_order_release);
            return;
        }
        atomic_store_explicit(&b->busy, 0, memory_order_release);
    }
    jv_call_batch_store_slow(t, method, kind, ticks);
}

/* Hands the calling OS thread's records to the callbacks: before its Java thread's THREAD_DESTROY
 * and when a virtual thread leaves it.  ending: the OS thread ends too; its buffer is freed. */
void jv_call_batches_deliver_own(int ending);
/* Hands every thread's records so far to the callbacks, on the calling thread.  E_UNEXPECTED
 * inside a callback's batch. */
HRESULT jv_call_batches_flush(void);
/* At the end, once no callback runs: every record delivered, the callbacks and buffers released. */
void jv_call_batches_stop(void);

#endif
