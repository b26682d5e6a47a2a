package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
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
	wrote, err := writeProjectFile(project, o.force)
	if err != nil {
		return err
	}
	if wrote {
		fmt.Fprintf(env.Stdout, "wrote %s\n", path)
	} else {
		fmt.Fprintf(env.Stdout, "kept %s (it exists; --force overwrites it)\n", path)
	}
	// Opening the project creates its state directory and records the
	// project there.
	c := common{project: project, session: "default", sets: env.globals.sets}
	w, err := c.open(env)
	if err != nil {
		return err
	}
	w.Close()
	where := "outside the project"
	if !w.keyed {
		where = "LOOPBREAKER_DIR"
	}
	fmt.Fprintf(env.Stdout, "state in %s (%s)\n", w.StoreName(), where)
	fmt.Fprintln(env.Stdout, "next: in your loop, `loopbreaker check || break` before each iteration and `loopbreaker record ...` after it")
	return nil
}

// writeProjectFile writes the sample loopbreaker.yaml into project unless
// one exists (force: overwrite it). The project may be a cloned
// repository that ships loopbreaker.yaml as a link to a file of the
// person's: a link, or anything but a regular file, is an error, never
// written through, even a link to a file that does not exist yet.
func writeProjectFile(project string, force bool) (wrote bool, err error) {
	root, err := nofollow.OpenRoot(project, "loopbreaker never writes through a link in a project (a cloned repository can ship any link): remove it and run `loopbreaker init` again")
	if err != nil {
		return false, err
	}
	defer root.Close()
	f, err := root.OpenFile(config.ProjectFile, os.O_RDONLY, 0)
	switch {
	case err == nil:
		f.Close()
		if !force {
			return false, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	f, err = root.OpenFile(config.ProjectFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", root.Join(config.ProjectFile), err)
	}
	_, err = f.WriteString(config.SampleYAML())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", root.Join(config.ProjectFile), err)
	}
	return true, nil
}
