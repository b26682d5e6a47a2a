package hook

import "testing"

// A change of configuration or of the installed packages is setup; reading
// the configuration, and every other command, is not.
func TestShellSetup(t *testing.T) {
	for cmd, want := range map[string]bool{
		"jj config set --repo user.email a@b.c":         true,
		"jj config set --user ui.editor vim":            true,
		"git config user.name 'A B'":                    true,
		"git config --global --add safe.directory /x":   true,
		"git config --unset core.hooksPath":             true,
		"git -C repo config core.autocrlf false":        true,
		"npm config set registry https://example.com/":  true,
		"pip install -e .":                              true,
		"cd app && npm install":                         true,
		"sudo apt-get install -y jq":                    true,
		"go install golang.org/x/tools/cmd/goimports@v": true,
		"python -m pip uninstall -y six":                true,
		"bash -c 'pip install -e .'":                    true,
		"echo \"$(npm install)\"":                       true,
		"echo 'pip install x' # pip install":            false,
		"jj config get user.email":                      false,
		"jj config list":                                false,
		"git config user.name":                          false,
		"git config --get user.name":                    false,
		"git config -l":                                 false,
		"jj describe -m 'fix'":                          false,
		"git add config.go":                             false,
		"cat config/settings.yaml":                      false,
		"grep -rn install README.md":                    false,
		"go test ./...":                                 false,
	} {
		if got := ShellSetup(cmd); got != want {
			t.Errorf("ShellSetup(%q) = %v, want %v", cmd, got, want)
		}
	}
}
