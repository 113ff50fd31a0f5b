"""The numba kernels behind ``verifier.engine.compiled`` (imported only when they are used).

Plain loops over CSR arrays, compiled to machine code by numba (``cache=True``: compiled once
per installation, then loaded from ``__pycache__``). The kernels:

- ``bucket_scatter`` + ``bucket_sort``: the predecessor CSR (a stable transposition), in two
  cache-friendly passes instead of one scatter over the whole edge array;
- ``propagate``: the FIFO queue of Knuth's retrograde exercise (TAOCP 2.2.3 ex. 28) and of the
  attractor notes, over a packed per-node state;
- ``first_match``: each node's first successor with a wanted key (the optimal moves);
- ``retrograde_start`` / ``retrograde_keys`` / ``joined_codes``: the state before and after the
  queue; ``mex_in_order``: Grundy values along the queue (children first);
- ``loopy_labels`` + ``loopy_ksets``: Fraenkel and Yesha's labelling of loopy impartial games
  (the generalized Sprague-Grundy function, ``verifier.solvers.loopy_grundy``) and its K-sets.

The two passes of the transposition and the moves are split over the threads (``prange``);
the queue is sequential, as in the seeds.

State encoding of ``propagate`` (one integer per node, ``st``):
``st > 0``: open, ``st`` AND-signals still needed; ``st == 0``: never joins;
``st < 0``: joined, ``-1 - st = 2 * layer + bit`` where ``bit`` is 1 if the node emitted the
OR-signal. Queue entries are ``y`` (AND-signal) or ``~y`` (OR-signal).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = [
    "BUCKET_BITS",
    "bucket_scatter",
    "bucket_sort",
    "first_match",
    "joined_codes",
    "loopy_ksets",
    "loopy_labels",
    "mex_in_order",
    "propagate",
    "retrograde_keys",
    "retrograde_start",
]

BUCKET_BITS = 12
"""Targets are partitioned by ``y >> BUCKET_BITS``: a bucket's rows of the predecessor CSR
(4096 nodes, their counters and their edges) stay in the cache while the bucket is sorted."""

Array = Any
"""numba compiles for whatever numpy arrays come in; the typed wrappers live in ``compiled``."""

AHEAD = 16
"""The queue is read this many entries ahead to prefetch a node's predecessor pointers, and
``AHEAD // 2`` ahead to prefetch its predecessor list: the misses of several queue entries
then overlap instead of following one another (2x faster on 10^6 random nodes)."""


@intrinsic
def _prefetch(typingctx: Any, arr: Any, i: Any) -> Any:
    """``prefetch(arr, i)``: ask the CPU to bring ``arr[i]`` into the cache (LLVM's
    ``llvm.prefetch``: read, high locality); no effect on results."""
    sig = types.void(arr, i)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])  # type: ignore[no-untyped-call]
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")  # type: ignore[no-untyped-call]
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


prefetch: Any = _prefetch
"""``prefetch(arr, i)`` inside a kernel (typed ``Any`` for mypy: numba calls the intrinsic)."""


@njit(cache=True, parallel=True)
def bucket_scatter(ptr: Array, idx: Array, threads: int) -> tuple[Array, Array, Array]:
    """Pass 1 of the transposition: every edge ``x -> y`` as ``(x, y mod 2^B)`` grouped by the
    bucket ``y >> B``, in source order within a bucket. Returns ``(start, src, low)``: the
    edges of bucket ``b`` are ``start[b]:start[b + 1]``."""
    n = ptr.shape[0] - 1
    m = idx.shape[0]
    nb = (n >> BUCKET_BITS) + 1
    # node ranges with about m / threads edges each; each thread counts and places its own
    cut = np.empty(threads + 1, np.int64)
    for t in range(threads + 1):
        cut[t] = np.searchsorted(ptr, (m * t) // threads) if 0 < t < threads else 0
    cut[threads] = n
    for t in range(1, threads + 1):
        cut[t] = max(cut[t], cut[t - 1])
    hist = np.zeros((threads, nb), np.int64)
    for t in prange(threads):
        h = hist[t]
        for e in range(ptr[cut[t]], ptr[cut[t + 1]]):
            h[idx[e] >> BUCKET_BITS] += 1
    # bucket b holds thread 0's edges into b, then thread 1's, ...: stable in source order
    start = np.empty(nb + 1, np.int64)
    fill = np.empty((threads, nb), np.int64)
    s = 0
    for b in range(nb):
        start[b] = s
        for t in range(threads):
            fill[t, b] = s
            s += hist[t, b]
    start[nb] = s
    src = np.empty(m, idx.dtype)
    low = np.empty(m, np.int16)
    mask = (1 << BUCKET_BITS) - 1
    for t in prange(threads):
        f = fill[t]
        for x in range(cut[t], cut[t + 1]):
            for e in range(ptr[x], ptr[x + 1]):
                y = idx[e]
                k = f[y >> BUCKET_BITS]
                src[k] = x
                low[k] = y & mask
                f[y >> BUCKET_BITS] = k + 1
    return start, src, low


@njit(cache=True, parallel=True)
def bucket_sort(start: Array, src: Array, low: Array, pptr: Array, pidx: Array) -> None:
    """Pass 2: a counting sort inside each bucket fills rows ``b * 2^B ...`` of the
    predecessor CSR ``(pptr, pidx)`` (``pptr[n]`` is set by the caller)."""
    n = pptr.shape[0] - 1
    nb = start.shape[0] - 1
    for b in prange(nb):
        lo = b << BUCKET_BITS
        w = min(lo + (1 << BUCKET_BITS), n) - lo
        at = np.zeros(w + 1, np.int64)
        for k in range(start[b], start[b + 1]):
            at[low[k] + 1] += 1
        at[0] = start[b]
        for j in range(w):
            at[j + 1] += at[j]
        for j in range(w):
            pptr[lo + j] = at[j]
        for k in range(start[b], start[b + 1]):
            j = low[k]
            pidx[at[j]] = src[k]
            at[j] += 1


@njit(cache=True, inline="always")
def _node(q: int) -> int:
    """The node of a queue entry (``y`` or ``~y``)."""
    return ~q if q < 0 else q


@njit(cache=True)
def propagate(
    pptr: Array, pidx: Array, st: Array, queue: Array, head: int, tail: int, alternate: bool
) -> tuple[int, int, int]:
    """Run the queue ``queue[head:tail]`` (layer 0 of this run) to the end; returns ``(tail,
    edges, layers)``: the queue's final length (the nodes that joined in this run are
    ``queue[head:tail]``), the predecessor edges scanned, and the number of layers.

    Popping ``y``: an OR-signal (``~y`` in the queue) makes every open predecessor join at once
    (Knuth's case 1: a lost successor, the position is won); an AND-signal counts the open
    predecessors down and those at zero join (case 2: all successors won, the position is lost;
    a player-1 node of an attractor). A node joining by OR emits the AND-signal; one joining by
    AND emits the OR-signal if ``alternate`` (retrograde analysis: lost after won after lost),
    else the AND-signal (attractors: one signal, "in W"). The queue is first-in first-out, so
    layers leave it in order: a node's layer is one more than that of the node it was popped
    after.
    """
    first = head
    layer = 0
    layer_end = tail
    edges = 0
    while head < tail:
        if head == layer_end:
            layer += 1
            layer_end = tail
        if head + AHEAD < tail:
            prefetch(pptr, _node(queue[head + AHEAD]))
        if head + AHEAD // 2 < tail:
            prefetch(pidx, pptr[_node(queue[head + AHEAD // 2])])
        code_and = -1 - 2 * (layer + 1)  # joined at layer + 1 having emitted the AND-signal
        code_or = code_and - 1
        q = queue[head]
        head += 1
        y = _node(q)
        a = pptr[y]
        b = pptr[y + 1]
        edges += b - a
        if q < 0:  # OR-signal: one such successor suffices
            for e in range(a, b):
                p = pidx[e]
                if st[p] > 0:
                    st[p] = code_and
                    queue[tail] = p
                    tail += 1
        else:  # AND-signal: one more successor counted
            for e in range(a, b):
                p = pidx[e]
                c = st[p]
                if c > 1:
                    st[p] = c - 1
                elif c == 1:
                    if alternate:
                        st[p] = code_or
                        queue[tail] = ~p
                    else:
                        st[p] = code_and
                        queue[tail] = p
                    tail += 1
    return tail, edges, layer + 1 if tail > first else 0


@njit(cache=True)
def retrograde_start(ptr: Array, value: Array, st: Array, queue: Array) -> int:
    """Counters and layer 0 of retrograde analysis: ``st[x]`` = the number of successors of an
    inner ``x`` (none known won yet); a terminal is lost unless its value says won (> 0) or
    draw (0), as in ``verifier.engine.retrograde.terminal_labels``. Won terminals enter the
    queue with the AND-signal, lost ones with the OR-signal; returns the queue's length."""
    tail = 0
    for x in range(ptr.shape[0] - 1):
        d = ptr[x + 1] - ptr[x]
        st[x] = d
        if d == 0:
            v = value[x]
            if v > 0:
                st[x] = -1  # code 0: layer 0, AND-signal
                queue[tail] = x
                tail += 1
            elif v < 0 or v != v:  # negative or NaN: lost
                st[x] = -2  # code 1: layer 0, OR-signal
                queue[tail] = ~x
                tail += 1
    return tail


@njit(cache=True, parallel=True)
def joined_codes(st: Array) -> None:
    """In place: ``st`` -> ``2 * layer + bit`` on joined nodes, -1 on the others."""
    for x in prange(st.shape[0]):
        st[x] = -1 - st[x] if st[x] < 0 else -1


@njit(cache=True, parallel=True)
def retrograde_keys(ptr: Array, code: Array, label: Array, rem: Array, want: Array) -> None:
    """From the codes of retrograde analysis (``2 * remoteness + [lost]``, -1 if unknown): the
    labels, the remoteness, and ``(want, code)`` for ``first_match``. In place (``code`` too):
    a won node wants a lost successor one layer down, a lost one a won successor one layer
    down, an unknown inner node an unknown successor (code -2); a terminal wants nothing (-3).
    """
    for x in prange(code.shape[0]):
        c = code[x]
        if c < 0:
            label[x] = 0
            rem[x] = -1
            want[x] = -2
            code[x] = -2
        else:
            lost = c & 1
            label[x] = -1 if lost else 1
            rem[x] = c >> 1
            want[x] = c - 3 if lost else c - 1
        if ptr[x + 1] == ptr[x]:
            want[x] = -3


@njit(cache=True)
def mex_in_order(ptr: Array, idx: Array, order: Array, value: Array) -> None:
    """``value[x] = mex{value[y] : x -> y}`` for ``x`` in ``order`` (every successor of ``x``
    comes earlier). Only values below the out-degree can change the mex, so a scratch array of
    ``max out-degree + 1`` flags suffices; it is cleared after each node."""
    n = ptr.shape[0] - 1
    width = 1
    for x in range(n):
        width = max(width, ptr[x + 1] - ptr[x] + 1)
    seen = np.zeros(width, np.bool_)
    for x in order:
        a = ptr[x]
        b = ptr[x + 1]
        d = b - a
        for e in range(a, b):
            v = value[idx[e]]
            if v < d:
                seen[v] = True
        m = 0
        while seen[m]:
            m += 1
        value[x] = m
        for e in range(a, b):
            v = value[idx[e]]
            if v < d:
                seen[v] = False


@njit(cache=True, parallel=True)
def first_match(ptr: Array, idx: Array, want: Array, code: Array) -> Array:
    """For every node ``x`` its first successor ``y`` with ``code[y] == want[x]``, else -1
    (successor lists are sorted, so the first is the smallest)."""
    n = ptr.shape[0] - 1
    move = np.full(n, -1, np.int64)
    for x in prange(n):
        w = want[x]
        for e in range(ptr[x], ptr[x + 1]):
            if code[idx[e]] == w:
                move[x] = idx[e]
                break
    return move


UNLABELLED = -2
"""``label`` of a node ``loopy_labels`` has not labelled yet (-1 is ``inf``, as in
``verifier.solvers.loopy_grundy``)."""


@njit(cache=True)
def _loopy_counts(
    ptr: Array, idx: Array, label: Array, todo: Array, k: int, cnt: Array, queue: Array
) -> tuple[int, int]:
    """Start of a round: ``cnt[u]`` = options of ``u`` unlabelled or ``inf``, for ``u`` in
    ``todo[:k]``; those with none enter the queue. Returns ``(tail, edges)``."""
    tail = 0
    edges = 0
    for j in range(k):
        u = todo[j]
        c = 0
        for e in range(ptr[u], ptr[u + 1]):
            if label[idx[e]] < 0:
                c += 1
        edges += ptr[u + 1] - ptr[u]
        cnt[u] = c
        if c == 0:
            queue[tail] = u
            tail += 1
    return tail, edges


@njit(cache=True)
def loopy_labels(
    ptr: Array, idx: Array, pptr: Array, pidx: Array, label: Array, counter: Array
) -> tuple[int, int]:
    """Fraenkel and Yesha's labelling, as ``verifier.solvers.loopy_grundy.loopy_grundy`` states
    it (same queue order, so the same labels and counters): fills ``label`` (finite value, -1 for
    ``inf``) and ``counter`` (-1 on ``inf``); returns ``(rounds, edges scanned)``.

    Round ``i``: ``cnt[u]`` counts the options of ``u`` that are unlabelled or ``inf`` and have
    no option labelled ``i`` yet; ``u`` is labelled ``i`` when it reaches 0 while no option of
    ``u`` is labelled ``i`` (``marked``); then every unlabelled, unmarked node becomes ``inf``.
    The marks of a round are undone from the list of the nodes marked in it."""
    n = ptr.shape[0] - 1
    todo = np.arange(n).astype(idx.dtype)
    cnt = np.zeros(n, idx.dtype)
    marked = np.zeros(n, np.bool_)
    touched = np.empty(n, idx.dtype)
    queue = np.empty(n, idx.dtype)
    for u in range(n):
        label[u] = UNLABELLED
        counter[u] = -1
    k = n
    m = 0
    i = 0
    scanned = 0
    while k > 0:
        tail, edges = _loopy_counts(ptr, idx, label, todo, k, cnt, queue)
        scanned += edges
        head = 0
        nt = 0
        while head < tail:  # step 1: label i
            u = queue[head]
            head += 1
            if marked[u] or label[u] != UNLABELLED:
                continue
            label[u] = i
            counter[u] = m
            m += 1
            for e in range(pptr[u], pptr[u + 1]):
                v = pidx[e]
                scanned += 1
                if label[v] >= 0 or marked[v]:
                    continue
                marked[v] = True
                touched[nt] = v
                nt += 1
                for f in range(pptr[v], pptr[v + 1]):
                    w = pidx[f]
                    scanned += 1
                    if label[w] == UNLABELLED:
                        cnt[w] -= 1
                        if cnt[w] == 0 and not marked[w]:
                            queue[tail] = w
                            tail += 1
        still = 0
        for j in range(k):  # step 2: inf for the unlabelled without an option labelled i
            u = todo[j]
            if label[u] != UNLABELLED:
                continue
            if marked[u]:
                todo[still] = u
                still += 1
            else:
                label[u] = -1
        k = still
        for j in range(nt):
            marked[touched[j]] = False
        i += 1
    return i, scanned


@njit(cache=True)
def loopy_ksets(ptr: Array, idx: Array, label: Array) -> tuple[Array, Array]:
    """``K`` of every ``inf`` node (``label`` -1): the distinct finite labels of its options,
    sorted, as a CSR ``(kptr, kval)`` over all nodes (empty rows elsewhere). A finite value is
    at most its node's out-degree, so ``max out-degree + 1`` flags find the distinct ones."""
    n = ptr.shape[0] - 1
    width = 1
    for x in range(n):
        width = max(width, ptr[x + 1] - ptr[x] + 1)
    seen = np.zeros(width, np.bool_)
    kptr = np.zeros(n + 1, np.int64)
    for u in range(n):
        c = 0
        if label[u] == -1:
            for e in range(ptr[u], ptr[u + 1]):
                v = label[idx[e]]
                if v >= 0 and not seen[v]:
                    seen[v] = True
                    c += 1
            for e in range(ptr[u], ptr[u + 1]):
                v = label[idx[e]]
                if v >= 0:
                    seen[v] = False
        kptr[u + 1] = kptr[u] + c
    kval = np.empty(kptr[n], np.int64)
    for u in range(n):
        a = kptr[u]
        if kptr[u + 1] == a:
            continue
        t = a
        for e in range(ptr[u], ptr[u + 1]):
            v = label[idx[e]]
            if v >= 0 and not seen[v]:
                seen[v] = True
                kval[t] = v
                t += 1
        for j in range(a, t):
            seen[kval[j]] = False
        kval[a:t] = np.sort(kval[a:t])
    return kptr, kval
