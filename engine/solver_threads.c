/* solver_threads.c: the solver's two-thread pipeline. Lanes are
 * independent, and a plan holds everything its evaluation needs: in
 * two-thread mode the caller's thread plans into a queue and evaluates the
 * upper lanes [split, lanes_padded) of each plan at once; a worker evaluates the
 * lower lanes [0, split) of the queued plans in order, up to QCAP plans
 * behind (by default split = lanes_padded: the planner only plans, and adapt_split
 * falls back to one thread while that is faster). Each thread touches only
 * its own lanes of every vector; everything else the worker reads (plans,
 * latency vectors, ring places, base, zero) changes only while the queue
 * is drained (ring growth, store clearing, rebase, reset, a split change,
 * results). Also the thread count (ic_solver_set_threads) and the split. */
#include "solver_internal.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"

/* One step of waiting for the other thread: a pause at first, then
 * giving the CPU away (on a loaded machine both threads may share one
 * CPU, and the other one is what we wait for). */
static inline void wait_step(int spin) {
  if (spin < SPIN_PAUSE) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    sched_yield();
  }
}

static void *pipe_worker(void *arg) {
  ic_solver *s = arg;
  struct pipe *p = s->pipe;
  struct plan *const q = p->q;
  uint64_t t = atomic_load(&p->tail);
  for (;;) {
    uint64_t h = atomic_load_explicit(&p->head, memory_order_acquire);
    for (int spin = 0; h == t && spin < SPIN; spin++) {
      wait_step(spin);
      h = atomic_load_explicit(&p->head, memory_order_acquire);
    }
    if (h == t) {
      pthread_mutex_lock(&p->m);
      atomic_store(&p->wsleep, 1);
      while ((h = atomic_load(&p->head)) == t && !atomic_load(&p->stop))
        pthread_cond_wait(&p->cv_work, &p->m);
      atomic_store(&p->wsleep, 0);
      pthread_mutex_unlock(&p->m);
      if (h == t) return NULL; /* stopped, nothing left */
    }
    /* the solver's fields change only while the queue is empty */
    const uint32_t split = s->split;
    const int il = s->il;
    p->wx.kern = s->kern;
    while (t != h) {
      /* plans were just written on the other CPU: fetch the next ones'
       * header and usual entries ahead, so their transfer overlaps work */
      if (t + PLAN_AHEAD < h) {
        const char *nx = (const char *)&q[(t + PLAN_AHEAD) & (QCAP - 1)];
        for (size_t off = 0; off < PLAN_FETCH_BYTES; off += 64) __builtin_prefetch(nx + off, 0, 3);
      }
      if (il) slv_exec_blocks(&p->wx, &q[t & (QCAP - 1)], 0);
      else if (split) slv_exec_plan(&p->wx, &q[t & (QCAP - 1)], 0, split);
      t++;
      if ((t & (PUBLISH_EVERY - 1)) == 0 || t == h) {
        atomic_store(&p->tail, t);
        if (atomic_load(&p->psleep) && t >= atomic_load_explicit(&p->pwant, memory_order_relaxed)) {
          pthread_mutex_lock(&p->m);
          pthread_cond_signal(&p->cv_done);
          pthread_mutex_unlock(&p->m);
        }
      }
    }
  }
}

/* Hands the plans written so far to the worker. A sleeping worker is woken
 * only for WAKE_AT plans or more, or when `force`d (the planner is about to
 * wait for it), so that each wake-up buys a good stretch of work. */
void slv_pipe_publish(struct pipe *p, int force) {
  const uint64_t h = p->planned;
  if (h != atomic_load_explicit(&p->head, memory_order_relaxed)) atomic_store(&p->head, h);
  if (atomic_load(&p->wsleep) &&
      (force || h - atomic_load_explicit(&p->tail, memory_order_relaxed) >= WAKE_AT)) {
    pthread_mutex_lock(&p->m);
    pthread_cond_signal(&p->cv_work);
    pthread_mutex_unlock(&p->m);
  }
}

/* Waits until the worker has evaluated `soon` plans (<= head), spinning a
 * while; if it must sleep, it sleeps until `later` (soon <= later <= head)
 * are, for the same reason as above. */
static void pipe_wait_tail(struct pipe *p, uint64_t soon, uint64_t later) {
  for (int spin = 0; spin < SPIN; spin++) {
    if (atomic_load_explicit(&p->tail, memory_order_acquire) >= soon) return;
    wait_step(spin);
  }
  pthread_mutex_lock(&p->m);
  atomic_store(&p->pwant, later);
  atomic_store(&p->psleep, 1);
  while (atomic_load(&p->tail) < later) pthread_cond_wait(&p->cv_done, &p->m);
  atomic_store(&p->psleep, 0);
  pthread_mutex_unlock(&p->m);
}

/* Every plan written is evaluated: the planner may touch any vector. Only
 * the planner's thread (the solver's caller) drains; const callers drain
 * through the pipe pointer. */
void slv_pipe_drain(const ic_solver *s) {
  struct pipe *p = s->pipe;
  if (!p) return;
  slv_pipe_publish(p, 1);
  if (atomic_load_explicit(&p->tail, memory_order_acquire) != p->planned)
    pipe_wait_tail(p, p->planned, p->planned);
  p->tail_seen = p->planned;
}

/* Waits until the worker has evaluated the first `tail` plans (<= those
 * written): a memo that plans in the pipeline point to may then be
 * rewritten (memo.busy). */
void slv_pipe_wait(ic_solver *s, uint64_t tail) {
  struct pipe *p = s->pipe;
  if (!p || p->tail_seen >= tail) return;
  p->tail_seen = atomic_load_explicit(&p->tail, memory_order_acquire);
  if (p->tail_seen >= tail) return;
  slv_pipe_publish(p, 1);
  pipe_wait_tail(p, tail, tail);
  p->tail_seen = atomic_load_explicit(&p->tail, memory_order_acquire);
}

/* The plan slot for the next instruction. */
struct plan *slv_plan_slot(ic_solver *s) {
  struct pipe *p = s->pipe;
  if (!p || s->solo) return s->one;
  if (p->planned - p->tail_seen >= QCAP) {
    slv_pipe_publish(p, 1);
    p->tail_seen = atomic_load_explicit(&p->tail, memory_order_acquire);
    if (p->planned - p->tail_seen >= QCAP) {
      pipe_wait_tail(p, p->planned - QCAP + 1, p->planned - QCAP / 2);
      p->tail_seen = atomic_load_explicit(&p->tail, memory_order_acquire);
    }
  }
  return &p->q[p->planned & (QCAP - 1)];
}

/* The plan in slot pl is complete: evaluate it now, or queue it and
 * evaluate the planner's lanes. */
void slv_plan_done(ic_solver *s, struct plan *pl) {
  struct pipe *p = s->pipe;
  if (!p || s->solo) {
    slv_exec_plan(&s->xs, pl, 0, s->lanes_padded);
    return;
  }
  p->planned++;
  if (p->planned - atomic_load_explicit(&p->head, memory_order_relaxed) >= PUBLISH_EVERY)
    slv_pipe_publish(p, 0);
  if (s->il) slv_exec_blocks(&s->xs, pl, 1);
  else if (s->split < s->lanes_padded) slv_exec_plan(&s->xs, pl, s->split, s->lanes_padded);
}

void slv_pipe_stop(ic_solver *s) {
  struct pipe *p = s->pipe;
  if (!p) return;
  slv_pipe_drain(s);
  pthread_mutex_lock(&p->m);
  atomic_store(&p->stop, 1);
  pthread_cond_signal(&p->cv_work);
  pthread_mutex_unlock(&p->m);
  pthread_join(p->th, NULL);
  if (p->wx.viol) {
    if (!s->xs.viol || p->wx.first < s->xs.first) s->xs.first = p->wx.first;
    s->xs.viol += p->wx.viol;
  }
  pthread_cond_destroy(&p->cv_work);
  pthread_cond_destroy(&p->cv_done);
  pthread_mutex_destroy(&p->m);
  free(p->q);
  free(p);
  s->pipe = NULL;
}

/* Starts the worker; 0 if the system would not (the solver then stays in
 * single-thread mode). */
static int pipe_start(ic_solver *s) {
  struct pipe *p = slv_vec_alloc_raw(1, sizeof *p);
  if (!p) return 0;
  memset(p, 0, sizeof *p);
  atomic_init(&p->head, 0);
  atomic_init(&p->tail, 0);
  atomic_init(&p->wsleep, 0);
  atomic_init(&p->psleep, 0);
  atomic_init(&p->pwant, 0);
  atomic_init(&p->stop, 0);
  p->q = slv_vec_alloc_raw(QCAP, sizeof *p->q);
  p->wx = (struct xenv){s->zero, s->base, s->kern, 0, 0, 0, s};
  int ok = p->q != NULL;
  int mi = ok && pthread_mutex_init(&p->m, NULL) == 0;
  int c1 = mi && pthread_cond_init(&p->cv_work, NULL) == 0;
  int c2 = c1 && pthread_cond_init(&p->cv_done, NULL) == 0;
  /* the plan counts start again at 0 (memo.busy) */
  for (size_t k = 0; k < (size_t)MEMO_SETS * MEMO_WAYS; k++) s->memo[k].busy = 0;
  s->pipe = p;
  if (c2 && pthread_create(&p->th, NULL, pipe_worker, s) == 0) return 1;
  s->pipe = NULL;
  if (c2) pthread_cond_destroy(&p->cv_done);
  if (c1) pthread_cond_destroy(&p->cv_work);
  if (mi) pthread_mutex_destroy(&p->m);
  free(p->q);
  free(p);
  return 0;
}

/* The worker pays where the kernels have enough lanes to be worth a
 * thread and there is a CPU for it. */
int ic_solver_threads_for(int cpus, int ncat) { return cpus >= 2 && ncat >= 3 ? 2 : 1; }

void ic_solver_set_threads(ic_solver *s, int threads) {
  if (threads <= 0) threads = ic_solver_threads_for(ic_cpus_allowed(), s->ncat);
  if (threads >= 2 && !s->pipe) {
    pipe_start(s);
  } else if (threads < 2 && s->pipe) {
    slv_pipe_stop(s);
  }
}

int ic_solver_threads(const ic_solver *s) { return s->pipe ? 2 : 1; }

/* Lane split in two-thread mode. By default the worker evaluates every
 * lane and the planner only plans (a fixed split of the lanes did not pay
 * on 2 CPUs: bench/README.md); ic_solver_set_split sets a split for
 * experiments. What does pay to adapt: when other jobs keep the CPUs busy,
 * handing plans over costs more than it saves. So by default every EPOCH
 * records the planner measures the wall time of the epoch; it tries each
 * candidate for two epochs (adapt_split) (no worker: plan and evaluate
 * every record on the caller's thread as in single-thread mode; the worker
 * evaluating all lanes; since the slot rule runs in every lane without bw,
 * the worker on 3/4 and on 1/2 of the lanes with the planner on the rest;
 * the worker on every other 32-lane block, exec_blocks), keeps the fastest
 * for EXPLOIT epochs, and tries again. A change drains the queue first. */
#define EPOCH 8192u
#define EXPLOIT 24u

static uint32_t split_lanes(const ic_solver *s, int lanes) {
  if (lanes < 0 || (uint32_t)lanes >= s->lanes_padded) return s->lanes_padded;
  uint32_t g = s->lanes_padded >= 4 * LANES ? 4 * LANES : LANES;
  return (uint32_t)lanes / g * g;
}

void ic_solver_set_split(ic_solver *s, int lanes) {
  slv_pipe_drain(s);
  s->solo = 0;
  s->split_fixed = lanes >= 0 || lanes == IC_SOLVER_SPLIT_BLOCKS;
  s->il = lanes == IC_SOLVER_SPLIT_BLOCKS;
  s->split = s->il ? s->lanes_padded : split_lanes(s, lanes);
  s->epoch_n = 0;
  s->adapt_step = 0;
}

static double mono_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Called once a record in two-thread mode with an adaptive split. Each
 * candidate runs for two epochs, in the order 0 1 2 3 4 4 3 2 1 0, and is
 * judged by the sum of its two: the cost of a record drifts over a run
 * (categories act for the first time and add lanes, the program changes
 * phase), and a steady drift then weighs on every candidate alike (in one
 * epoch each, in order, the lanes added early made the later candidates
 * look slower). */
void slv_adapt_split(ic_solver *s) {
  if (++s->epoch_n < EPOCH) return;
  const double now = mono_now(), dt = now - s->epoch_t0;
  const uint32_t ncand = s->lanes_padded >= 64 ? 5 : 4, nexp = 2 * ncand;
  s->epoch_n = 0;
  s->epoch_t0 = now;
  /* steps 1..nexp: the epoch just ended ran the candidate of step - 1 */
  if (s->adapt_step >= 1 && s->adapt_step <= nexp) {
    const uint32_t k = s->adapt_step - 1;
    s->cand_time[k < ncand ? k : nexp - 1 - k] += dt;
  }
  uint32_t next;
  if (s->adapt_step < nexp) {
    if (s->adapt_step == 0) memset(s->cand_time, 0, sizeof s->cand_time);
    next = s->adapt_step < ncand ? s->adapt_step : nexp - 1 - s->adapt_step;
    s->adapt_step++;
  } else if (s->adapt_step == nexp) {
    next = 0;
    for (uint32_t c = 1; c < ncand; c++)
      if (s->cand_time[c] < s->cand_time[next]) next = c;
    s->adapt_step++;
  } else if (s->adapt_step < nexp + EXPLOIT) {
    s->adapt_step++;
    return;
  } else {
    s->adapt_step = 1;
    memset(s->cand_time, 0, sizeof s->cand_time);
    next = 0;
  }
  const int solo = next == 0, il = next == 4;
  /* candidates: 0 the planner alone, 1 the worker on every lane, 2 and 3
     the worker on 3/4 and 1/2 of them (whole blocks), the planner on the
     rest: where k_slots' counts make the lanes the larger part; 4 the
     32-lane blocks shared out in turn (exec_blocks) */
  const uint32_t split = solo || il ? s->split : split_lanes(s, (int)(s->lanes_padded - (next - 1) * (s->lanes_padded / 4)));
  if (solo != s->solo || split != s->split || il != s->il) {
    slv_pipe_drain(s);
    s->solo = solo;
    s->il = il;
    s->split = split;
    s->st.split_changes++;
    s->epoch_t0 = mono_now();
  }
}
