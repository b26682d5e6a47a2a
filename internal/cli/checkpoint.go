package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/internal/realpath"
)

const checkpointUsage = `loopbreaker checkpoint: git checkpoints of a slice (tag loopbreaker/checkpoint/SLICE)

Usage: loopbreaker checkpoint <subcommand> [flags]

Subcommands:
  create --slice S   tag HEAD before the slice's first attempt (an existing tag
                     that HEAD descends from is kept: a resumed slice rolls back
                     to where it first started)
  clean --slice S    delete the tag when the slice is done
  list               checkpoints, and the rescue refs rollbacks saved work in

Run ` + "`loopbreaker checkpoint <subcommand> --help`" + ` for its flags.

Example:
  loopbreaker checkpoint create --slice S1`

// gitOptions are the flags of the git commands (checkpoint, rollback):
// they need the project, not the breaker.
type gitOptions struct {
	project string
	json    bool
	slice   string
}

func (o *gitOptions) register(fs *flag.FlagSet, withSlice bool) {
	fs.StringVar(&o.project, "C", "", "project `dir`ectory (default: the nearest parent with loopbreaker.yaml, else the working directory)")
	fs.BoolVar(&o.json, "json", false, "print JSON instead of text")
	if withSlice {
		fs.StringVar(&o.slice, "slice", "", "the `slice` (unit of work), e.g. S1 (required)")
	}
}

func (o *gitOptions) needSlice(cmd string) error {
	if strings.TrimSpace(o.slice) == "" {
		return usagef("%s: --slice is required, e.g. `loopbreaker %s --slice S1`", cmd, cmd)
	}
	return nil
}

// openGit opens the git work tree of the project, keeping loopbreaker's
// state directory out of snapshots and rollbacks wherever it is.
func (o *gitOptions) openGit(ctx context.Context, env *Env) (*gitrepo.Repo, error) {
	project := resolveProject(env, o.project)
	repo, err := gitrepo.Open(ctx, project)
	if err != nil {
		if errors.Is(err, gitrepo.ErrNotRepo) {
			return nil, fmt.Errorf("checkpoints need git: %s is not inside a git work tree; run `git init && git add -A && git commit -m start` there first", project)
		}
		if errors.Is(err, gitrepo.ErrNoGit) {
			return nil, fmt.Errorf("checkpoints need git, which is not installed (or not on PATH): install it and retry")
		}
		return nil, err
	}
	repo.Now = env.Now
	// Outside the project by default; LOOPBREAKER_DIR or state_dir may
	// still put it inside the work tree.
	stateDir, _, err := stateDirOf(env, project)
	if err != nil {
		return nil, err
	}
	for _, root := range []string{repo.Root, realpath.Of(repo.Root)} {
		rel, err := filepath.Rel(root, realpath.Of(stateDir))
		if err != nil {
			rel, err = filepath.Rel(root, stateDir)
		}
		if err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			repo.Exclude = append(repo.Exclude, filepath.ToSlash(rel))
			break
		}
	}
	return repo, nil
}

// runCheckpoint dispatches the checkpoint subcommands.
func runCheckpoint(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, checkpointUsage)
		return &exitError{code: ExitError}
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprintln(env.Stdout, checkpointUsage)
		return nil
	case "create":
		return runCheckpointCreate(ctx, env, args[1:])
	case "clean":
		return runCheckpointClean(ctx, env, args[1:])
	case "list":
		return runCheckpointList(ctx, env, args[1:])
	}
	return usagef("checkpoint: unknown subcommand %q: want create, clean or list", args[0])
}

// checkpointOutput is the JSON of a checkpoint.
type checkpointOutput struct {
	Slice  string `json:"slice"`
	Tag    string `json:"tag"`
	Commit string `json:"commit,omitempty"`
	// Action is "created", "kept", "deleted" or "none".
	Action string `json:"action,omitempty"`
}

func runCheckpointCreate(ctx context.Context, env *Env, args []string) error {
	var o gitOptions
	fs := newFlagSet("checkpoint create", env)
	o.register(fs, true)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := o.needSlice("checkpoint create"); err != nil {
		return err
	}
	repo, err := o.openGit(ctx, env)
	if err != nil {
		return err
	}
	cp, err := repo.CreateCheckpoint(ctx, o.slice)
	if err != nil {
		return err
	}
	out := checkpointOutput{Slice: cp.Slice, Tag: cp.Tag, Commit: cp.Commit, Action: "created"}
	if cp.Existing {
		out.Action = "kept"
	}
	if o.json {
		return encodeIndented(env.Stdout, out)
	}
	if cp.Existing {
		fmt.Fprintf(env.Stdout, "loopbreaker: checkpoint %s kept: it already exists at %s, which HEAD descends from, so a rollback returns to where slice %s first started\n", cp.Tag, shortID(cp.Commit), cp.Slice)
		return nil
	}
	fmt.Fprintf(env.Stdout, "loopbreaker: checkpoint %s created at %s (HEAD)\n  roll back to it: loopbreaker rollback --slice %s\n", cp.Tag, shortID(cp.Commit), quoteArg(cp.Slice))
	return nil
}

func runCheckpointClean(ctx context.Context, env *Env, args []string) error {
	var o gitOptions
	fs := newFlagSet("checkpoint clean", env)
	o.register(fs, true)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := o.needSlice("checkpoint clean"); err != nil {
		return err
	}
	repo, err := o.openGit(ctx, env)
	if err != nil {
		return err
	}
	out := checkpointOutput{Slice: o.slice, Tag: gitrepo.CheckpointTagPrefix + o.slice, Action: "deleted"}
	cps, _ := repo.Checkpoints(ctx) // only to say where the tag pointed
	for _, cp := range cps {
		if cp.Slice == o.slice {
			out.Commit = cp.Commit
		}
	}
	// Cleaning is what a finished slice does: a tag already gone is fine.
	err = repo.CleanCheckpoint(ctx, o.slice)
	switch {
	case errors.Is(err, gitrepo.ErrCheckpointNotFound):
		out.Action = "none"
	case err != nil:
		return err
	}
	if o.json {
		return encodeIndented(env.Stdout, out)
	}
	if out.Action == "none" {
		fmt.Fprintf(env.Stdout, "loopbreaker: no checkpoint %s: nothing to clean\n", out.Tag)
		return nil
	}
	fmt.Fprintf(env.Stdout, "loopbreaker: checkpoint %s deleted (it pointed to %s); rescue refs are kept (see `loopbreaker checkpoint list`)\n", out.Tag, shortID(out.Commit))
	return nil
}

// rescueOutput is the JSON of a rescue ref.
type rescueOutput struct {
	Ref            string    `json:"ref"`
	Slice          string    `json:"slice"`
	Time           time.Time `json:"time"`
	Commit         string    `json:"commit"`
	PreviousHead   string    `json:"previous_head,omitempty"`
	RestoreCommand string    `json:"restore_command"`
	UndoCommands   []string  `json:"undo_commands"`
}

func newRescueOutput(r gitrepo.Rescue) *rescueOutput {
	out := &rescueOutput{Ref: r.Ref, Slice: r.Slice, Time: r.Time.UTC(), Commit: r.Commit,
		PreviousHead: r.PreviousHead, RestoreCommand: r.RestoreCommand().String(), UndoCommands: []string{}}
	for _, c := range r.UndoCommands() {
		out.UndoCommands = append(out.UndoCommands, c.String())
	}
	return out
}

type checkpointListOutput struct {
	Checkpoints []checkpointOutput `json:"checkpoints"`
	Rescues     []*rescueOutput    `json:"rescues"`
}

func runCheckpointList(ctx context.Context, env *Env, args []string) error {
	var o gitOptions
	fs := newFlagSet("checkpoint list", env)
	o.register(fs, false)
	if err := parse(fs, args); err != nil {
		return err
	}
	repo, err := o.openGit(ctx, env)
	if err != nil {
		return err
	}
	cps, err := repo.Checkpoints(ctx)
	if err != nil {
		return err
	}
	rescues, err := repo.Rescues(ctx)
	if err != nil {
		return err
	}
	out := checkpointListOutput{Checkpoints: []checkpointOutput{}, Rescues: []*rescueOutput{}}
	for _, cp := range cps {
		out.Checkpoints = append(out.Checkpoints, checkpointOutput{Slice: cp.Slice, Tag: cp.Tag, Commit: cp.Commit})
	}
	for _, r := range rescues {
		out.Rescues = append(out.Rescues, newRescueOutput(r))
	}
	if o.json {
		return encodeIndented(env.Stdout, out)
	}
	if len(out.Checkpoints) == 0 {
		fmt.Fprintln(env.Stdout, "checkpoints: none (create one with `loopbreaker checkpoint create --slice S` before a slice's first attempt)")
	} else {
		fmt.Fprintln(env.Stdout, "checkpoints:")
		for _, cp := range out.Checkpoints {
			fmt.Fprintf(env.Stdout, "  %-12s %s  %s\n", cp.Slice, shortID(cp.Commit), cp.Tag)
		}
	}
	if len(out.Rescues) == 0 {
		fmt.Fprintln(env.Stdout, "rescues: none")
		return nil
	}
	fmt.Fprintln(env.Stdout, "rescues (work saved by rollbacks, oldest first):")
	for _, r := range out.Rescues {
		fmt.Fprintf(env.Stdout, "  %s  slice %s, %s, previous HEAD %s\n    restore: %s\n", r.Ref, r.Slice, r.Time.Format(time.RFC3339), shortOrNone(r.PreviousHead), r.RestoreCommand)
	}
	return nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func shortOrNone(id string) string {
	if id == "" {
		return "none (unborn branch)"
	}
	return shortID(id)
}
