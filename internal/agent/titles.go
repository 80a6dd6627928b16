package agent

// titles are the hosts' names for people, by their names on the command
// line. A handoff records the agent that wrote it by that name (which stays
// readable by a build that does not know the host); readers show the title.
var titles = map[string]string{"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI", "copilot": "Copilot CLI", "droid": "Droid"}

// TitleOf is the title of the host called name, or name itself when unknown.
func TitleOf(name string) string {
	if t := titles[name]; t != "" {
		return t
	}
	return name
}
