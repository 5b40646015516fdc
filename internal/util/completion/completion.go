// Package completion holds orgsync's shell completion scripts, which
// orgsync completion prints and the packages install (make dist). The
// candidates they ask for are completed by Tree.Candidates from what the
// commands declare (cmd/orgsync gives the Tree).
package completion

// Files are where a package installs each shell's script.
var Files = map[string]string{
	"bash": "/usr/share/bash-completion/completions/orgsync",
	"zsh":  "/usr/share/zsh/vendor-completions/_orgsync",
	"fish": "/usr/share/fish/vendor_completions.d/orgsync.fish",
}

// FilesRPM are the paths of an .rpm where they differ from Files: the zsh
// of Fedora and RHEL reads site-functions, not Debian's
// vendor-completions.
var FilesRPM = map[string]string{"zsh": "/usr/share/zsh/site-functions/_orgsync"}

// Scripts are the shell completion scripts orgsync completion prints,
// by shell. Each asks `orgsync completion candidates -- WORDS...` for the
// candidates of the word being completed (the last), so that commands,
// flags and values are always those of the orgsync on PATH; when it
// prints none, the shell completes a file name.
var Scripts = map[string]string{
	"bash": `# bash completion for orgsync: source <(orgsync completion bash)
_orgsync() {
    local IFS=$'\n'
    COMPREPLY=($(command orgsync completion candidates -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _orgsync orgsync
`,
	"zsh": `#compdef orgsync
# zsh completion for orgsync: source <(orgsync completion zsh), after compinit
_orgsync() {
  local -a candidates
  candidates=("${(@f)$(command orgsync completion candidates -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ -n "${candidates[1]}" ]]; then
    compadd -- "${candidates[@]}"
  else
    _files
  fi
}
compdef _orgsync orgsync
`,
	"fish": `# fish completion for orgsync: orgsync completion fish | source
function __orgsync_candidates
    set -l words (commandline -opc) (commandline -ct)
    set -l found (command orgsync completion candidates -- $words[2..-1] 2>/dev/null)
    if test (count $found) -gt 0
        printf '%s\n' $found
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c orgsync -f -a '(__orgsync_candidates)'
`,
}
