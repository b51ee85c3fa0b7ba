/* The thread pool of the compiled kernels (_cmetrics.c, _cmeta.c): fn runs over blocks of [0, n) handed out
 * from an atomic counter by n_threads threads (the calling thread is one of them), each with its own zeroed
 * scratch of scratch_size bytes (freed with scratch_free). Units write only their own outputs, so results do not
 * depend on the number of threads. Included by each extension (static functions: one copy per module). */
#ifndef MTSCORE_CPOOL_H
#define MTSCORE_CPOOL_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

typedef int (*block_fn)(void *ctx, void *scratch, int64_t a, int64_t b); /* returns 0, or -1 (no memory) */

typedef struct {
    block_fn fn;
    void *ctx;
    size_t scratch_size;
    void (*scratch_free)(void *);
    int64_t n, block;
    int64_t next; /* atomic */
    int failed;   /* atomic */
} Pool;

static void *pool_worker(void *arg) {
    Pool *P = (Pool *)arg;
    void *scratch = calloc(1, P->scratch_size ? P->scratch_size : 1);
    if (!scratch) {
        __atomic_store_n(&P->failed, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    for (;;) {
        if (__atomic_load_n(&P->failed, __ATOMIC_RELAXED)) break;
        int64_t a = __atomic_fetch_add(&P->next, P->block, __ATOMIC_RELAXED);
        if (a >= P->n) break;
        int64_t b = a + P->block < P->n ? a + P->block : P->n;
        if (P->fn(P->ctx, scratch, a, b) != 0) {
            __atomic_store_n(&P->failed, 1, __ATOMIC_RELAXED);
            break;
        }
    }
    if (P->scratch_free) P->scratch_free(scratch);
    free(scratch);
    return NULL;
}

/* Runs fn over [0, n) in n_threads threads (the calling thread is one of them), blocks of at most max_block
 * items. 0, or -1 (no memory). */
static int run_blocks_max(block_fn fn, void *ctx, size_t scratch_size, void (*scratch_free)(void *), int64_t n,
                          int n_threads, int64_t max_block) {
    if (n <= 0) return 0;
    if (n_threads < 1) n_threads = 1;
    if (n_threads > 256) n_threads = 256;
    if (n_threads > n) n_threads = (int)n;
    Pool P = {fn, ctx, scratch_size, scratch_free, n, 1, 0, 0};
    int64_t blk = n / ((int64_t)n_threads * 16);
    P.block = blk < 1 ? 1 : (blk > max_block ? max_block : blk);
    pthread_t tid[256];
    int started = 0;
    for (int t = 1; t < n_threads; t++) {
        if (pthread_create(&tid[started], NULL, pool_worker, &P) != 0) break; /* fewer threads: same result */
        started++;
    }
    pool_worker(&P);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    return P.failed ? -1 : 0;
}

#endif
