#!/bin/sh
# continuity-hook.sh EVENT: the hook of the continuity Claude Code plugin.
#
# It runs `continuity hook --agent claude` with the event's payload on
# stdin, except:
#   - when a settings file Claude Code reads for this session already
#     registers a `continuity hook` (or `continuity hook --agent claude`,
#     the form `continuity init` writes now) that can run, it steps aside:
#     Claude Code would otherwise run both, and the ledger would be injected
#     twice;
#   - when the continuity binary is not on PATH, it exits 0 and, at
#     SessionStart, tells the person how to install it.
# CONTINUITY_DEBUG=1 makes it say on stderr when it steps aside.
# It never fails a session: every path exits 0.

# registered prints the program of each runnable `continuity hook` command
# for Claude Code in the project's and the user's settings, in either form.
registered() {
	for f in "${CLAUDE_PROJECT_DIR:-.}/.claude/settings.json" \
		"${CLAUDE_PROJECT_DIR:-.}/.claude/settings.local.json" \
		"${CLAUDE_CONFIG_DIR:-$HOME/.claude}/settings.json"; do
		[ -r "$f" ] || continue
		grep -oE '"command"[[:space:]]*:[[:space:]]*"[^"]*continuity[^"]* hook( --agent[ =]claude)?"' "$f" 2>/dev/null |
			sed -E 's/^"command"[[:space:]]*:[[:space:]]*"//; s/ hook( --agent[ =]claude)?"$//' |
			while IFS= read -r prog; do
				prog=${prog#\'}
				prog=${prog%\'}
				if command -v "$prog" >/dev/null 2>&1; then
					printf '%s\n' "$prog"
				fi
			done
	done
}

progs=$(registered)
if [ -n "$progs" ]; then
	cat >/dev/null
	if [ -n "$CONTINUITY_DEBUG" ]; then
		echo "continuity plugin: $1: stepping aside, the settings register $(echo "$progs" | head -n 1) hook" >&2
	fi
	exit 0
fi
if command -v continuity >/dev/null 2>&1; then
	# A continuity older than the plugin does not know --agent: the form it knows.
	if continuity hook --agent claude --help >/dev/null 2>&1; then
		continuity hook --agent claude
	else
		continuity hook
	fi
	exit 0
fi
cat >/dev/null
if [ "$1" = SessionStart ]; then
	printf '%s\n' '{"systemMessage":"continuity plugin: the continuity binary is not on PATH, so no ledger or handoff is loaded or written. Install it with one of: npm install -g @continuity-md/continuity; brew install continuity-md/tap/continuity; an archive from https://github.com/continuity-md/continuity/releases (continuity or continuity.exe on PATH); go install github.com/continuity-md/continuity/cmd/continuity@latest"}'
fi
exit 0
