package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/config"
)

type initOptions struct {
	dir   string
	force bool
}

// runInit writes a commented loopbreaker.yaml with every key at its
// default (it marks the project as guarded), and the project's state
// directory outside the project.
func runInit(_ context.Context, env *Env, args []string) error {
	var o initOptions
	flags := newFlagSet("init", env)
	flags.StringVar(&o.dir, "C", env.globals.project, "project `dir`ectory (default: the working directory)")
	flags.BoolVar(&o.force, "force", false, "overwrite an existing loopbreaker.yaml")
	if err := parse(flags, args); err != nil {
		return err
	}
	project := env.Dir
	if o.dir != "" {
		dir, err := projectDir(env, o.dir)
		if err != nil {
			return err
		}
		project = dir
	}
	path := filepath.Join(project, config.ProjectFile)
	wrote := true
	_, err := os.Stat(path)
	switch {
	case err == nil && !o.force:
		wrote = false
		fmt.Fprintf(env.Stdout, "kept %s (it exists; --force overwrites it)\n", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if wrote {
		if err := os.WriteFile(path, []byte(config.SampleYAML()), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		fmt.Fprintf(env.Stdout, "wrote %s\n", path)
	}
	// Opening the project creates its state directory (moving a legacy
	// one out of the project first) and records the project there.
	c := common{project: project, session: "default", sets: env.globals.sets}
	w, err := c.open(env)
	if err != nil {
		return err
	}
	w.close()
	where := "outside the project"
	if !w.keyed {
		where = "LOOPBREAKER_DIR"
	}
	fmt.Fprintf(env.Stdout, "state in %s (%s)\n", w.storeName(), where)
	fmt.Fprintln(env.Stdout, "next: in your loop, `loopbreaker check || break` before each iteration and `loopbreaker record ...` after it")
	return nil
}
