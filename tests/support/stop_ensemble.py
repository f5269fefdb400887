"""Stopping an ensemble run in the middle, for the ensemble tests' checkpoint cases
(run_ensemble_cli_test, run_ensemble_mpm_test, ensemble_batch_test)."""
import os
import signal
import time


def interrupt_when(p, path, timeout, poll=0.005):
    """SIGINT to the running `silt run` p once `path` exists (or p has ended, or `timeout` s have
    passed); waits for it to exit. Returns p.communicate()'s (stdout, stderr)."""
    deadline = time.time() + timeout
    while not os.path.exists(path) and time.time() < deadline and p.poll() is None:
        time.sleep(poll)
    p.send_signal(signal.SIGINT)
    return p.communicate()


def saved_members(out):
    """OUT/ensemble_checkpoint and the member_* files in it (sorted; none when it is absent)."""
    ckpt = os.path.join(out, "ensemble_checkpoint")
    if not os.path.isdir(ckpt):
        return ckpt, []
    return ckpt, sorted(f for f in os.listdir(ckpt) if f.startswith("member_"))
