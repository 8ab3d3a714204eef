# bash completion for mkseries(1).
#
# Installed by `make install` in share/bash-completion/completions/; or
# source it from ~/.bashrc. Commands and options come from mkseries itself
# (`mkseries --list=cmds`, `mkseries CMD --help`), branches, variants and
# series from the kit (`mkseries --list=...`), so they never go stale.

# The subcommands a command's --help shows in its usage lines ("add" of
# "usage: mkseries series add ...").
_mkseries_subcommands()
{
	"$1" "$2" --help 2>/dev/null |
		sed -n "s/^ *\(usage\|or\): mkseries $2 \([a-z][a-z-]*\).*/\2/p" | sort -u
}

# The options a command's --help lists, one word each: "--branch -b ...".
_mkseries_options()
{
	"$1" ${2:+"$2"} --help 2>/dev/null |
		sed -n -e 's/^ *\(-[a-zA-Z]\), \(--[a-z][a-z-]*\).*/\1 \2/p' \
		       -e 's/^ *\(--[a-z][a-z-]*\).*/\1/p'
}

_mkseries()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n = || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi

	local bin=${words[0]} cmd= sub= branch= i
	local -a kit=()
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--kit) kit=(--kit "${words[i+1]}"); ((i++)) ;;
		--kit=*) kit=("${words[i]}") ;;
		-b | --branch) branch=${words[i+1]}; ((i++)) ;;
		--branch=*) branch=${words[i]#--branch=} ;;
		-*) ;;
		*) if [[ -z $cmd ]]; then cmd=${words[i]}; elif [[ -z $sub ]]; then sub=${words[i]}; fi ;;
		esac
	done

	case $prev in
	-m | --message)
		return ;;	# backport --skip's reason: free text
	--kit | --repo | --workdir | --mainline | --output | -o | --mbox)
		if [[ $prev == --mbox || (($prev == --output || $prev == -o) && $cmd != export) ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi
		return ;;
	-b | --branch)
		COMPREPLY=($(compgen -W "$("$bin" "${kit[@]}" --list=branches 2>/dev/null)" -- "$cur"))
		return ;;
	--variant)
		local v
		v=$("$bin" "${kit[@]}" --list=variants 2>/dev/null |
			sed -n "s|^${branch:-[^/]*}/||p" | sort -u)
		COMPREPLY=($(compgen -W "$v" -- "$cur"))
		return ;;
	--format)
		local f="text json"
		case $cmd in
		report) f="text json junit markdown html" ;;
		run) f="text json junit markdown" ;;
		export) f="mbox quilt rpm" ;;
		esac
		COMPREPLY=($(compgen -W "$f" -- "$cur"))
		return ;;
	--accel)
		COMPREPLY=($(compgen -W "auto kvm tcg" -- "$cur"))
		return ;;
	--case)
		# the cases of the mm-regress mkseries carries
		COMPREPLY=($(compgen -W "$("$bin" regress --list 2>/dev/null)" -- "$cur"))
		return ;;
	--claim)
		COMPREPLY=($(compgen -W "$("$bin" "${kit[@]}" --list=claims 2>/dev/null)" -- "$cur"))
		return ;;
	--drop)
		COMPREPLY=($(compgen -W "$("$bin" "${kit[@]}" --list=kits 2>/dev/null)" -- "$cur"))
		return ;;
	esac

	# Values given after "=" only (an optional value never takes the next word).
	case $cur in
	--progress=*)
		COMPREPLY=($(compgen -P --progress= -W "auto always never" -- "${cur#--progress=}"))
		return ;;
	--force=*)
		[[ $cmd == run ]] &&
			COMPREPLY=($(compgen -P --force= -W "import apply build test" -- "${cur#--force=}"))
		return ;;
	esac

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--kit --list= --version --help -q --quiet -v --verbose
				--progress --progress= --no-progress" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$bin" --list=cmds 2>/dev/null)" -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		[[ $cmd == help ]] && return
		COMPREPLY=($(compgen -W "$(_mkseries_options "$bin" "$cmd") --no-progress" -- "$cur"))
		return
	fi
	if [[ -z $sub && ($cmd == series || $cmd == ci) ]]; then
		COMPREPLY=($(compgen -W "$(_mkseries_subcommands "$bin" "$cmd")" -- "$cur"))
		return
	fi
	case $cmd in
	help)
		COMPREPLY=($(compgen -W "$("$bin" --list=cmds 2>/dev/null) kit" -- "$cur")) ;;
	backport | fetch)
		COMPREPLY=($(compgen -W "$("$bin" "${kit[@]}" --list=series 2>/dev/null)" -- "$cur")) ;;
	report)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _mkseries mkseries
