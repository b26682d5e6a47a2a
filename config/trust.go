package config

import "fmt"

// userOnlyKeys are the keys a project's loopbreaker.yaml may not set, with
// why: the file comes with the repository, and a cloned repository is not
// trusted. A state_dir set there could make loopbreaker create and write
// files wherever the repository's author likes (~/.ssh, another project's
// state), or put the state back inside the work tree the agent searches.
// Only the person's own layers (user file, environment, flags) set them.
func userOnlyKeys() map[string]string {
	return map[string]string{
		"state_dir":      "a repository's file may not choose where loopbreaker writes outside the project",
		"trusted_stores": "a repository cannot vouch for the store server it names",
	}
}

// refuseUserOnly takes the user-only keys out of a project file's
// settings, with an error for each that says where to set it instead.
func refuseUserOnly(settings []setting) ([]setting, []error) {
	only := userOnlyKeys()
	var kept []setting
	var errs []error
	for _, s := range settings {
		why, ok := only[s.leaf.key]
		if !ok {
			kept = append(kept, s)
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s cannot be set in a project's %s (%s): remove it there and set it in your user file ($XDG_CONFIG_HOME/loopbreaker/config.yaml, else ~/.config/loopbreaker/config.yaml) or the environment (%s)",
			s.src.Location(), s.leaf.key, ProjectFile, why, envName(s.leaf.key)))
	}
	return kept, errs
}
