package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/loopbreaker/loopbreaker/cannotrun"
)

// pipeGrace is how long the loop waits, after the command exited, for
// processes it left behind to close its output.
const pipeGrace = 2 * time.Second

// timeoutExitCode is the exit code recorded for a timed-out iteration, as
// timeout(1) reports it.
const timeoutExitCode = 124

// interrupts tells whether the run was interrupted: by a signal on ch, or
// by the context being cancelled (which main's signal handling does on
// Ctrl-C). Only signals on ch count towards the second, killing one.
type interrupts struct {
	ch     <-chan os.Signal
	signal os.Signal // the first interrupt; nil when none
	count  int       // signals received on ch
}

// pending reports, without blocking, whether the run was interrupted.
func (in *interrupts) pending(ctx context.Context) bool {
	if in.signal != nil {
		return true
	}
	select {
	case s := <-in.ch:
		in.signal = s
		in.count++
	case <-ctx.Done():
		in.signal = os.Interrupt
	default:
	}
	return in.signal != nil
}

// ran is what became of one run of the command.
type ran struct {
	started     time.Time
	duration    time.Duration
	exitCode    int
	timedOut    bool
	interrupted os.Signal
	// cannotRun is set when the agent could not work at all (its model
	// API refused it or was out of reach).
	cannotRun *cannotrun.Finding
}

// runCommand runs the agent command once in its own process group and
// waits for it. A timeout asks the group to terminate, then kills it after
// the grace period; an interrupt is forwarded to the group, and a second
// one kills it. Either way, what is left of the group is killed once the
// command has exited, so that nothing keeps running unsupervised.
func (l *loop) runCommand(ctx context.Context, argv, env []string, stdin io.Reader, stdout, stderr io.Writer) (ran, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = l.cfg.Dir
	cmd.Env = env
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = pipeGrace
	ownGroup(cmd)
	r := ran{started: time.Now()}
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("cannot start the agent command %q: %w: check the command after -- (is it installed and on PATH?)", argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var timeout, kill <-chan time.Time
	if l.cfg.IterationTimeout > 0 {
		t := time.NewTimer(l.cfg.IterationTimeout)
		defer t.Stop()
		timeout = t.C
	}
	ctxDone := ctx.Done()
	stopping := false
	stop := func(sig os.Signal) {
		signalGroup(cmd.Process, sig)
		if !stopping {
			stopping = true
			k := time.NewTimer(l.cfg.KillGrace)
			kill = k.C
		}
	}
	for {
		select {
		case err := <-done:
			r.duration = time.Since(r.started)
			if stopping {
				killGroup(cmd.Process)
			}
			var ee *exec.ExitError
			switch {
			case err == nil || errors.Is(err, exec.ErrWaitDelay):
				r.exitCode = exitCode(cmd.ProcessState)
			case errors.As(err, &ee):
				r.exitCode = exitCode(ee.ProcessState)
			default:
				return r, fmt.Errorf("waiting for the agent command: %w", err)
			}
			if r.timedOut {
				r.exitCode = timeoutExitCode
			}
			return r, nil
		case <-timeout:
			timeout = nil
			if r.interrupted == nil {
				r.timedOut = true
				stop(terminate)
			}
		case s := <-l.intr.ch:
			l.intr.count++
			if r.interrupted == nil {
				r.interrupted, l.intr.signal = s, s
				stop(s)
			} else if l.intr.count >= 2 {
				killGroup(cmd.Process)
			}
		case <-ctxDone:
			ctxDone = nil
			if r.interrupted == nil {
				r.interrupted, l.intr.signal = os.Interrupt, os.Interrupt
				stop(os.Interrupt)
			}
		case <-kill:
			kill = nil
			killGroup(cmd.Process)
		}
	}
}
