/* The C baseline of issue 18: retrograde analysis (Knuth, TAOCP 2.2.3 ex. 28) under normal
 * play as a plain C program, read, solved and written as a whole process.
 *
 *   retrograde GRAPH.bin LABELS.bin
 *
 * GRAPH.bin: int64 n, int64 m, int32 succ_ptr[n + 1], int32 succ_idx[m], int8 end[n]
 * (little-endian, the arrays of a case's .npz, written by benchmarks/bench_c_baseline.py; end:
 * the declared label of a position without moves, 1 won, -1 lost, 0 drawn). LABELS.bin: int8
 * label[n] (1 won, -1 lost, 0 drawn) then int32 remoteness[n] (-1 for drawn nodes).
 *
 * A position without moves has its declared label (lost, in normal play proper). Backward
 * propagation over predecessor lists with a successor counter per node, one FIFO queue: a predecessor of a lost
 * node is won; a predecessor whose successors are all won is lost. FIFO order gives the
 * remoteness: won = 1 + the least remoteness of a lost successor, lost = 1 + the largest of
 * its (won) successors. O(n + m) time, 4n + 4m + 4n bytes beside the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void *take(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "retrograde: out of memory (%zu bytes)\n", bytes);
        exit(3);
    }
    return p;
}

static void read_all(FILE *f, void *buf, size_t size, size_t count, const char *what) {
    if (fread(buf, size, count, f) != count) {
        fprintf(stderr, "retrograde: short read (%s)\n", what);
        exit(2);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: retrograde GRAPH.bin LABELS.bin\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    int64_t nm[2];
    read_all(in, nm, sizeof(int64_t), 2, "header");
    const int64_t n = nm[0], m = nm[1];
    int32_t *ptr = take(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *idx = take(sizeof(int32_t) * (size_t)m);
    read_all(in, ptr, sizeof(int32_t), (size_t)(n + 1), "succ_ptr");
    read_all(in, idx, sizeof(int32_t), (size_t)m, "succ_idx");
    int8_t *label = take((size_t)n);
    read_all(in, label, 1, (size_t)n, "end");
    fclose(in);

    /* predecessor lists: counting sort of the moves by target */
    int32_t *pptr = calloc((size_t)(n + 1), sizeof(int32_t));
    int32_t *pidx = take(sizeof(int32_t) * (size_t)m);
    int32_t *count = take(sizeof(int32_t) * (size_t)n);
    if (!pptr) return 3;
    for (int64_t e = 0; e < m; e++) pptr[idx[e] + 1]++;
    for (int64_t x = 0; x < n; x++) pptr[x + 1] += pptr[x];
    for (int64_t x = 0; x < n; x++) count[x] = pptr[x];
    for (int64_t x = 0; x < n; x++)
        for (int32_t e = ptr[x]; e < ptr[x + 1]; e++) pidx[count[idx[e]]++] = (int32_t)x;

    int32_t *rem = take(sizeof(int32_t) * (size_t)n);
    int32_t *queue = count; /* reused: the counters live in rem until a node is labelled */
    int64_t head = 0, tail = 0;
    for (int64_t x = 0; x < n; x++) {
        rem[x] = ptr[x + 1] - ptr[x]; /* the counter until x is labelled, then its remoteness */
        if (rem[x] != 0)
            label[x] = 0;
        else if (label[x] != 0) /* a declared draw stays drawn and is never queued */
            queue[tail++] = (int32_t)x;
    }
    while (head < tail) {
        const int32_t y = queue[head++];
        for (int32_t e = pptr[y]; e < pptr[y + 1]; e++) {
            const int32_t x = pidx[e];
            if (label[x]) continue;
            if (label[y] < 0) { /* a move to a lost position: won */
                label[x] = 1;
                rem[x] = rem[y] + 1;
                queue[tail++] = x;
            } else if (--rem[x] == 0) { /* every move leads to a won position: lost */
                label[x] = -1;
                rem[x] = rem[y] + 1;
                queue[tail++] = x;
            }
        }
    }
    for (int64_t x = 0; x < n; x++)
        if (!label[x]) rem[x] = -1;

    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 2;
    }
    if (fwrite(label, 1, (size_t)n, out) != (size_t)n ||
        fwrite(rem, sizeof(int32_t), (size_t)n, out) != (size_t)n) {
        fprintf(stderr, "retrograde: short write\n");
        return 2;
    }
    fclose(out);
    free(ptr), free(idx), free(pptr), free(pidx), free(count), free(label), free(rem);
    return 0;
}
