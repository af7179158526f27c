//! The threads of a handle's background work (builds of checkpoints,
//! passes of the bounds, compactions): jobs handed to threads kept
//! between them ([`Workers`]), below the writers' priority, and waited
//! for as the handle waits for its work or closes, never by a write. A
//! write that starts one while the last is still ending (its flag is
//! down, its job not marked ended yet) does not wait for it: on a busy
//! machine, a thread that ended may not run again for milliseconds. They
//! take turns ([`Turns`]), so that one processor at least is left to the
//! handle's writers.

use std::sync::Arc;
use std::time::Duration;

// std's locks rather than parking_lot's: a thread parked on one of
// parking_lot's stays in its process-wide table, which a forked child
// inherits and its own threads then corrupt (a child of a process whose
// kept threads waited crashed as it started threads of its own).
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, TryLockError};

/// The turns a handle's background threads take to work: as many at once
/// as the machine has processors, but one, and one at least. A writer
/// that waits (for the index's lock, for a pace it keeps) on a machine
/// whose every processor runs the upkeep is back only once one of them
/// is preempted, a millisecond or more later: with a firehose of puts
/// on 2 processors, that was most of the puts over 1 ms.
///
/// A thread takes its turn before anything else and holds nothing it
/// waits for while it waits: none waits for the turn of another.
pub(crate) struct Turns {
    free: Mutex<usize>,
    freed: Condvar,
}

/// The processors this process may run on, as it first asked (each
/// handle, and each compaction's own, would read the cgroup's files
/// again).
pub(crate) fn processors() -> usize {
    static PROCESSORS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PROCESSORS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Takes a lock that its holders keep briefly: tried (`try_take`), then
/// waited for on the processor, `spin` at most, while `is_locked`, then
/// waited for asleep (`take`). A thread put to sleep waits for the kernel
/// to wake it, long after the lock is free on a busy machine; the holder
/// runs on another processor meanwhile. Not on a machine with one processor, where the holder
/// cannot run while this thread spins. `spinning` is called as the
/// thread starts to wait on its processor.
pub(crate) fn take_spinning<G>(
    spin: Duration,
    mut try_take: impl FnMut() -> Option<G>,
    is_locked: impl Fn() -> bool,
    take: impl FnOnce() -> G,
    spinning: impl FnOnce(),
) -> G {
    if let Some(guard) = try_take() {
        return guard;
    }
    if processors() > 1 {
        spinning();
        let start = std::time::Instant::now();
        while start.elapsed() < spin {
            std::hint::spin_loop();
            if !is_locked()
                && let Some(guard) = try_take()
            {
                return guard;
            }
        }
    }
    take()
}

/// A turn taken, given back as it is dropped.
pub(crate) struct Turn<'a>(&'a Turns);

impl Turns {
    /// Turns for the processors of this machine, but one.
    pub(crate) fn for_this_machine() -> Turns {
        Turns::new(processors().saturating_sub(1).max(1))
    }

    pub(crate) fn new(at_once: usize) -> Turns {
        Turns {
            free: Mutex::new(at_once),
            freed: Condvar::new(),
        }
    }

    /// Waits for a turn.
    pub(crate) fn take(&self) -> Turn<'_> {
        let mut free: MutexGuard<'_, usize> = locked(&self.free);
        while *free == 0 {
            free = self
                .freed
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        Turn(self)
    }

    /// Every turn, once each is free.
    #[cfg(test)]
    pub(crate) fn take_every(&self) -> Vec<Turn<'_>> {
        let mut free = locked(&self.free);
        let taken = std::mem::take(&mut *free);
        drop(free);
        (0..taken).map(|_| Turn(self)).collect()
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        *locked(&self.0.free) += 1;
        self.0.freed.notify_one();
    }
}

/// The niceness of the passes and compactions of the bounds: below the
/// writers'. Where more threads are ready than the machine has
/// processors (the kernel's writeback among them), the kernel then takes
/// the processor from the upkeep rather than from a writer, which would
/// wait a millisecond or more: under a firehose of 1,000,000 puts on 2
/// processors, the puts over 1 ms went from 156-181 to 66-72. A writer
/// that outruns the upkeep is slowed and stalled (`cache/upkeep.rs`), so
/// the bounds hold all the same.
pub(crate) const UPKEEP_NICENESS: i32 = 5;

/// Lowers the calling thread's priority to `niceness` (on Linux;
/// elsewhere it stays): a worker of background work yields the processor
/// to the handle's writers. A thread cannot raise it again, so each kind
/// of work has threads of its own ([`Workers`]).
pub(crate) fn lower_priority(niceness: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread.
    unsafe {
        let _ = libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, niceness);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = niceness;
}

/// `mutex` locked; one a panic poisoned is taken as it is (what it holds
/// is whole: no panic happens while one of these is held).
fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How long a worker waits for its next job before its thread ends.
const IDLE: Duration = Duration::from_secs(10);

/// The threads that run one kind of background work (builds of
/// checkpoints, passes of the bounds, compactions), kept between jobs: a
/// write that starts one hands it to a thread left idle by an earlier
/// one (a wake: a few µs) rather than starting a thread (30-150 µs on a
/// busy machine, with its stack unmapped at the join). A thread idle for
/// [`IDLE`] ends. Each kind has threads of its own: a build lowers its
/// thread's priority, which a pass must not inherit.
///
/// Written here rather than taken from a pool crate: the thread pools
/// made for this (`blocking`, `threadpool`) share their threads between
/// every kind of job.
///
/// A process forked (Python's `multiprocessing` on Linux) has none of its
/// parent's threads: the idle ones listed are the parent's, and are
/// forgotten by the child's first job ([`Idle`]); and the list's lock is
/// only ever tried, never waited for (a parent's thread may have held it
/// as the process forked): a job that finds it held starts a thread.
pub(crate) struct Workers {
    name: &'static str,
    idle: Mutex<Idle>,
}

/// The idle threads of [`Workers`], and the process they run in.
struct Idle {
    process: u32,
    threads: Vec<Arc<Worker>>,
}

/// A thread of [`Workers`], and the job it is given.
#[derive(Default)]
struct Worker {
    job: Mutex<Option<Task>>,
    given: Condvar,
}

/// A job and what its [`Job`] waits on.
struct Task {
    run: Box<dyn FnOnce() + Send>,
    done: Arc<Done>,
}

#[derive(Default)]
struct Done {
    ended: Mutex<bool>,
    signal: Condvar,
}

/// A job handed to [`Workers`], to wait for.
pub(crate) struct Job(Arc<Done>);

impl Job {
    fn is_finished(&self) -> bool {
        *locked(&self.0.ended)
    }

    fn join(self) {
        let mut ended = locked(&self.0.ended);
        while !*ended {
            ended = self
                .0
                .signal
                .wait(ended)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Task {
    /// Runs the job; its [`Job`] ends even if it panics (the panic is
    /// reported as a thread's would be, and the thread goes on).
    fn run(self) {
        let Task { run, done } = self;
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
        *locked(&done.ended) = true;
        done.signal.notify_all();
    }
}

impl Workers {
    pub(crate) const fn new(name: &'static str) -> Workers {
        Workers {
            name,
            idle: Mutex::new(Idle {
                process: 0,
                threads: Vec::new(),
            }),
        }
    }

    /// The idle threads of this process, unless another thread holds
    /// their list.
    fn idle(&self) -> Option<MutexGuard<'_, Idle>> {
        let mut idle = match self.idle.try_lock() {
            Ok(idle) => idle,
            Err(TryLockError::Poisoned(held)) => held.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        let process = std::process::id();
        if idle.process != process {
            // Forked: the threads listed are the parent's.
            idle.process = process;
            idle.threads.clear();
        }
        Some(idle)
    }

    /// [`Workers::idle`], tried for up to 20 ms, the processor yielded
    /// between: another thread holds the list only to push or pop a
    /// thread, but a parent's thread that held it as the process forked
    /// holds it for ever.
    fn idle_tried(&self) -> Option<MutexGuard<'_, Idle>> {
        let start = std::time::Instant::now();
        loop {
            if let Some(idle) = self.idle() {
                return Some(idle);
            }
            if start.elapsed() > Duration::from_millis(20) {
                return None;
            }
            std::thread::yield_now();
        }
    }

    /// Runs `job` on an idle thread of these, or a new one.
    pub(crate) fn spawn(
        &'static self,
        job: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<Job> {
        let done = Arc::new(Done::default());
        let task = Task {
            run: Box::new(job),
            done: done.clone(),
        };
        let idle = self.idle().and_then(|mut idle| idle.threads.pop());
        match idle {
            Some(worker) => {
                *locked(&worker.job) = Some(task);
                worker.given.notify_one();
            }
            None => {
                let worker = Arc::new(Worker::default());
                std::thread::Builder::new()
                    .name(self.name.into())
                    .spawn(move || self.work(worker, task))?;
            }
        }
        Ok(Job(done))
    }

    /// A worker's thread: runs `task`, then each job it is given, until
    /// it is idle for [`IDLE`].
    fn work(&'static self, worker: Arc<Worker>, mut task: Task) {
        loop {
            task.run();
            match self.idle_tried() {
                Some(mut idle) => idle.threads.push(worker.clone()),
                // Held all along: this thread ends rather than wait.
                None => return,
            }
            let mut job = locked(&worker.job);
            task = loop {
                if let Some(next) = job.take() {
                    break next;
                }
                let (held, waited) =
                    (worker.given.wait_timeout(job, IDLE)).unwrap_or_else(PoisonError::into_inner);
                job = held;
                if waited.timed_out() && job.is_none() {
                    drop(job);
                    if let Some(mut idle) = self.idle() {
                        let listed = idle.threads.iter().position(|w| Arc::ptr_eq(w, &worker));
                        if let Some(i) = listed {
                            idle.threads.swap_remove(i);
                            return;
                        }
                    }
                    // Taken off the list by a write (its job comes), or
                    // the list held: waits again.
                    job = locked(&worker.job);
                }
            };
        }
    }
}

/// The jobs of one kind of background work of a handle, the last one
/// running or not.
#[derive(Default)]
pub(crate) struct Threads(Mutex<Vec<Job>>);

impl Threads {
    /// Keeps `job`, to wait for later; forgets those that ended.
    pub(crate) fn add(&self, job: Job) {
        let mut jobs = locked(&self.0);
        jobs.retain(|job| !job.is_finished());
        jobs.push(job);
    }

    /// Waits for every job kept.
    pub(crate) fn join(&self) {
        let jobs = std::mem::take(&mut *locked(&self.0));
        for job in jobs {
            job.join();
        }
    }
}

#[cfg(test)]
mod tests {

    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    use super::{Threads, Workers};

    /// A turn is waited for while every other is taken, and taken once
    /// one is given back.
    #[test]
    fn a_turn_is_waited_for_while_none_is_free() {
        let turns = std::sync::Arc::new(super::Turns::new(1));
        let first = turns.take();
        let (tx, rx) = mpsc::channel();
        let waiting = turns.clone();
        let thread = std::thread::spawn(move || {
            let _turn = waiting.take();
            tx.send(()).unwrap();
        });
        // Never wrong on a busy machine: a thread not yet run sends
        // nothing either.
        assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
        drop(first);
        rx.recv_timeout(Duration::from_secs(60)).unwrap();
        thread.join().unwrap();
    }

    #[test]
    fn keeping_a_job_waits_for_none_still_running() {
        static WORKERS: Workers = Workers::new("codec-test");
        let threads = std::sync::Arc::new(Threads::default());
        let (release, released) = mpsc::channel::<()>();
        threads.add(
            WORKERS
                .spawn(move || {
                    let _ = released.recv();
                })
                .unwrap(),
        );
        let (done, ended) = mpsc::channel();
        let adding = {
            let threads = threads.clone();
            std::thread::spawn(move || {
                threads.add(WORKERS.spawn(|| {}).unwrap());
                done.send(()).unwrap();
            })
        };
        let waited = ended.recv_timeout(Duration::from_secs(30));
        release.send(()).unwrap();
        adding.join().unwrap();
        assert!(waited.is_ok(), "adding a job waited for one still running");
        threads.join();
        assert!(super::locked(&threads.0).is_empty());
    }

    /// A job is run by the thread an earlier one left idle, not a new
    /// one; a job that panics ends (its thread goes on); and the join
    /// waits for the job's end.
    #[test]
    fn a_job_runs_on_the_thread_an_earlier_one_left_idle() {
        static WORKERS: Workers = Workers::new("codec-test-idle");
        let thread_of = |panics: bool| {
            let (tx, rx) = mpsc::channel();
            let job = WORKERS
                .spawn(move || {
                    tx.send(std::thread::current().id()).unwrap();
                    assert!(!panics, "the job's own panic");
                })
                .unwrap();
            job.join();
            rx.recv().unwrap()
        };
        let mut seen = std::collections::HashSet::from([thread_of(true)]);
        // Idle once its job ended, listed a moment after (a job that comes
        // before starts a thread): a later job runs on one of them.
        let reused = (0..1000).any(|_| {
            std::thread::sleep(Duration::from_millis(1));
            !seen.insert(thread_of(false))
        });
        assert!(reused, "no job ran on a thread an earlier one left idle");
        let slow = std::sync::Arc::new(AtomicBool::new(false));
        let flag = slow.clone();
        let job = WORKERS
            .spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                flag.store(true, Ordering::SeqCst);
            })
            .unwrap();
        job.join();
        assert!(slow.load(Ordering::SeqCst), "the join did not wait");
    }
}
